"""The three planning cases, each as iceflight's filter string and PyIceberg's expression."""

from __future__ import annotations

from dataclasses import dataclass

from pyiceberg.expressions import (
    AlwaysTrue,
    And,
    BooleanExpression,
    GreaterThan,
    GreaterThanOrEqual,
    LessThan,
    Reference,
)
from pyiceberg.expressions.literals import literal


@dataclass(frozen=True)
class Case:
    """One scan to plan: the same filter in iceflight's and PyIceberg's forms."""

    name: str
    iceflight_filter: str | None
    pyiceberg_filter: BooleanExpression


ONE_DAY_FILTER = (
    "ts >= TIMESTAMPTZ '2025-03-01 00:00:00+00:00' AND ts < TIMESTAMPTZ '2025-03-02 00:00:00+00:00'"
)

# amount's per-file maxima are spread over [500, 1000) (bench/gen SyntheticFiles), so this
# keeps about 2% of the files, by their upper bounds alone: amount is no partition column.
METRICS_FILTER = "amount > 990.5"

CASES: tuple[Case, ...] = (
    Case("(a) no filter", None, AlwaysTrue()),
    Case(
        "(b) one day: ts in 2025-03-01",
        ONE_DAY_FILTER,
        And(
            GreaterThanOrEqual(term=Reference("ts"), value=literal("2025-03-01T00:00:00+00:00")),
            LessThan(term=Reference("ts"), value=literal("2025-03-02T00:00:00+00:00")),
        ),
    ),
    Case(
        "(c) metrics only: amount > 990.5",
        METRICS_FILTER,
        GreaterThan(term=Reference("amount"), value=literal(990.5)),
    ),
)
