package expr

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// reserved words cannot be bare column names; quote such columns ("in").
var reserved = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IN": true, "IS": true, "NULL": true,
	"LIKE": true, "TRUE": true, "FALSE": true,
}

func isReserved(word string) bool { return reserved[strings.ToUpper(word)] }

// Parse reads a filter in the SQL-like syntax described in the package
// documentation and returns it unbound. Errors are *SyntaxError; a filter
// nesting parentheses and NOTs more than MaxDepth deep is refused, with an
// error that also matches ErrTooDeep, as soon as the parser reaches that
// depth. Chains of AND or OR are read into flat AndExpr and OrExpr.
func Parse(s string) (Expr, error) {
	p := &parser{src: &lexer{s: s}}
	return p.parse()
}

// parse reads the whole filter.
func (p *parser) parse() (Expr, error) {
	if t := p.peek(); t.Kind == TokEOF && p.err == nil {
		return nil, &SyntaxError{Pos: 0, Msg: "empty filter"}
	}
	e, err := p.parseOr()
	if p.err != nil {
		// A Token the lexer could not read is the first thing wrong.
		return nil, p.err
	}
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.Kind != TokEOF {
		return nil, &SyntaxError{Pos: t.Pos, Msg: fmt.Sprintf("unexpected %s (expected AND, OR or end of filter)", t.describe())}
	}
	return e, nil
}

// tokenSource hands the parser its tokens: a lexer reading a filter, or
// the tokens of a statement's WHERE clause (see ParseTokens).
type tokenSource interface {
	next() (Token, error)
}

// parser reads tokens from src with a lookahead of a few tokens.
type parser struct {
	src   tokenSource
	ahead []Token
	// err is the first token the parser could not take: one the lexer
	// could not read, or one outside the syntax; from then on the parser
	// sees TokEOF there, and Parse returns err.
	err   error
	depth int
	// params allows ? placeholders; nparams counts those read.
	params  bool
	nparams int
}

// fill reads tokens until n are ahead.
func (p *parser) fill(n int) {
	for len(p.ahead) < n {
		if p.err != nil {
			p.ahead = append(p.ahead, Token{Kind: TokEOF})
			continue
		}
		t, err := p.src.next()
		if err == nil {
			err = t.unexpected(p.params)
		}
		if err != nil {
			p.err = err
			continue
		}
		p.ahead = append(p.ahead, t)
	}
}

func (p *parser) peek() Token { return p.peekN(0) }

func (p *parser) peekN(n int) Token {
	p.fill(n + 1)
	return p.ahead[n]
}

func (p *parser) next() Token {
	t := p.peek()
	if t.Kind != TokEOF {
		p.ahead = p.ahead[:copy(p.ahead, p.ahead[1:])]
	}
	return t
}

// enter counts one more level of parentheses or NOT at t, refusing more
// than MaxDepth; leave counts one less.
func (p *parser) enter(t Token) error {
	if p.depth >= MaxDepth {
		return &SyntaxError{Pos: t.Pos, Msg: fmt.Sprintf("more than %d levels of parentheses and NOT", MaxDepth), err: ErrTooDeep}
	}
	p.depth++
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) errorf(t Token, format string, args ...any) error {
	return &SyntaxError{Pos: t.Pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) expectWord(kw, context string) error {
	if t := p.peek(); !t.is(kw) {
		return p.errorf(t, "expected %s %s, found %s", kw, context, t.describe())
	}
	p.next()
	return nil
}

// parseOr reads terms joined by OR into one flat OrExpr, in a loop: a
// long chain costs no stack.
func (p *parser) parseOr() (Expr, error) {
	first, err := p.parseAnd()
	if err != nil || !p.peek().is("OR") {
		return first, err
	}
	terms := []Expr{first}
	for p.peek().is("OR") {
		p.next()
		t, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return OrExpr{Terms: terms}, nil
}

// parseAnd reads terms joined by AND into one flat AndExpr.
func (p *parser) parseAnd() (Expr, error) {
	first, err := p.parseNot()
	if err != nil || !p.peek().is("AND") {
		return first, err
	}
	terms := []Expr{first}
	for p.peek().is("AND") {
		p.next()
		t, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return AndExpr{Terms: terms}, nil
}

func (p *parser) parseNot() (Expr, error) {
	if t := p.peek(); t.is("NOT") {
		if err := p.enter(t); err != nil {
			return nil, err
		}
		defer p.leave()
		p.next()
		child, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return NotExpr{Child: child}, nil
	}
	return p.parsePrimary()
}

func (p *parser) parsePrimary() (Expr, error) {
	t := p.peek()
	switch {
	case t.Kind == TokLParen:
		if err := p.enter(t); err != nil {
			return nil, err
		}
		defer p.leave()
		p.next()
		e, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if c := p.peek(); c.Kind != TokRParen {
			return nil, p.errorf(c, "expected ')' to close '(' at byte %d, found %s", t.Pos, c.describe())
		}
		p.next()
		return e, nil
	case t.is("TRUE") && !p.startsComparison(1):
		p.next()
		return TrueExpr{}, nil
	case t.is("FALSE") && !p.startsComparison(1):
		p.next()
		return FalseExpr{}, nil
	case t.Kind == TokEOF:
		return nil, p.errorf(t, "expected a predicate, found end of filter")
	}
	if p.startsLiteral() {
		return p.parseFlipped()
	}
	return p.parsePredicate()
}

func (p *parser) startsComparison(n int) bool { return p.peekN(n).Kind == TokOp }

// startsLiteral reports whether the next tokens are a literal rather than a
// column, for comparisons written value-first ("5 < x").
func (p *parser) startsLiteral() bool {
	t := p.peek()
	switch t.Kind {
	case TokNumber, TokString, TokMinus, TokHex, TokParam:
		return true
	case TokWord:
		if t.is("TRUE") || t.is("FALSE") {
			return true
		}
		return isTypeKeyword(t) && p.peekN(1).Kind == TokString
	}
	return false
}

func isTypeKeyword(t Token) bool {
	return t.is("DATE") || t.is("TIME") || t.is("TIMESTAMP") || t.is("TIMESTAMPTZ")
}

// parseFlipped reads "literal op column" as "column flipped-op literal".
func (p *parser) parseFlipped() (Expr, error) {
	v, err := p.parseValue()
	if err != nil {
		return nil, err
	}
	opTok := p.next()
	if opTok.Kind != TokOp {
		return nil, p.errorf(opTok, "expected a comparison after the literal, found %s", opTok.describe())
	}
	ref, err := p.parseRef()
	if err != nil {
		return nil, err
	}
	return Predicate{Op: comparisonOp(opTok.Text).flip(), Ref: ref, Values: []any{v}}, nil
}

func comparisonOp(s string) Op {
	switch s {
	case "=":
		return OpEq
	case "!=", "<>":
		return OpNotEq
	case "<":
		return OpLt
	case "<=":
		return OpLtEq
	case ">":
		return OpGt
	}
	return OpGtEq
}

// parseRef reads a column: bare or "quoted" names joined by dots.
func (p *parser) parseRef() (Ref, error) {
	var parts []string
	for {
		t := p.next()
		switch {
		case t.Kind == TokQuoted:
			parts = append(parts, t.Text)
		case t.Kind == TokWord && !isReserved(t.Text):
			parts = append(parts, t.Text)
		case t.Kind == TokWord:
			return Ref{}, p.errorf(t, "expected a column, found keyword %s (quote it as \"%s\" to use it as a name)", strings.ToUpper(t.Text), clip(t.Text))
		case t.Kind == TokParam:
			return Ref{}, p.errorf(t, "expected a column, found parameter ? (a parameter stands for a value, not a column)")
		default:
			return Ref{}, p.errorf(t, "expected a column, found %s", t.describe())
		}
		if p.peek().Kind != TokDot {
			return Ref{Name: strings.Join(parts, ".")}, nil
		}
		p.next()
	}
}

func (p *parser) parsePredicate() (Expr, error) {
	ref, err := p.parseRef()
	if err != nil {
		return nil, err
	}
	t := p.next()
	switch {
	case t.Kind == TokOp:
		v, err := p.parseValue()
		if err != nil {
			return nil, err
		}
		return Predicate{Op: comparisonOp(t.Text), Ref: ref, Values: []any{v}}, nil
	case t.is("IS"):
		negated := false
		if p.peek().is("NOT") {
			p.next()
			negated = true
		}
		switch k := p.next(); {
		case k.is("NULL"):
			return Predicate{Op: pick(negated, OpNotNull, OpIsNull), Ref: ref}, nil
		case k.is("NAN"):
			return Predicate{Op: pick(negated, OpNotNaN, OpIsNaN), Ref: ref}, nil
		default:
			return nil, p.errorf(k, "expected NULL or NAN after IS, found %s", k.describe())
		}
	case t.is("NOT"):
		k := p.next()
		switch {
		case k.is("IN"):
			return p.parseIn(OpNotIn, ref)
		case k.is("LIKE"):
			return p.parseLike(true, ref)
		case k.is("STARTS"):
			return p.parseStartsWith(OpNotStartsWith, ref)
		}
		return nil, p.errorf(k, "expected IN, LIKE or STARTS WITH after NOT, found %s", k.describe())
	case t.is("IN"):
		return p.parseIn(OpIn, ref)
	case t.is("LIKE"):
		return p.parseLike(false, ref)
	case t.is("STARTS"):
		return p.parseStartsWith(OpStartsWith, ref)
	}
	return nil, p.errorf(t, "expected an operator after column %s (=, !=, <, <=, >, >=, IN, IS, LIKE, STARTS WITH), found %s", clip(ref.Name), t.describe())
}

func pick(cond bool, yes, no Op) Op {
	if cond {
		return yes
	}
	return no
}

func (p *parser) parseIn(op Op, ref Ref) (Expr, error) {
	if t := p.next(); t.Kind != TokLParen {
		return nil, p.errorf(t, "expected '(' after IN, found %s", t.describe())
	}
	if t := p.peek(); t.Kind == TokRParen {
		return nil, p.errorf(t, "IN needs at least one value")
	}
	var vals []any
	for {
		v, err := p.parseValue()
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		t := p.next()
		if t.Kind == TokRParen {
			return Predicate{Op: op, Ref: ref, Values: vals}, nil
		}
		if t.Kind != TokComma {
			return nil, p.errorf(t, "expected ',' or ')' in the IN list, found %s", t.describe())
		}
	}
}

func (p *parser) parseStartsWith(op Op, ref Ref) (Expr, error) {
	if err := p.expectWord("WITH", "after STARTS"); err != nil {
		return nil, err
	}
	t := p.next()
	if t.Kind == TokParam {
		return Predicate{Op: op, Ref: ref, Values: []any{p.param(t, formPrefix)}}, nil
	}
	if t.Kind != TokString {
		return nil, p.errorf(t, "expected a string after STARTS WITH, found %s", t.describe())
	}
	return Predicate{Op: op, Ref: ref, Values: []any{t.Text}}, nil
}

// parseLike accepts the LIKE patterns that are prefixes: literal text and
// one trailing %, with \%, \_ and \\ as escapes. A pattern without
// wildcards is an equality.
func (p *parser) parseLike(negated bool, ref Ref) (Expr, error) {
	t := p.next()
	if t.Kind == TokParam {
		// The pattern decides between STARTS WITH and =, so the
		// predicate takes its operation when the parameter is bound.
		return Predicate{Op: pick(negated, OpNotStartsWith, OpStartsWith), Ref: ref, Values: []any{p.param(t, formPattern)}}, nil
	}
	if t.Kind != TokString {
		return nil, p.errorf(t, "expected a pattern string after LIKE, found %s", t.describe())
	}
	pred, msg := likePredicate(negated, ref, t.Text)
	if msg != "" {
		return nil, p.errorf(t, "%s", msg)
	}
	return pred, nil
}

// likePredicate is the predicate "ref [NOT] LIKE pattern", or a message
// saying why the pattern is not one the syntax supports.
func likePredicate(negated bool, ref Ref, pat string) (Predicate, string) {
	var prefix strings.Builder
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '\\':
			if i+1 == len(pat) || !strings.ContainsRune(`%_\`, rune(pat[i+1])) {
				return Predicate{}, `LIKE escape \ must precede %, _ or \`
			}
			prefix.WriteByte(pat[i+1])
			i++
		case '%':
			if i != len(pat)-1 {
				return Predicate{}, "LIKE supports only prefix patterns ending in a single % ('abc%')"
			}
			return Predicate{Op: pick(negated, OpNotStartsWith, OpStartsWith), Ref: ref, Values: []any{prefix.String()}}, ""
		case '_':
			return Predicate{}, "LIKE supports only prefix patterns; _ is not supported (escape it as \\_)"
		default:
			prefix.WriteByte(c)
		}
	}
	return Predicate{Op: pick(negated, OpNotEq, OpEq), Ref: ref, Values: []any{prefix.String()}}, ""
}

// parseValue reads one literal.
func (p *parser) parseValue() (any, error) {
	t := p.next()
	switch t.Kind {
	case TokMinus:
		n := p.next()
		switch {
		case n.Kind == TokNumber:
			return numberLiteral("-" + n.Text), nil
		case n.is("INFINITY"):
			return math.Inf(-1), nil
		}
		return nil, p.errorf(n, "expected a number after '-', found %s", n.describe())
	case TokNumber:
		return numberLiteral(t.Text), nil
	case TokParam:
		return p.param(t, formValue), nil
	case TokString:
		return t.Text, nil
	case TokHex:
		b, err := hex.DecodeString(t.Text)
		if err != nil {
			return nil, p.errorf(t, "invalid hex in binary literal X'%s'", clip(t.Text))
		}
		return Typed{Type: iceberg.BinaryType{}, Value: b}, nil
	case TokWord:
		switch {
		case t.is("TRUE"):
			return true, nil
		case t.is("FALSE"):
			return false, nil
		case t.is("NAN"):
			return math.NaN(), nil
		case t.is("INFINITY"):
			return math.Inf(1), nil
		case t.is("NULL"):
			return nil, p.errorf(t, "NULL is not a value; use IS NULL or IS NOT NULL")
		case isTypeKeyword(t) && p.peek().Kind == TokString:
			return p.parseTyped(t, p.next())
		case isTypeKeyword(t) && p.peek().Kind == TokParam:
			return nil, p.errorf(p.peek(), "a parameter stands for a whole value: bind a %s value to ? instead of writing %s ?",
				strings.ToLower(t.Text), strings.ToUpper(t.Text))
		}
		// A bare word here is most often a string literal left unquoted
		// (vendor = NYC), so the message shows the quoted form first.
		return nil, p.errorf(t, "expected a literal value, found %s (string literals take single quotes: %s; comparing two columns is not supported)",
			t.describe(), stringLiteral(clip(t.Text)))
	case TokQuoted:
		// Double quotes name a column, as in SQL; a string needs single ones.
		return nil, p.errorf(t, "expected a literal value, found %s (double quotes name a column; string literals take single quotes: %s)",
			t.describe(), stringLiteral(clip(t.Text)))
	}
	return nil, p.errorf(t, "expected a literal value, found %s", t.describe())
}

// stringLiteral writes s as a filter string literal, doubling its quotes.
func stringLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// numberLiteral keeps integers that fit an int64 as int64 and everything
// else as exact Number text.
func numberLiteral(text string) any {
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return i
	}
	return Number(text)
}

// parseTyped reads DATE, TIME, TIMESTAMP and TIMESTAMPTZ literals. TIMESTAMP
// with more than six fractional digits is a nanosecond timestamp.
func (p *parser) parseTyped(kw, str Token) (any, error) {
	bad := func(err error) (any, error) {
		return nil, p.errorf(str, "invalid %s literal: %v", strings.ToUpper(kw.Text), err)
	}
	switch {
	case kw.is("TIME"):
		ns, err := parseTimeOfDay(str.Text)
		if err != nil {
			return bad(err)
		}
		if ns%1000 != 0 {
			return bad(fmt.Errorf("time has microsecond precision"))
		}
		return Typed{Type: iceberg.TimeType{}, Value: ns / 1000}, nil
	case kw.is("DATE"):
		in, err := parseDateTime(str.Text)
		if err != nil {
			return bad(err)
		}
		d, exact := in.days()
		if !exact || strings.ContainsAny(str.Text, ":") {
			return bad(fmt.Errorf("%q has a time of day", clip(str.Text)))
		}
		return Typed{Type: iceberg.DateType{}, Value: int32(d)}, nil
	}
	in, err := parseDateTime(str.Text)
	if err != nil {
		return bad(err)
	}
	zoned := kw.is("TIMESTAMPTZ")
	if in.hasZone && !zoned {
		return bad(fmt.Errorf("TIMESTAMP has no zone; write TIMESTAMPTZ '%s'", clip(str.Text)))
	}
	if in.nsec%1000 != 0 {
		ns, rng := in.nanos()
		if rng != 0 {
			return bad(fmt.Errorf("nanosecond timestamps must lie between 1677 and 2262"))
		}
		if zoned {
			return Typed{Type: iceberg.TimestampTzNsType{}, Value: ns}, nil
		}
		return Typed{Type: iceberg.TimestampNsType{}, Value: ns}, nil
	}
	us, _ := in.micros()
	if zoned {
		return Typed{Type: iceberg.TimestampTzType{}, Value: us}, nil
	}
	return Typed{Type: iceberg.TimestampType{}, Value: us}, nil
}
