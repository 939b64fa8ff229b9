package flightsql

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/iceberg/expr"
)

// Select is one parsed statement of the SQL subset Flight SQL clients may
// send: a projection of one table, optionally at a version or time, with a
// filter and a row limit.
type Select struct {
	// Star is SELECT *.
	Star bool
	// Count is SELECT COUNT(*); CountAlias names its column.
	Count      bool
	CountAlias string
	// Columns are the selected columns, in order, when neither Star nor
	// Count.
	Columns []Column
	// Table is the table's name, part by part.
	Table []Ident
	// TableAlias is the name the table may be referred to by in columns.
	TableAlias *Ident
	// Version is FOR VERSION AS OF / FOR SYSTEM_VERSION AS OF: a snapshot
	// id (VersionID) or a branch or tag (VersionRef).
	VersionID  *int64
	VersionRef string
	// AsOf is the text of FOR SYSTEM_TIME AS OF / FOR TIMESTAMP AS OF.
	AsOf string
	// Where is the filter's tokens, in the filter grammar, read when the
	// statement is bound (see parseWhere); nil without WHERE.
	Where []expr.Token
	// Params are the byte offsets of the ? placeholders in Where.
	Params []int
	// Limit is LIMIT n.
	Limit *int64
	// Changes is FROM table_changes('table', from [, to]): the table's
	// changes after from up to to, instead of its rows.
	Changes *ChangeBounds
}

// ChangeBounds are the bounds of table_changes: each a snapshot id or the
// text of a timestamp; a nil end is the current snapshot.
type ChangeBounds struct {
	FromID, ToID     *int64
	FromTime, ToTime string
}

// Column is one selected column: a name, possibly qualified by the table
// (t.col) or naming a nested field (s.inner), and an alias.
type Column struct {
	Path  []Ident
	Alias *Ident
	Pos   int
}

// Ident is one identifier: quoted ones match exactly, bare ones ignoring
// case where that is unambiguous.
type Ident struct {
	Name   string
	Quoted bool
	Pos    int
}

func (id Ident) String() string {
	if id.Quoted {
		return `"` + strings.ReplaceAll(id.Name, `"`, `""`) + `"`
	}
	return id.Name
}

// SyntaxError is a statement the parser cannot read, with the byte offset
// where it went wrong.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("SQL syntax error at position %d: %s", e.Pos+1, e.Msg)
}

// UnsupportedError is a statement that is valid SQL but outside the subset.
type UnsupportedError struct {
	Pos       int
	Construct string
}

// Supported says what the subset is, for the error messages.
const Supported = `supported: SELECT <*, columns [AS alias], or COUNT(*)> FROM [catalog.]namespace.table ` +
	`(or table$files ..., or table_changes('namespace.table', <from snapshot id or 'timestamp'> [, <to>])) ` +
	`[FOR SYSTEM_VERSION AS OF <snapshot id> | FOR VERSION AS OF <snapshot id or 'branch'> | FOR SYSTEM_TIME AS OF '<timestamp>'] ` +
	`[WHERE <filter>] [LIMIT n]`

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s is not supported (position %d); %s", e.Construct, e.Pos+1, Supported)
}

// sqlSyntax is a lexer's error as a statement's SyntaxError.
func sqlSyntax(err error) error {
	var se *expr.SyntaxError
	if errors.As(err, &se) {
		return &SyntaxError{Pos: se.Pos, Msg: se.Msg}
	}
	return err
}

// token is a lexeme of a statement, read by package expr's lexer (one
// lexer for the statement and the filter in its WHERE clause).
type token = expr.Token

// describe names t in a message.
func describe(t token) string {
	switch t.Kind {
	case expr.TokEOF:
		return "end of statement"
	case expr.TokString:
		return "string '" + t.Text + "'"
	case expr.TokQuoted:
		return `"` + t.Text + `"`
	case expr.TokHex:
		return "binary literal X'" + t.Text + "'"
	}
	return strconv.Quote(t.Text)
}

// is reports whether t is the keyword word, ignoring case.
func is(t token, word string) bool { return t.Kind == expr.TokWord && strings.EqualFold(t.Text, word) }

// isPunct reports whether t is the punctuation s, such as "," or "*".
func isPunct(t token, s string) bool {
	switch t.Kind {
	case expr.TokEOF, expr.TokWord, expr.TokQuoted, expr.TokString, expr.TokHex, expr.TokNumber:
		return false
	}
	return t.Text == s
}

// clauses that end a WHERE, and the constructs outside the subset that a
// statement may try, named in the refusal.
var unsupportedClauses = map[string]string{
	"GROUP": "GROUP BY", "ORDER": "ORDER BY", "HAVING": "HAVING", "JOIN": "JOIN", "UNION": "UNION",
	"OFFSET": "OFFSET", "WINDOW": "WINDOW", "INTERSECT": "INTERSECT", "EXCEPT": "EXCEPT",
	"INNER": "JOIN", "LEFT": "JOIN", "RIGHT": "JOIN", "FULL": "JOIN", "CROSS": "JOIN", "NATURAL": "JOIN",
	"QUALIFY": "QUALIFY", "FETCH": "FETCH",
}

// Parse reads one statement of the subset (Supported). Errors are
// *SyntaxError or *UnsupportedError.
func Parse(sql string) (*Select, error) {
	toks, err := expr.LexSQL(sql)
	if err != nil {
		return nil, sqlSyntax(err)
	}
	if err := firstUnsupported(toks); err != nil {
		return nil, err
	}
	p := &parser{sql: sql, toks: toks}
	first := p.peek()
	switch {
	case first.Kind == expr.TokEOF:
		return nil, &SyntaxError{Pos: 0, Msg: "empty statement"}
	case is(first, "WITH"):
		return nil, &UnsupportedError{Pos: first.Pos, Construct: "WITH (common table expressions)"}
	case !is(first, "SELECT"):
		if first.Kind == expr.TokWord {
			return nil, &UnsupportedError{Pos: first.Pos, Construct: strings.ToUpper(first.Text) + " statements"}
		}
		return nil, &SyntaxError{Pos: first.Pos, Msg: "expected SELECT, found " + describe(first)}
	}
	p.next()
	sel := &Select{}
	if err := p.selectList(sel); err != nil {
		return nil, err
	}
	if err := p.expectWord("FROM", "after the selected columns"); err != nil {
		return nil, err
	}
	if sel.Table, err = p.path("a table name"); err != nil {
		return nil, err
	}
	if len(sel.Table) == 1 && !sel.Table[0].Quoted && strings.EqualFold(sel.Table[0].Name, "table_changes") && isPunct(p.peek(), "(") {
		if err := p.tableChanges(sel); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); isPunct(t, ",") || isPunct(t, "(") {
		what := "more than one table (a comma join)"
		if t.Text == "(" {
			what = "table functions"
		}
		return nil, &UnsupportedError{Pos: t.Pos, Construct: what}
	}
	if sel.Changes != nil && !sel.Star && !sel.Count {
		return nil, &UnsupportedError{Pos: sel.Columns[0].Pos, Construct: "a select list with table_changes (SELECT * or COUNT(*); the JSON command's \"columns\" projects a change stream)"}
	}
	if t := p.peek(); is(t, "FOR") && sel.Changes != nil {
		return nil, &UnsupportedError{Pos: t.Pos, Construct: "FOR ... AS OF with table_changes (its arguments bound the range)"}
	}
	if t := p.peek(); is(t, "FOR") {
		if err := p.timeTravel(sel); err != nil {
			return nil, err
		}
	}
	if alias, ok, err := p.alias(); err != nil {
		return nil, err
	} else if ok {
		sel.TableAlias = &alias
	}
	if t := p.peek(); is(t, "FOR") && sel.VersionID == nil && sel.VersionRef == "" && sel.AsOf == "" {
		if err := p.timeTravel(sel); err != nil {
			return nil, err
		}
	}
	if is(p.peek(), "WHERE") {
		p.next()
		if err := p.where(sel); err != nil {
			return nil, err
		}
	}
	if is(p.peek(), "LIMIT") {
		p.next()
		t := p.next()
		n, err := strconv.ParseInt(t.Text, 10, 64)
		if t.Kind != expr.TokNumber || err != nil || n < 0 {
			return nil, &SyntaxError{Pos: t.Pos, Msg: "LIMIT takes a non-negative whole number, found " + describe(t)}
		}
		sel.Limit = &n
	}
	if t := p.peek(); isPunct(t, ";") {
		p.next()
	}
	if t := p.peek(); t.Kind != expr.TokEOF {
		return nil, p.unexpected(t, "the end of the statement")
	}
	return sel, nil
}

type parser struct {
	sql  string
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.Kind != expr.TokEOF {
		p.i++
	}
	return t
}

func (p *parser) expectWord(word, context string) error {
	if t := p.peek(); !is(t, word) {
		return p.unexpected(t, word+" "+context)
	}
	p.next()
	return nil
}

func (p *parser) expectPunct(s, context string) error {
	if t := p.peek(); !isPunct(t, s) {
		return p.unexpected(t, "'"+s+"' "+context)
	}
	p.next()
	return nil
}

// unexpected is the error for t where want was expected, naming the
// unsupported construct t starts when it starts one.
func (p *parser) unexpected(t token, want string) error {
	if t.Kind == expr.TokWord {
		if c, ok := unsupportedClauses[strings.ToUpper(t.Text)]; ok {
			return &UnsupportedError{Pos: t.Pos, Construct: c}
		}
	}
	return &SyntaxError{Pos: t.Pos, Msg: fmt.Sprintf("expected %s, found %s", want, describe(t))}
}

// keywords a bare identifier cannot be, so that "FROM t WHERE" does not
// read WHERE as the table's alias.
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "LIMIT": true, "FOR": true, "AS": true,
	"AND": true, "OR": true, "NOT": true, "ON": true, "USING": true, "DISTINCT": true, "ALL": true,
}

func isKeyword(t token) bool {
	if t.Kind != expr.TokWord {
		return false
	}
	u := strings.ToUpper(t.Text)
	_, clause := unsupportedClauses[u]
	return keywords[u] || clause
}

func (p *parser) ident(what string) (Ident, error) {
	t := p.peek()
	switch {
	case t.Kind == expr.TokQuoted:
		if t.Text == "" {
			return Ident{}, &SyntaxError{Pos: t.Pos, Msg: "empty quoted identifier"}
		}
		p.next()
		return Ident{Name: t.Text, Quoted: true, Pos: t.Pos}, nil
	case t.Kind == expr.TokWord && !isKeyword(t):
		p.next()
		return Ident{Name: t.Text, Pos: t.Pos}, nil
	}
	return Ident{}, p.unexpected(t, what)
}

// path reads ident ('.' ident)*.
func (p *parser) path(what string) ([]Ident, error) {
	id, err := p.ident(what)
	if err != nil {
		return nil, err
	}
	out := []Ident{id}
	for {
		if t := p.peek(); !isPunct(t, ".") {
			return out, nil
		}
		p.next()
		id, err := p.ident("a name after '.'")
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
}

// alias reads [AS] ident.
func (p *parser) alias() (Ident, bool, error) {
	if is(p.peek(), "AS") {
		p.next()
		id, err := p.ident("an alias after AS")
		return id, err == nil, err
	}
	if t := p.peek(); (t.Kind == expr.TokWord && !isKeyword(t)) || t.Kind == expr.TokQuoted {
		id, err := p.ident("an alias")
		return id, err == nil, err
	}
	return Ident{}, false, nil
}

func (p *parser) selectList(sel *Select) error {
	if t := p.peek(); is(t, "DISTINCT") {
		return &UnsupportedError{Pos: t.Pos, Construct: "SELECT DISTINCT"}
	}
	if t := p.peek(); is(t, "ALL") {
		p.next()
	}
	if t := p.peek(); isPunct(t, "*") {
		p.next()
		sel.Star = true
		if t := p.peek(); isPunct(t, ",") {
			return &UnsupportedError{Pos: t.Pos, Construct: "* with other columns"}
		}
		return nil
	}
	if t := p.peek(); is(t, "COUNT") && isPunct(p.toks[p.i+1], "(") {
		p.next()
		p.next()
		if t := p.peek(); !isPunct(t, "*") {
			if t.Kind == expr.TokNumber && t.Text == "1" {
				p.next()
			} else {
				return &UnsupportedError{Pos: t.Pos, Construct: "COUNT of an expression (only COUNT(*))"}
			}
		} else {
			p.next()
		}
		if err := p.expectPunct(")", "closing COUNT(*"); err != nil {
			return err
		}
		sel.Count = true
		sel.CountAlias = "count(*)"
		if alias, ok, err := p.alias(); err != nil {
			return err
		} else if ok {
			sel.CountAlias = alias.Name
		}
		if t := p.peek(); isPunct(t, ",") {
			return &UnsupportedError{Pos: t.Pos, Construct: "COUNT(*) with other columns (GROUP BY)"}
		}
		return nil
	}
	for {
		t := p.peek()
		path, err := p.path("a column name, * or COUNT(*)")
		if err != nil {
			return err
		}
		if n := p.peek(); isPunct(n, "(") {
			return &UnsupportedError{Pos: t.Pos, Construct: "function " + strings.ToUpper(t.Text) + "()"}
		}
		if n := p.peek(); isPunct(n, ".") {
			return &UnsupportedError{Pos: n.Pos, Construct: "table.* and other wildcards"}
		}
		if n := p.peek(); len(n.Text) == 1 && strings.Contains("+-*/|%", n.Text) && isPunct(n, n.Text) {
			return &UnsupportedError{Pos: n.Pos, Construct: "expressions in the select list (only column names and aliases)"}
		}
		col := Column{Path: path, Pos: t.Pos}
		if alias, ok, err := p.alias(); err != nil {
			return err
		} else if ok {
			col.Alias = &alias
		}
		sel.Columns = append(sel.Columns, col)
		if n := p.peek(); !isPunct(n, ",") {
			return nil
		}
		p.next()
	}
}

// timeTravel reads FOR ... AS OF ...
// tableChanges reads the arguments of table_changes after its name: the
// table's name as a string, the exclusive start and the optional end, each
// a snapshot id or a timestamp string.
func (p *parser) tableChanges(sel *Select) error {
	p.next() // (
	name := p.next()
	if name.Kind != expr.TokString {
		return &SyntaxError{Pos: name.Pos, Msg: "table_changes takes the table's name as a string first, such as 'db.t', found " + describe(name)}
	}
	sel.Table = nil
	for i, part := range strings.Split(name.Text, ".") {
		if part == "" {
			return &SyntaxError{Pos: name.Pos, Msg: "table_changes: " + strconv.Quote(name.Text) + " is no table name"}
		}
		sel.Table = append(sel.Table, Ident{Name: part, Pos: name.Pos + i})
	}
	sel.Changes = &ChangeBounds{}
	bound := func(id **int64, ts *string, what string) error {
		t := p.next()
		switch t.Kind {
		case expr.TokNumber:
			n, err := strconv.ParseInt(t.Text, 10, 64)
			if err != nil {
				return &SyntaxError{Pos: t.Pos, Msg: "table_changes: a snapshot id is a whole number, found " + describe(t)}
			}
			*id = &n
			return nil
		case expr.TokString:
			*ts = t.Text
			return nil
		}
		return &SyntaxError{Pos: t.Pos, Msg: "table_changes: the " + what + " is a snapshot id or a timestamp string, found " + describe(t)}
	}
	if err := p.expectPunct(",", "after the table's name in table_changes"); err != nil {
		return err
	}
	if err := bound(&sel.Changes.FromID, &sel.Changes.FromTime, "start"); err != nil {
		return err
	}
	if isPunct(p.peek(), ",") {
		p.next()
		if err := bound(&sel.Changes.ToID, &sel.Changes.ToTime, "end"); err != nil {
			return err
		}
	}
	return p.expectPunct(")", "to close table_changes")
}

func (p *parser) timeTravel(sel *Select) error {
	p.next() // FOR
	kind := p.next()
	if !is(kind, "SYSTEM_VERSION") && !is(kind, "VERSION") && !is(kind, "SYSTEM_TIME") && !is(kind, "TIMESTAMP") {
		return &SyntaxError{Pos: kind.Pos, Msg: "expected SYSTEM_VERSION, VERSION, SYSTEM_TIME or TIMESTAMP after FOR, found " + describe(kind)}
	}
	if err := p.expectWord("AS", "in FOR "+strings.ToUpper(kind.Text)+" AS OF"); err != nil {
		return err
	}
	if err := p.expectWord("OF", "in FOR "+strings.ToUpper(kind.Text)+" AS OF"); err != nil {
		return err
	}
	if is(kind, "SYSTEM_TIME") || is(kind, "TIMESTAMP") {
		if is(p.peek(), "TIMESTAMP") {
			p.next()
		}
		t := p.next()
		if t.Kind != expr.TokString && t.Kind != expr.TokNumber {
			return &SyntaxError{Pos: t.Pos, Msg: "FOR SYSTEM_TIME AS OF takes a timestamp string such as '2024-05-01 12:00:00' (or Unix milliseconds), found " + describe(t)}
		}
		sel.AsOf = t.Text
		return nil
	}
	t := p.next()
	switch t.Kind {
	case expr.TokNumber:
		id, err := strconv.ParseInt(t.Text, 10, 64)
		if err != nil {
			return &SyntaxError{Pos: t.Pos, Msg: "a snapshot id is a whole number, found " + describe(t)}
		}
		sel.VersionID = &id
		return nil
	case expr.TokString, expr.TokQuoted:
		if is(kind, "SYSTEM_VERSION") {
			return &SyntaxError{Pos: t.Pos, Msg: "FOR SYSTEM_VERSION AS OF takes a snapshot id; use FOR VERSION AS OF 'branch' for a branch or tag"}
		}
		sel.VersionRef = t.Text
		return nil
	case expr.TokWord:
		sel.VersionRef = t.Text
		return nil
	}
	return &SyntaxError{Pos: t.Pos, Msg: "expected a snapshot id or a branch or tag name, found " + describe(t)}
}

// where takes the filter's tokens up to a top-level LIMIT, ';' or the
// end, for the filter grammar to read (see parseWhere).
func (p *parser) where(sel *Select) error {
	start := p.peek()
	if start.Kind == expr.TokEOF || is(start, "LIMIT") {
		return &SyntaxError{Pos: start.Pos, Msg: "expected a filter after WHERE"}
	}
	depth := 0
	from := p.i
	for {
		t := p.peek()
		if t.Kind == expr.TokEOF || depth == 0 && (is(t, "LIMIT") || isPunct(t, ";")) {
			break
		}
		if depth == 0 && t.Kind == expr.TokWord {
			if c, ok := unsupportedClauses[strings.ToUpper(t.Text)]; ok && c != "JOIN" {
				return &UnsupportedError{Pos: t.Pos, Construct: c}
			}
		}
		if t.Kind == expr.TokWord && (is(t, "SELECT") || is(t, "EXISTS")) {
			return &UnsupportedError{Pos: t.Pos, Construct: "subqueries"}
		}
		switch t.Kind {
		case expr.TokLParen:
			depth++
		case expr.TokRParen:
			depth--
		case expr.TokParam:
			sel.Params = append(sel.Params, t.Pos)
		}
		p.next()
	}
	sel.Where = p.toks[from:p.i]
	return nil
}

// firstUnsupported names the first clause of the statement that the
// subset lacks, so that "SELECT a, count(*) ... GROUP BY a" is refused for
// its GROUP BY rather than for the aggregate the GROUP BY explains.
func firstUnsupported(toks []token) error {
	for i, t := range toks {
		if t.Kind != expr.TokWord {
			continue
		}
		next := toks[min(i+1, len(toks)-1)]
		switch u := strings.ToUpper(t.Text); {
		case (u == "GROUP" || u == "ORDER" || u == "PARTITION") && is(next, "BY"):
			return &UnsupportedError{Pos: t.Pos, Construct: u + " BY"}
		case u == "JOIN" || u == "HAVING" || u == "UNION" || u == "INTERSECT" || u == "EXCEPT" || u == "OVER":
			return &UnsupportedError{Pos: t.Pos, Construct: u}
		}
	}
	return nil
}
