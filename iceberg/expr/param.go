package expr

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/iceflight/iceflight/iceberg"
)

// Param is a ? placeholder that ParseTokens read where a literal value
// may stand; BindParams puts a value in its place. Bind refuses a filter
// that still holds one.
type Param struct {
	// N is the parameter's number: the filter's Nth ?, from 1.
	N int
	// Pos is the byte offset of the ?.
	Pos int
	// form is what may stand in its place.
	form paramForm
}

// paramForm is what a parameter's value may be: any literal, the string
// of a STARTS WITH, or a LIKE pattern, which also decides the predicate's
// operation.
type paramForm int

const (
	formValue paramForm = iota
	formPrefix
	formPattern
)

// String returns "?".
func (Param) String() string { return "?" }

// param is the Param for the ? token t.
func (p *parser) param(t Token, form paramForm) Param {
	p.nparams++
	return Param{N: p.nparams, Pos: t.Pos, form: form}
}

// ParseTokens reads a filter from toks, the tokens of a statement's WHERE
// clause as LexSQL returns them, so that a SQL parser reads its filter
// from its own tokens. The filter ends after the last token; a TokEOF
// there may end toks. Each ? is a Param, numbered in order of appearance,
// and may stand wherever a literal value may (in a comparison, an IN list,
// after STARTS WITH or LIKE); a ? anywhere else, such as in place of a
// column, is a syntax error. It returns the filter and its number of
// parameters. Errors are *SyntaxError at offsets in the statement; without
// parameters the filter reads as Parse reads its text.
func ParseTokens(toks []Token) (Expr, int, error) {
	if n := len(toks); n > 0 && toks[n-1].Kind == TokEOF {
		toks = toks[:n-1]
	}
	if len(toks) == 0 {
		return nil, 0, &SyntaxError{Pos: 0, Msg: "empty filter"}
	}
	p := &parser{src: &tokenSlice{toks: toks, end: toks[len(toks)-1].End}, params: true}
	e, err := p.parse()
	if err != nil {
		return nil, 0, err
	}
	return e, p.nparams, nil
}

// tokenSlice hands out the tokens of a WHERE clause, then TokEOF at end.
type tokenSlice struct {
	toks []Token
	end  int
}

func (s *tokenSlice) next() (Token, error) {
	if len(s.toks) == 0 {
		return Token{Kind: TokEOF, Pos: s.end, End: s.end}, nil
	}
	t := s.toks[0]
	s.toks = s.toks[1:]
	return t, nil
}

// ParseValue reads one literal of the filter syntax (12, -1.5, 'text',
// TRUE, DATE '2024-01-02', X'00ff'), as Parse reads it in a comparison:
// a program that passes values as literals reads them back with it.
// Errors are *SyntaxError.
func ParseValue(s string) (any, error) {
	p := &parser{src: &lexer{s: s}}
	if p.peek().Kind == TokEOF && p.err == nil {
		return nil, &SyntaxError{Pos: 0, Msg: "empty value"}
	}
	v, err := p.parseValue()
	if err == nil && p.peek().Kind != TokEOF {
		t := p.peek()
		err = p.errorf(t, "unexpected %s after the value", t.describe())
	}
	if p.err != nil {
		return nil, p.err
	}
	return v, err
}

// BindParams returns e with each Param replaced by values[N-1], the
// parameters' values in order. A value is what Literal makes of a bool, a
// Go integer or float, a string, a []byte or a time.Time (a timestamptz),
// or a Number or Typed date, time, timestamp or binary value such as Parse
// reads; it is checked to be one the filter syntax can write, so that the
// result prints (String) as a filter that Parse reads back the same. A
// STARTS WITH parameter takes a string, and a LIKE one a pattern, which
// makes the predicate a STARTS WITH or an equality as the same pattern
// written in the filter would. A count of values other than the filter's
// parameters is an error; a value that cannot stand in its parameter's
// place is a *ParamError. Both match ErrInvalidFilter.
func BindParams(e Expr, values []any) (Expr, error) {
	n := 0
	Walk(e, func(p Predicate) {
		for _, v := range p.Values {
			if pm, ok := v.(Param); ok {
				n = max(n, pm.N)
			}
		}
	})
	switch {
	case n > len(values):
		return nil, invalidf("the filter has %d parameters and %d values were given: parameter %d has none", n, len(values), len(values)+1)
	case n < len(values):
		return nil, invalidf("the filter has %d parameters and %d values were given", n, len(values))
	}
	return MapPredicates(e, func(p Predicate) (Predicate, error) { return bindPredicateParams(p, values) })
}

// bindPredicateParams puts values in place of the parameters of p.
func bindPredicateParams(p Predicate, values []any) (Predicate, error) {
	var out []any // a copy of p.Values once a parameter is found
	for i, v := range p.Values {
		pm, ok := v.(Param)
		if !ok {
			continue
		}
		if pm.N < 1 || pm.N > len(values) {
			return p, &ParamError{N: pm.N, Pos: pm.Pos, Msg: fmt.Sprintf("no value among the %d given", len(values))}
		}
		val := values[pm.N-1]
		bad := func(format string, args ...any) (Predicate, error) {
			return p, &ParamError{N: pm.N, Pos: pm.Pos, Msg: fmt.Sprintf(format, args...)}
		}
		switch pm.form {
		case formPattern:
			s, ok := val.(string)
			if !ok {
				return bad("LIKE takes a pattern string, not %s", goType(val))
			}
			if !utf8.ValidString(s) {
				return bad("the pattern is not valid UTF-8")
			}
			like, msg := likePredicate(p.Op == OpNotStartsWith, p.Ref, s)
			if msg != "" {
				return bad("%s", msg)
			}
			return like, nil
		case formPrefix:
			s, ok := val.(string)
			if !ok {
				return bad("STARTS WITH takes a string, not %s", goType(val))
			}
			if !utf8.ValidString(s) {
				return bad("the string is not valid UTF-8")
			}
			val = s
		default:
			lit, msg := paramValue(val)
			if msg != "" {
				return bad("%s", msg)
			}
			val = lit
		}
		if out == nil {
			out = slices.Clone(p.Values)
		}
		out[i] = val
	}
	if out != nil {
		p.Values = out
	}
	return p, nil
}

// paramValue is the literal a parameter's value v stands for, or a
// message saying why v cannot stand for one.
func paramValue(v any) (any, string) {
	switch v := v.(type) {
	case nil:
		return nil, "NULL is not a value to compare with; test IS NULL instead"
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return Literal(v), ""
	case string:
		if !utf8.ValidString(v) {
			return nil, "the string is not valid UTF-8"
		}
		return v, ""
	case []byte:
		return Literal(v), ""
	case time.Time:
		if v.Nanosecond()%1000 != 0 && !time.Unix(0, v.UnixNano()).Equal(v) {
			return nil, "nanosecond timestamps must lie between 1677 and 2262"
		}
		return paramValue(Literal(v))
	case Number:
		if !isNumber(string(v)) {
			return nil, fmt.Sprintf("Number %q is not a number", clip(string(v)))
		}
		return v, ""
	case Typed:
		return typedParam(v)
	}
	return nil, fmt.Sprintf("a %s value is not supported", goType(v))
}

// typedParam checks a Typed value the way Parse would have read it: a
// date, time, timestamp or binary value, in years the syntax writes, and
// a nanosecond timestamp only with a fraction of a microsecond.
func typedParam(v Typed) (any, string) {
	ok := false
	switch v.Type.(type) {
	case iceberg.DateType:
		d, isInt := v.Value.(int32)
		ok = isInt && fourDigitYear(v.Type, int64(d))
	case iceberg.TimeType:
		us, isInt := v.Value.(int64)
		ok = isInt && us >= 0 && us < 86400*1_000_000
	case iceberg.TimestampType, iceberg.TimestampTzType:
		us, isInt := v.Value.(int64)
		ok = isInt && fourDigitYear(v.Type, us)
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		ns, isInt := v.Value.(int64)
		if isInt && ns%1000 == 0 {
			// TIMESTAMP '...' with whole microseconds is a microsecond
			// timestamp: the nanosecond one would print as that.
			return Typed{Type: microType(v.Type), Value: ns / 1000}, ""
		}
		ok = isInt
	case iceberg.BinaryType:
		b, isBytes := v.Value.([]byte)
		if isBytes {
			return Literal(b), ""
		}
	}
	if !ok {
		return nil, fmt.Sprintf("a %s value held as %s is not supported", v.Type, goType(v.Value))
	}
	return v, ""
}

func microType(t iceberg.Type) iceberg.Type {
	if _, ok := t.(iceberg.TimestampTzNsType); ok {
		return iceberg.TimestampTzType{}
	}
	return iceberg.TimestampType{}
}

// isNumber reports whether s is a number as the filter syntax writes one,
// with an optional minus sign.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && s[0] == '-' {
		i++
	}
	if i == len(s) || s[i] < '0' || s[i] > '9' {
		return false
	}
	end, err := lexNumber(s, i)
	return err == nil && end == len(s)
}

// goType names the Go type of a value for messages.
func goType(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprintf("%T", v)
}
