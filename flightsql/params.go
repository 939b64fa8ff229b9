package flightsql

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg/expr"
)

// Parameters travel in a prepared statement's handle as literals of the
// filter grammar (parameterLiteral), the handle being all the state there
// is. Binding reads each back as one value (expr.ParseValue) and puts it
// in place of its ? in the filter parsed from the statement's tokens
// (expr.BindParams): a value is never pasted into the statement's text.

var errBadParams = errors.New("bad parameters")

// parseWhere reads the statement's filter from its WHERE tokens, its ?
// placeholders as expr.Params, and resolves its column names in paths.
func parseWhere(sel *Select, paths []string) (expr.Expr, error) {
	e, _, err := expr.ParseTokens(sel.Where)
	if err != nil {
		var se *expr.SyntaxError
		if errors.As(err, &se) {
			return nil, &SyntaxError{Pos: se.Pos, Msg: "in WHERE: " + se.Msg}
		}
		return nil, err
	}
	return expr.MapPredicates(e, func(p expr.Predicate) (expr.Predicate, error) {
		parts := strings.Split(p.Ref.Name, ".")
		pos := namePos(sel.Where, parts[0])
		path := make([]Ident, len(parts))
		for i, s := range parts {
			path[i] = Ident{Name: s, Pos: pos}
		}
		name, err := resolveColumn(path, paths, sel.Table, sel.TableAlias)
		if err != nil {
			return p, err
		}
		p.Ref.Name = name
		return p, nil
	})
}

// namePos is the offset of the first name token of where spelled name,
// for messages about the column it starts.
func namePos(where []expr.Token, name string) int {
	for _, t := range where {
		if (t.Kind == expr.TokWord || t.Kind == expr.TokQuoted) && t.Text == name {
			return t.Pos
		}
	}
	return where[0].Pos
}

// bindFilter parses the statement's filter, resolves its column names and
// binds params, the values of its placeholders, returning the filter as
// the command carries it: in the filter grammar, as the expression prints,
// which the planner reads back as the same expression.
func bindFilter(sel *Select, paths []string, params []string) (string, error) {
	if len(params) != len(sel.Params) {
		return "", fmt.Errorf("%w: the statement has %d placeholders and %d parameters were bound", errBadParams, len(sel.Params), len(params))
	}
	e, err := parseWhere(sel, paths)
	if err != nil {
		return "", err
	}
	if len(params) == 0 {
		return e.String(), nil
	}
	values := make([]any, len(params))
	for i, lit := range params {
		v, err := expr.ParseValue(lit)
		if err != nil {
			var se *expr.SyntaxError
			if errors.As(err, &se) {
				err = errors.New(se.Msg)
			}
			return "", fmt.Errorf("%w: parameter %d (position %d): %v", errBadParams, i+1, sel.Params[i]+1, err)
		}
		values[i] = v
	}
	e, err = expr.BindParams(e, values)
	if err != nil {
		var pe *expr.ParamError
		if errors.As(err, &pe) {
			return "", fmt.Errorf("%w: %v (position %d)", errBadParams, pe, pe.Pos+1)
		}
		return "", fmt.Errorf("%w: %v", errBadParams, err)
	}
	return e.String(), nil
}

// parameterSchema types each ? by the column it is compared with in
// schema. A placeholder it cannot type is a string.
func parameterSchema(sel *Select, schema *arrow.Schema) (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(sel.Params))
	for i := range fields {
		fields[i] = arrow.Field{Name: "parameter_" + strconv.Itoa(i+1), Type: arrow.BinaryTypes.String, Nullable: true}
	}
	if len(sel.Params) == 0 {
		return arrow.NewSchema(fields, nil), nil
	}
	e, err := parseWhere(sel, columnPaths(schema))
	if err != nil {
		return nil, sqlError(err)
	}
	expr.Walk(e, func(p expr.Predicate) {
		for _, v := range p.Values {
			pm, ok := v.(expr.Param)
			if !ok || pm.N < 1 || pm.N > len(fields) {
				continue
			}
			if t, ok := fieldType(schema, p.Ref.Name); ok {
				fields[pm.N-1].Type = t
			}
		}
	})
	return arrow.NewSchema(fields, nil), nil
}

// parameterLiteral writes row i of col as a literal of the filter grammar.
func parameterLiteral(col arrow.Array, i int) (string, error) {
	if col.IsNull(i) {
		return literal(nil)
	}
	switch a := col.(type) {
	case *array.Boolean:
		return literal(a.Value(i))
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64:
		return col.ValueStr(i), nil
	case *array.Float32:
		return literal(float64(a.Value(i)))
	case *array.Float64:
		return literal(a.Value(i))
	case *array.String:
		return literal(a.Value(i))
	case *array.LargeString:
		return literal(a.Value(i))
	case *array.StringView:
		return literal(a.Value(i))
	case *array.Binary:
		return literal(a.Value(i))
	case *array.LargeBinary:
		return literal(a.Value(i))
	case *array.Decimal128, *array.Decimal256:
		return literal(decimalLiteral(col.ValueStr(i)))
	case *array.Date32:
		return literal(typedLiteral{"DATE", a.Value(i).FormattedString()})
	case *array.Date64:
		return literal(typedLiteral{"DATE", a.Value(i).FormattedString()})
	case *array.Timestamp:
		dt := a.DataType().(*arrow.TimestampType)
		t := a.Value(i).ToTime(dt.Unit)
		if dt.TimeZone != "" {
			return literal(typedLiteral{"TIMESTAMPTZ", t.UTC().Format("2006-01-02T15:04:05.999999999+00:00")})
		}
		return literal(typedLiteral{"TIMESTAMP", t.Format("2006-01-02T15:04:05.999999999")})
	}
	return "", fmt.Errorf("a parameter of type %s is not supported", col.DataType())
}

// literal writes a parameter value in the filter grammar.
func literal(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", errors.New("NULL is not a value to compare with; write IS NULL in the statement")
	case bool:
		if v {
			return "TRUE", nil
		}
		return "FALSE", nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case uint64:
		return strconv.FormatUint(v, 10), nil
	case float64:
		switch {
		case math.IsNaN(v):
			return "NaN", nil
		case math.IsInf(v, 1):
			return "Infinity", nil
		case math.IsInf(v, -1):
			return "-Infinity", nil
		}
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'", nil
	case []byte:
		return fmt.Sprintf("X'%x'", v), nil
	case typedLiteral:
		return v.kind + " '" + v.text + "'", nil
	case decimalLiteral:
		return string(v), nil
	}
	return "", fmt.Errorf("a %T parameter is not supported", v)
}

// typedLiteral is a DATE, TIME or TIMESTAMP[TZ] parameter.
type typedLiteral struct{ kind, text string }

// decimalLiteral is a decimal parameter's exact text.
type decimalLiteral string
