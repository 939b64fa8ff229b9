package expr

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TokenKind is the kind of a Token.
type TokenKind int

// Token kinds. The filter syntax is made of every kind but TokParam and
// TokOther, which LexSQL reads for the statement around a filter and which
// ParseTokens accepts (TokParam) or refuses (TokOther) in one.
const (
	TokEOF    TokenKind = iota
	TokWord             // bare identifier or keyword
	TokQuoted           // "double-quoted name" (or `backquoted`, from LexSQL)
	TokString           // 'string'
	TokHex              // X'00ff'
	TokNumber           // 12, 1.5, 1e20 (unsigned)
	TokOp               // = != <> < <= > >=
	TokLParen           // (
	TokRParen           // )
	TokComma            // ,
	TokDot              // .
	TokMinus            // -
	TokParam            // ?, a parameter placeholder
	TokOther            // any other character, such as * or ;
)

// Token is one lexeme of a filter or a SQL statement: Text is unescaped
// for strings and quoted names, the hex digits of a binary literal and the
// source text otherwise; Pos and End are the byte offsets of its first
// byte and of the byte after it.
type Token struct {
	Kind     TokenKind
	Text     string
	Pos, End int
}

func (t Token) describe() string {
	switch t.Kind {
	case TokEOF:
		return "end of filter"
	case TokString:
		return fmt.Sprintf("string '%s'", clip(t.Text))
	case TokQuoted:
		return fmt.Sprintf("name %q", clip(t.Text))
	case TokHex:
		return "binary literal"
	}
	return fmt.Sprintf("%q", clip(t.Text))
}

// is reports whether the token is the keyword kw, compared case-insensitively.
func (t Token) is(kw string) bool { return t.Kind == TokWord && strings.EqualFold(t.Text, kw) }

// LexSQL splits a SQL statement into tokens, ending with a TokEOF at
// len(s), for a SQL parser that hands the tokens of its WHERE clause to
// ParseTokens: the filter is then read from the statement's own tokens,
// and its errors carry offsets in the statement. On top of the filter
// syntax's tokens it drops comments (-- to the end of the line, /* */),
// reads `backquoted` names, words with Unicode letters, form feeds as
// space, and any other character as a TokOther. Errors are *SyntaxError.
func LexSQL(s string) ([]Token, error) {
	l := lexer{s: s, sql: true}
	var toks []Token
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.Kind == TokEOF {
			return toks, nil
		}
	}
}

// lexer reads a filter (or, with sql, a statement) one token at a time, so
// that the parser can refuse a hostile filter (a megabyte of parentheses)
// after its first few hundred tokens instead of holding a token for every
// byte. Characters outside the syntax are TokOther tokens, which the
// parser refuses when it reads them, as it refuses a ? outside a statement.
type lexer struct {
	s   string
	i   int
	sql bool
}

// next returns the next token, TokEOF at the end.
func (l *lexer) next() (Token, error) {
	if err := l.skipSpace(); err != nil {
		return Token{}, err
	}
	if l.i == len(l.s) {
		return Token{TokEOF, "", len(l.s), len(l.s)}, nil
	}
	tok, err := l.token(l.i)
	if err != nil {
		return Token{}, err
	}
	l.i = tok.End
	return tok, nil
}

// skipSpace moves past spaces and, in a statement, comments.
func (l *lexer) skipSpace() error {
	s := l.s
	for l.i < len(s) {
		switch c := s[l.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || (l.sql && c == '\f'):
			l.i++
		case l.sql && strings.HasPrefix(s[l.i:], "--"):
			end := strings.IndexByte(s[l.i:], '\n')
			if end < 0 {
				end = len(s) - l.i
			}
			l.i += end
		case l.sql && strings.HasPrefix(s[l.i:], "/*"):
			end := strings.Index(s[l.i+2:], "*/")
			if end < 0 {
				return &SyntaxError{Pos: l.i, Msg: "unterminated /* comment"}
			}
			l.i += end + 4
		default:
			return nil
		}
	}
	return nil
}

// token reads the token starting at s[i], which is not a space.
func (l *lexer) token(i int) (Token, error) {
	s := l.s
	c := s[i]
	start := i
	tok := func(kind TokenKind, end int) (Token, error) { return Token{kind, s[start:end], start, end}, nil }
	switch {
	case (c == 'x' || c == 'X') && i+1 < len(s) && s[i+1] == '\'':
		text, end, err := l.quoted(i + 1)
		return Token{TokHex, text, start, end}, err
	case isWordStart(c):
		for i < len(s) && isWordPart(s[i]) {
			i++
		}
		if l.sql {
			i = l.unicodeWord(i)
		}
		return tok(TokWord, i)
	case c >= '0' && c <= '9':
		end, err := lexNumber(s, i)
		if err != nil {
			return Token{}, err
		}
		return tok(TokNumber, end)
	case c == '\'':
		text, end, err := l.quoted(i)
		return Token{TokString, text, start, end}, err
	case c == '"' || (l.sql && c == '`'):
		text, end, err := l.quoted(i)
		return Token{TokQuoted, text, start, end}, err
	case c == '=':
		return tok(TokOp, i+1)
	case c == '!':
		if i+1 < len(s) && s[i+1] == '=' {
			return tok(TokOp, i+2)
		}
		return Token{}, &SyntaxError{Pos: start, Msg: "unexpected '!' (did you mean '!='?)"}
	case c == '<' || c == '>':
		if i+1 < len(s) && (s[i+1] == '=' || (c == '<' && s[i+1] == '>')) {
			return tok(TokOp, i+2)
		}
		return tok(TokOp, i+1)
	case c == '(':
		return tok(TokLParen, i+1)
	case c == ')':
		return tok(TokRParen, i+1)
	case c == ',':
		return tok(TokComma, i+1)
	case c == '.':
		return tok(TokDot, i+1)
	case c == '-':
		return tok(TokMinus, i+1)
	case c == '?':
		return tok(TokParam, i+1)
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if l.sql && unicode.IsLetter(r) {
		return tok(TokWord, l.unicodeWord(i+n))
	}
	return tok(TokOther, i+n)
}

// unicodeWord extends a statement's word from s[i] over Unicode letters
// and digits, which SQL names may hold and filters may not.
func (l *lexer) unicodeWord(i int) int {
	for i < len(l.s) {
		r, n := utf8.DecodeRuneInString(l.s[i:])
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += n
	}
	return i
}

// unexpected is the error for a token outside the filter syntax, nil for
// the tokens of the syntax. A ? is outside it unless params.
func (t Token) unexpected(params bool) error {
	switch {
	case t.Kind == TokOther, t.Kind == TokParam && !params:
		r, _ := utf8.DecodeRuneInString(t.Text)
		return &SyntaxError{Pos: t.Pos, Msg: fmt.Sprintf("unexpected character %q", r)}
	case t.Kind == TokQuoted && t.Text == "":
		return &SyntaxError{Pos: t.Pos, Msg: "empty quoted name"}
	}
	return nil
}

func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isWordPart(c byte) bool { return isWordStart(c) || (c >= '0' && c <= '9') || c == '$' }

// quoted reads a literal quoted with s[i], where a doubled quote stands
// for one quote character.
func (l *lexer) quoted(i int) (string, int, error) {
	s, q := l.s, l.s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != q {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		// Iceberg strings are UTF-8, and JSON (the residual in a ticket)
		// would turn stray bytes into U+FFFD, matching other rows.
		if text := b.String(); !utf8.ValidString(text) {
			return "", 0, &SyntaxError{Pos: i, Msg: fmt.Sprintf("%s is not valid UTF-8", l.quotedWhat(q))}
		}
		return b.String(), j + 1, nil
	}
	return "", 0, &SyntaxError{Pos: i, Msg: "unterminated " + l.quotedWhat(q)}
}

// quotedWhat names what a quote q starts: a statement calls a quoted name
// an identifier, as SQL does.
func (l *lexer) quotedWhat(q byte) string {
	switch {
	case q == '\'':
		return "string"
	case l.sql:
		return "quoted identifier"
	}
	return "quoted name"
}

// lexNumber reads digits [. digits] [e [+-] digits] from s[i].
func lexNumber(s string, i int) (int, error) {
	digits := func(j int) int {
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j
	}
	start := i
	i = digits(i)
	if i < len(s) && s[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, &SyntaxError{Pos: i, Msg: "expected digits after the decimal point"}
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := digits(j)
		if k == j {
			return 0, &SyntaxError{Pos: i, Msg: "expected digits in the exponent"}
		}
		i = k
	}
	if i < len(s) && isWordPart(s[i]) {
		return 0, &SyntaxError{Pos: start, Msg: fmt.Sprintf("malformed number %q", clip(s[start:i+1]))}
	}
	return i, nil
}
