// Package expr holds Iceberg row filters and everything scan planning does
// with them: parsing (a SQL-like string or the REST catalog's Expression
// JSON), binding to a schema, projecting onto partition specs (spec: "Scan
// Planning"), and evaluating against partition tuples, manifest summaries,
// file metrics and rows.
//
// # Filter syntax
//
// Parse reads predicates joined by AND, OR and NOT with parentheses;
// keywords are case-insensitive and AND binds tighter than OR:
//
//	col = 5            col != 5  (or <>)      col < 5   col <= 5   col > 5   col >= 5
//	col IN (1, 2, 3)   col NOT IN ('a', 'b')
//	col IS NULL        col IS NOT NULL        col IS NAN            col IS NOT NAN
//	col STARTS WITH 'ab'                      col NOT STARTS WITH 'ab'
//	col LIKE 'ab%'     col NOT LIKE 'ab%'     (prefix patterns only; \% \_ \\ escape)
//	TRUE               FALSE                  5 < col (a literal may come first)
//
// Columns are bare identifiers ([A-Za-z_][A-Za-z0-9_$]*) or "double
// quoted" ("" is a quote inside), joined by dots for fields of nested
// structs (address.city). AND, OR, NOT, IN, IS, NULL, LIKE, TRUE and FALSE
// are reserved and must be quoted to name a column.
//
// Literals are integers (34, -7), decimals and floats kept exactly as
// written (14.20, 1e20), 'strings' (a quote inside is written twice), TRUE and FALSE,
// NaN, Infinity and -Infinity (bare words), X'00ff' for binary, and typed
// literals DATE '2017-11-16', TIME '22:31:08.5', TIMESTAMP '2017-11-16
// 22:31:08' (with T or a space; more than six fractional digits make a
// nanosecond timestamp) and TIMESTAMPTZ '2017-11-16 14:31:08-08:00'.
// NULL is not a literal: write IS NULL.
//
// A plain string converts to the column's type when bound: dates,
// times, timestamps ("2017-11-16", "2017-11-16T22:31:08.123456",
// with a zone offset or taken as UTC without one), uuids, decimals and
// numbers, and hex for binary and fixed columns (the JSON single-value
// form). Comparing with NaN means IS NAN (=) or IS NOT NAN (!=).
//
// # Semantics
//
// Expressions use the two-valued logic that Iceberg's projections and
// metrics evaluators assume: null and NaN values fail every comparison, IN
// and STARTS WITH, and therefore pass !=, NOT IN and NOT STARTS WITH.
// Floats compare as IEEE 754 numbers. Strings compare by UTF-8 bytes
// (code points), binary and uuids as unsigned bytes.
//
// # Limits
//
// Filters come from clients, so every stage is bounded: AND and OR chains
// are flat (AndExpr and OrExpr hold their terms), parentheses and NOTs may
// nest MaxDepth deep, and error messages quote at most a hundred-odd bytes
// of any literal, name or filter. Binding, pruning and row evaluation take
// time near-linear in the filter's length: equalities on one column fold
// into one IN, and IN lists are searched, not scanned.
//
// # Planning
//
// Inclusive and Strict project a bound row filter onto a partition spec;
// NewManifestEvaluator prunes manifests from their partition summaries,
// NewPartitionEvaluator prunes manifest entries by partition tuple,
// NewMetricsEvaluator prunes (inclusive) or proves (strict) files from
// column metrics, Residual gives what remains to filter in each file, and
// Eval checks rows. The rules follow Iceberg Java 1.12, including its
// adjustment of time projections for pre-1970 values written by old
// versions. All evaluators are immutable and safe for concurrent use.
//
// # Differences from Iceberg Java
//
// Java's row Evaluator orders null before and NaN after every value, so
// there x < 5 holds for a null x; here (as in Java's own metrics pruning,
// and in SQL) it does not. Java holds -0.0 != 0.0; here they are equal.
// Literals between two values of a column's type narrow the operation
// exactly (int_col < 1.5 is int_col <= 1) where Java rounds or refuses,
// and JSON numbers convert exactly to any numeric type (Java's REST
// parsing refuses 10 for a double and "1.0" for a decimal(9,2)). UUIDs
// order as unsigned bytes, as Parquet statistics do, and bounds that are
// inverted in that order (written with Java's signed comparison) are not
// used. Strict metrics evaluation assumes a float column without a NaN
// count may hold NaN. Transform terms (bucket[16](id) = 3) are refused.
// IN lists of any length are checked against bounds (Java stops past 200
// values), and an OR of equalities on one column binds to one IN.
package expr
