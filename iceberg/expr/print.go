package expr

import (
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/iceflight/iceflight/iceberg"
)

// String returns "TRUE".
func (TrueExpr) String() string { return "TRUE" }

// String returns "FALSE".
func (FalseExpr) String() string { return "FALSE" }

// String returns "NOT child", parenthesizing AND and OR children.
func (e NotExpr) String() string { return exprString(e, 0) }

// String returns the terms joined by " AND ", wrapping OR terms (AND binds
// tighter) and AND terms (only a tree built by hand nests them) in
// parentheses, so Parse rebuilds the same tree.
func (e AndExpr) String() string { return exprString(e, 0) }

// String returns the terms joined by " OR ", wrapping nested OR terms.
func (e OrExpr) String() string { return exprString(e, 0) }

// printer writes an expression into one buffer, so printing costs the
// length of the output whatever the nesting. Past maxTreeDepth levels,
// which only a tree built in Go reaches, it writes "…" instead of going
// deeper; past limit bytes (0: none) it stops writing.
type printer struct {
	b     strings.Builder
	limit int
}

// exprString prints e, stopping after about limit bytes when limit > 0.
func exprString(e Expr, limit int) string {
	p := printer{limit: limit}
	p.expr(e, 0)
	return p.b.String()
}

func (p *printer) full() bool { return p.limit > 0 && p.b.Len() >= p.limit }

func (p *printer) expr(e Expr, depth int) {
	switch {
	case p.full():
		return
	case depth > maxTreeDepth:
		p.b.WriteString("…")
		return
	}
	switch e := e.(type) {
	case NotExpr:
		p.b.WriteString("NOT ")
		_, and := e.Child.(AndExpr)
		_, or := e.Child.(OrExpr)
		p.term(e.Child, and || or, depth)
	case AndExpr:
		p.terms(e.Terms, " AND ", depth)
	case OrExpr:
		p.terms(e.Terms, " OR ", depth)
	case nil:
		p.b.WriteString("<nil>")
	default:
		p.b.WriteString(e.String())
	}
}

func (p *printer) terms(terms []Expr, sep string, depth int) {
	for i, t := range terms {
		if i > 0 {
			p.b.WriteString(sep)
		}
		_, isOr := t.(OrExpr)
		_, isAnd := t.(AndExpr)
		p.term(t, isOr || (isAnd && sep == " AND "), depth)
	}
}

// term writes a child of a NOT, AND or OR, in parentheses when wrap.
func (p *printer) term(e Expr, wrap bool, depth int) {
	if wrap {
		p.b.WriteByte('(')
	}
	p.expr(e, depth+1)
	if wrap {
		p.b.WriteByte(')')
	}
}

// String writes the predicate in the filter syntax, its literals formatted
// for the bound column's type when bound.
func (p Predicate) String() string {
	name := quoteName(p.Ref.Name)
	lit := func(v any) string { return formatLiteral(p.Ref.Type, v) }
	one := func() string {
		if len(p.Values) == 0 {
			return "<missing>"
		}
		return lit(p.Values[0])
	}
	list := func() string {
		parts := make([]string, len(p.Values))
		for i, v := range p.Values {
			parts[i] = lit(v)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	if len(p.Values) == 1 {
		if pm, ok := p.Values[0].(Param); ok && pm.form == formPattern {
			if p.Op == OpNotStartsWith {
				return name + " NOT LIKE ?"
			}
			return name + " LIKE ?"
		}
	}
	switch p.Op {
	case OpIsNull:
		return name + " IS NULL"
	case OpNotNull:
		return name + " IS NOT NULL"
	case OpIsNaN:
		return name + " IS NAN"
	case OpNotNaN:
		return name + " IS NOT NAN"
	case OpLt:
		return name + " < " + one()
	case OpLtEq:
		return name + " <= " + one()
	case OpGt:
		return name + " > " + one()
	case OpGtEq:
		return name + " >= " + one()
	case OpEq:
		return name + " = " + one()
	case OpNotEq:
		return name + " != " + one()
	case OpIn:
		return name + " IN " + list()
	case OpNotIn:
		return name + " NOT IN " + list()
	case OpStartsWith:
		return name + " STARTS WITH " + one()
	case OpNotStartsWith:
		return name + " NOT STARTS WITH " + one()
	}
	return name + " " + p.Op.String() + " " + list()
}

var bareName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*$`)

// quoteName writes a column name bare when every dotted part is a plain
// identifier and not a keyword, and double-quoted otherwise.
func quoteName(name string) string {
	parts := strings.Split(name, ".")
	for _, part := range parts {
		if !bareName.MatchString(part) || isReserved(part) {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	return name
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// formatLiteral writes a literal so that Parse and Bind read back the same
// value: bound values by their column type t, unbound ones by their Go type.
func formatLiteral(t iceberg.Type, v any) string {
	if t != nil {
		if s, ok := formatTyped(t, v); ok {
			return s
		}
	}
	switch v := v.(type) {
	case nil:
		return "NULL"
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	case int64:
		return strconv.FormatInt(v, 10)
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case Number:
		return string(v)
	case float64:
		return formatFloat(v, 64)
	case float32:
		return formatFloat(float64(v), 32)
	case string:
		return quoteString(v)
	case Typed:
		if s, ok := formatTyped(v.Type, v.Value); ok {
			return s
		}
	case Param:
		return "?"
	}
	return quoteString(fmt.Sprint(v))
}

func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// formatTyped writes a value of type t; ok is false when v is not of t's
// Go representation.
func formatTyped(t iceberg.Type, v any) (string, bool) {
	switch t.(type) {
	case iceberg.DecimalType:
		d, ok := v.(decimal128.Num)
		if !ok {
			return "", false
		}
		return iceberg.FormatDecimal(d, t.(iceberg.DecimalType).Scale), true
	case iceberg.DateType:
		d, ok := v.(int32)
		if !ok {
			return "", false
		}
		if !fourDigitYear(t, int64(d)) {
			return strconv.FormatInt(int64(d), 10), true
		}
		return "DATE '" + time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02") + "'", true
	case iceberg.TimeType:
		us, ok := v.(int64)
		if !ok || us < 0 || us >= 86400*1_000_000 {
			return "", false
		}
		return "TIME '" + time.UnixMicro(us).UTC().Format("15:04:05.999999") + "'", true
	case iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		i, ok := v.(int64)
		if !ok {
			return "", false
		}
		return formatTimestamp(t, i), true
	case iceberg.UUIDType:
		u, ok := v.([16]byte)
		if !ok {
			return "", false
		}
		return quoteString(iceberg.FormatUUID(u)), true
	case iceberg.BinaryType, iceberg.FixedType:
		b, ok := v.([]byte)
		if !ok {
			return "", false
		}
		return "X'" + hex.EncodeToString(b) + "'", true
	}
	return "", false
}

// instantOf returns a date (days) or timestamp value of type t as a time.
func instantOf(t iceberg.Type, v int64) time.Time {
	switch t.(type) {
	case iceberg.DateType:
		return time.Unix(v*86400, 0).UTC()
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return time.Unix(0, v).UTC()
	}
	return time.UnixMicro(v).UTC()
}

// fourDigitYear reports whether a date or timestamp value falls in years
// 0000 to 9999, the years that the ISO-8601 forms Parse and Bind read
// can write. Others are written as the integer (days or microseconds),
// which Bind reads back as the same value; nanosecond values are always
// inside (1677 to 2262).
func fourDigitYear(t iceberg.Type, v int64) bool {
	y := instantOf(t, v).Year()
	return y >= 0 && y <= 9999
}

func formatTimestamp(t iceberg.Type, v int64) string {
	if !fourDigitYear(t, v) {
		return strconv.FormatInt(v, 10)
	}
	s := instantOf(t, v).Format("2006-01-02 15:04:05.999999999")
	switch t.(type) {
	case iceberg.TimestampTzType, iceberg.TimestampTzNsType:
		return "TIMESTAMPTZ '" + s + "+00:00'"
	}
	return "TIMESTAMP '" + s + "'"
}
