"""The three planning cases, each as iceflight's filter, PyIceberg's and Iceberg Java's.

Iceberg Java's form is Iceberg REST expression JSON, which its ``ExpressionParser`` reads.
"""

from __future__ import annotations

import json
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
    """One scan to plan: the same filter in iceflight's, PyIceberg's and Iceberg Java's forms."""

    name: str
    iceflight_filter: str | None
    pyiceberg_filter: BooleanExpression
    #: Iceberg REST expression JSON (the REST spec's Expression), None for no filter.
    java_filter: str | None


ONE_DAY_FILTER = (
    "ts >= TIMESTAMPTZ '2025-03-01 00:00:00+00:00' AND ts < TIMESTAMPTZ '2025-03-02 00:00:00+00:00'"
)

# amount's per-file maxima are spread over [500, 1000) (bench/gen SyntheticFiles), so this
# keeps about 2% of the files, by their upper bounds alone: amount is no partition column.
METRICS_FILTER = "amount > 990.5"

CASES: tuple[Case, ...] = (
    Case("(a) no filter", None, AlwaysTrue(), None),
    Case(
        "(b) one day: ts in 2025-03-01",
        ONE_DAY_FILTER,
        And(
            GreaterThanOrEqual(term=Reference("ts"), value=literal("2025-03-01T00:00:00+00:00")),
            LessThan(term=Reference("ts"), value=literal("2025-03-02T00:00:00+00:00")),
        ),
        json.dumps(
            {
                "type": "and",
                "left": {"type": "gt-eq", "term": "ts", "value": "2025-03-01T00:00:00+00:00"},
                "right": {"type": "lt", "term": "ts", "value": "2025-03-02T00:00:00+00:00"},
            }
        ),
    ),
    Case(
        "(c) metrics only: amount > 990.5",
        METRICS_FILTER,
        GreaterThan(term=Reference("amount"), value=literal(990.5)),
        json.dumps({"type": "gt", "term": "amount", "value": 990.5}),
    ),
)
