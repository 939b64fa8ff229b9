"""The three read cases and each peer's spelling of their filter."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pyarrow.compute as pc
from pyiceberg.expressions import AlwaysTrue, BooleanExpression, EqualTo, Reference
from pyiceberg.expressions.literals import literal

from .dataset import FIRST_DAY, NAMESPACE

#: The day case reads this one day of the 30.
DAY = FIRST_DAY + dt.timedelta(days=14)


@dataclass(frozen=True)
class Case:
    """One table read, optionally filtered to one day of ``l_shipdate``."""

    name: str
    table: str
    one_day: bool
    description: str

    @property
    def iceflight_filter(self) -> str | None:
        """The filter in iceflight's string syntax (README "Flight API")."""
        return f"l_shipdate = '{DAY.isoformat()}'" if self.one_day else None

    def pyiceberg_filter(self) -> BooleanExpression:
        """Return the PyIceberg row_filter."""
        if not self.one_day:
            return AlwaysTrue()
        return EqualTo(term=Reference("l_shipdate"), value=literal(DAY.isoformat()))

    def pyarrow_filter(self) -> pc.Expression | None:
        """Return the pyarrow filter expression (read_table's filters=, to_table's filter=)."""
        return pc.field("l_shipdate") == pc.scalar(DAY) if self.one_day else None

    @property
    def day_number(self) -> int:
        """DAY as days since 1970-01-01, for iceberg-go's Date literal."""
        return (DAY - dt.date(1970, 1, 1)).days


CASES = [
    Case("big", f"{NAMESPACE}.big", False, "full scan, 10 M rows in 8 large files"),
    Case("small", f"{NAMESPACE}.small", False, "full scan, same rows in 5,000-row files"),
    Case("daily", f"{NAMESPACE}.daily", True, "one day of 30, day-partitioned small files"),
]


def by_name(name: str) -> Case:
    """Return the case called name."""
    for case in CASES:
        if case.name == name:
            return case
    raise KeyError(name)
