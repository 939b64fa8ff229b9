package flightsql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
	// Where is the filter's text, in the filter grammar; WherePos is its
	// byte offset in the statement (errors in it are reported there).
	Where    string
	WherePos int
	// Params are the byte offsets of the ? placeholders in Where.
	Params []int
	// Limit is LIMIT n.
	Limit *int64
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
	`[FOR SYSTEM_VERSION AS OF <snapshot id> | FOR VERSION AS OF <snapshot id or 'branch'> | FOR SYSTEM_TIME AS OF '<timestamp>'] ` +
	`[WHERE <filter>] [LIMIT n]`

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s is not supported (position %d); %s", e.Construct, e.Pos+1, Supported)
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokQuoted // "identifier" or `identifier`
	tokString // 'text'
	tokNumber
	tokPunct
)

type token struct {
	kind tokKind
	text string // for quoted and string tokens, the unescaped value
	pos  int
	end  int
}

func (t token) is(word string) bool { return t.kind == tokWord && strings.EqualFold(t.text, word) }

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of statement"
	case tokString:
		return "string '" + t.text + "'"
	case tokQuoted:
		return `"` + t.text + `"`
	}
	return strconv.Quote(t.text)
}

// lex splits a statement into tokens. Comments (-- to the end of the
// line, /* */) are dropped; their ranges are returned so that the filter
// text can blank them.
func lex(s string) (toks []token, comments [][2]int, err error) {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s) - i
			}
			comments = append(comments, [2]int{i, i + end})
			i += end
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, nil, &SyntaxError{Pos: i, Msg: "unterminated /* comment"}
			}
			comments = append(comments, [2]int{i, i + end + 4})
			i += end + 4
		case c == '\'' || c == '"' || c == '`':
			text, n, ok := quoted(s[i:], c)
			if !ok {
				return nil, nil, &SyntaxError{Pos: i, Msg: "unterminated " + map[byte]string{'\'': "string", '"': "quoted identifier", '`': "quoted identifier"}[c]}
			}
			kind := tokQuoted
			if c == '\'' {
				kind = tokString
			}
			toks = append(toks, token{kind: kind, text: text, pos: i, end: i + n})
			i += n
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (isDigit(s[j]) || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				(s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
			toks = append(toks, token{kind: tokNumber, text: s[i:j], pos: i, end: j})
			i = j
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == '_' || unicode.IsLetter(r) {
				j := i + n
				for j < len(s) {
					r, n := utf8.DecodeRuneInString(s[j:])
					if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
						break
					}
					j += n
				}
				toks = append(toks, token{kind: tokWord, text: s[i:j], pos: i, end: j})
				i = j
				continue
			}
			toks = append(toks, token{kind: tokPunct, text: s[i : i+n], pos: i, end: i + n})
			i += n
		}
	}
	toks = append(toks, token{kind: tokEOF, pos: len(s), end: len(s)})
	return toks, comments, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// quoted reads a token quoted by q, where a doubled q stands for itself,
// and returns its value and length.
func quoted(s string, q byte) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), i + 1, true
	}
	return "", 0, false
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
	toks, comments, err := lex(sql)
	if err != nil {
		return nil, err
	}
	if err := firstUnsupported(toks); err != nil {
		return nil, err
	}
	p := &parser{sql: sql, toks: toks}
	first := p.peek()
	switch {
	case first.kind == tokEOF:
		return nil, &SyntaxError{Pos: 0, Msg: "empty statement"}
	case first.is("WITH"):
		return nil, &UnsupportedError{Pos: first.pos, Construct: "WITH (common table expressions)"}
	case !first.is("SELECT"):
		if first.kind == tokWord {
			return nil, &UnsupportedError{Pos: first.pos, Construct: strings.ToUpper(first.text) + " statements"}
		}
		return nil, &SyntaxError{Pos: first.pos, Msg: "expected SELECT, found " + first.describe()}
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
	if t := p.peek(); t.kind == tokPunct && (t.text == "," || t.text == "(") {
		what := "more than one table (a comma join)"
		if t.text == "(" {
			what = "table functions"
		}
		return nil, &UnsupportedError{Pos: t.pos, Construct: what}
	}
	if t := p.peek(); t.is("FOR") {
		if err := p.timeTravel(sel); err != nil {
			return nil, err
		}
	}
	if alias, ok, err := p.alias(); err != nil {
		return nil, err
	} else if ok {
		sel.TableAlias = &alias
	}
	if t := p.peek(); t.is("FOR") && sel.VersionID == nil && sel.VersionRef == "" && sel.AsOf == "" {
		if err := p.timeTravel(sel); err != nil {
			return nil, err
		}
	}
	if p.peek().is("WHERE") {
		p.next()
		if err := p.where(sel, comments); err != nil {
			return nil, err
		}
	}
	if p.peek().is("LIMIT") {
		p.next()
		t := p.next()
		n, err := strconv.ParseInt(t.text, 10, 64)
		if t.kind != tokNumber || err != nil || n < 0 {
			return nil, &SyntaxError{Pos: t.pos, Msg: "LIMIT takes a non-negative whole number, found " + t.describe()}
		}
		sel.Limit = &n
	}
	if t := p.peek(); t.kind == tokPunct && t.text == ";" {
		p.next()
	}
	if t := p.peek(); t.kind != tokEOF {
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
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) expectWord(word, context string) error {
	if t := p.peek(); !t.is(word) {
		return p.unexpected(t, word+" "+context)
	}
	p.next()
	return nil
}

func (p *parser) expectPunct(s, context string) error {
	if t := p.peek(); t.kind != tokPunct || t.text != s {
		return p.unexpected(t, "'"+s+"' "+context)
	}
	p.next()
	return nil
}

// unexpected is the error for t where want was expected, naming the
// unsupported construct t starts when it starts one.
func (p *parser) unexpected(t token, want string) error {
	if t.kind == tokWord {
		if c, ok := unsupportedClauses[strings.ToUpper(t.text)]; ok {
			return &UnsupportedError{Pos: t.pos, Construct: c}
		}
	}
	return &SyntaxError{Pos: t.pos, Msg: fmt.Sprintf("expected %s, found %s", want, t.describe())}
}

// keywords a bare identifier cannot be, so that "FROM t WHERE" does not
// read WHERE as the table's alias.
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "LIMIT": true, "FOR": true, "AS": true,
	"AND": true, "OR": true, "NOT": true, "ON": true, "USING": true, "DISTINCT": true, "ALL": true,
}

func isKeyword(t token) bool {
	if t.kind != tokWord {
		return false
	}
	u := strings.ToUpper(t.text)
	_, clause := unsupportedClauses[u]
	return keywords[u] || clause
}

func (p *parser) ident(what string) (Ident, error) {
	t := p.peek()
	switch {
	case t.kind == tokQuoted:
		if t.text == "" {
			return Ident{}, &SyntaxError{Pos: t.pos, Msg: "empty quoted identifier"}
		}
		p.next()
		return Ident{Name: t.text, Quoted: true, Pos: t.pos}, nil
	case t.kind == tokWord && !isKeyword(t):
		p.next()
		return Ident{Name: t.text, Pos: t.pos}, nil
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
		if t := p.peek(); t.kind != tokPunct || t.text != "." {
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
	if p.peek().is("AS") {
		p.next()
		id, err := p.ident("an alias after AS")
		return id, err == nil, err
	}
	if t := p.peek(); (t.kind == tokWord && !isKeyword(t)) || t.kind == tokQuoted {
		id, err := p.ident("an alias")
		return id, err == nil, err
	}
	return Ident{}, false, nil
}

func (p *parser) selectList(sel *Select) error {
	if t := p.peek(); t.is("DISTINCT") {
		return &UnsupportedError{Pos: t.pos, Construct: "SELECT DISTINCT"}
	}
	if t := p.peek(); t.is("ALL") {
		p.next()
	}
	if t := p.peek(); t.kind == tokPunct && t.text == "*" {
		p.next()
		sel.Star = true
		if t := p.peek(); t.kind == tokPunct && t.text == "," {
			return &UnsupportedError{Pos: t.pos, Construct: "* with other columns"}
		}
		return nil
	}
	if t := p.peek(); t.is("COUNT") && p.toks[p.i+1].kind == tokPunct && p.toks[p.i+1].text == "(" {
		p.next()
		p.next()
		if t := p.peek(); t.kind != tokPunct || t.text != "*" {
			if t.kind == tokNumber && t.text == "1" {
				p.next()
			} else {
				return &UnsupportedError{Pos: t.pos, Construct: "COUNT of an expression (only COUNT(*))"}
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
		if t := p.peek(); t.kind == tokPunct && t.text == "," {
			return &UnsupportedError{Pos: t.pos, Construct: "COUNT(*) with other columns (GROUP BY)"}
		}
		return nil
	}
	for {
		t := p.peek()
		path, err := p.path("a column name, * or COUNT(*)")
		if err != nil {
			return err
		}
		if n := p.peek(); n.kind == tokPunct && n.text == "(" {
			return &UnsupportedError{Pos: t.pos, Construct: "function " + strings.ToUpper(t.text) + "()"}
		}
		if n := p.peek(); n.kind == tokPunct && n.text == "." {
			return &UnsupportedError{Pos: n.pos, Construct: "table.* and other wildcards"}
		}
		if n := p.peek(); n.kind == tokPunct && strings.Contains("+-*/|%", n.text) {
			return &UnsupportedError{Pos: n.pos, Construct: "expressions in the select list (only column names and aliases)"}
		}
		col := Column{Path: path, Pos: t.pos}
		if alias, ok, err := p.alias(); err != nil {
			return err
		} else if ok {
			col.Alias = &alias
		}
		sel.Columns = append(sel.Columns, col)
		if n := p.peek(); n.kind != tokPunct || n.text != "," {
			return nil
		}
		p.next()
	}
}

// timeTravel reads FOR ... AS OF ...
func (p *parser) timeTravel(sel *Select) error {
	p.next() // FOR
	kind := p.next()
	if !kind.is("SYSTEM_VERSION") && !kind.is("VERSION") && !kind.is("SYSTEM_TIME") && !kind.is("TIMESTAMP") {
		return &SyntaxError{Pos: kind.pos, Msg: "expected SYSTEM_VERSION, VERSION, SYSTEM_TIME or TIMESTAMP after FOR, found " + kind.describe()}
	}
	if err := p.expectWord("AS", "in FOR "+strings.ToUpper(kind.text)+" AS OF"); err != nil {
		return err
	}
	if err := p.expectWord("OF", "in FOR "+strings.ToUpper(kind.text)+" AS OF"); err != nil {
		return err
	}
	if kind.is("SYSTEM_TIME") || kind.is("TIMESTAMP") {
		if p.peek().is("TIMESTAMP") {
			p.next()
		}
		t := p.next()
		if t.kind != tokString && t.kind != tokNumber {
			return &SyntaxError{Pos: t.pos, Msg: "FOR SYSTEM_TIME AS OF takes a timestamp string such as '2024-05-01 12:00:00' (or Unix milliseconds), found " + t.describe()}
		}
		sel.AsOf = t.text
		return nil
	}
	t := p.next()
	switch t.kind {
	case tokNumber:
		id, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return &SyntaxError{Pos: t.pos, Msg: "a snapshot id is a whole number, found " + t.describe()}
		}
		sel.VersionID = &id
		return nil
	case tokString, tokQuoted:
		if kind.is("SYSTEM_VERSION") {
			return &SyntaxError{Pos: t.pos, Msg: "FOR SYSTEM_VERSION AS OF takes a snapshot id; use FOR VERSION AS OF 'branch' for a branch or tag"}
		}
		sel.VersionRef = t.text
		return nil
	case tokWord:
		sel.VersionRef = t.text
		return nil
	}
	return &SyntaxError{Pos: t.pos, Msg: "expected a snapshot id or a branch or tag name, found " + t.describe()}
}

// where takes the filter's text up to a top-level LIMIT, ';' or the end,
// with comments blanked, for the filter grammar to read.
func (p *parser) where(sel *Select, comments [][2]int) error {
	start := p.peek()
	if start.kind == tokEOF || start.is("LIMIT") {
		return &SyntaxError{Pos: start.pos, Msg: "expected a filter after WHERE"}
	}
	depth := 0
	end := start.pos
	for {
		t := p.peek()
		if t.kind == tokEOF || depth == 0 && (t.is("LIMIT") || t.kind == tokPunct && t.text == ";") {
			break
		}
		if depth == 0 && t.kind == tokWord {
			if c, ok := unsupportedClauses[strings.ToUpper(t.text)]; ok && c != "JOIN" {
				return &UnsupportedError{Pos: t.pos, Construct: c}
			}
		}
		if t.kind == tokWord && (t.is("SELECT") || t.is("EXISTS")) {
			return &UnsupportedError{Pos: t.pos, Construct: "subqueries"}
		}
		if t.kind == tokPunct {
			switch t.text {
			case "(":
				depth++
			case ")":
				depth--
			case "?":
				sel.Params = append(sel.Params, t.pos-start.pos)
			}
		}
		end = t.end
		p.next()
	}
	text := []byte(p.sql[start.pos:end])
	for _, c := range comments {
		for i := max(c[0], start.pos); i < min(c[1], end); i++ {
			text[i-start.pos] = ' '
		}
	}
	sel.Where, sel.WherePos = string(text), start.pos
	return nil
}

// firstUnsupported names the first clause of the statement that the
// subset lacks, so that "SELECT a, count(*) ... GROUP BY a" is refused for
// its GROUP BY rather than for the aggregate the GROUP BY explains.
func firstUnsupported(toks []token) error {
	for i, t := range toks {
		if t.kind != tokWord {
			continue
		}
		next := toks[min(i+1, len(toks)-1)]
		switch u := strings.ToUpper(t.text); {
		case (u == "GROUP" || u == "ORDER" || u == "PARTITION") && next.is("BY"):
			return &UnsupportedError{Pos: t.pos, Construct: u + " BY"}
		case u == "JOIN" || u == "HAVING" || u == "UNION" || u == "INTERSECT" || u == "EXCEPT" || u == "OVER":
			return &UnsupportedError{Pos: t.pos, Construct: u}
		}
	}
	return nil
}
