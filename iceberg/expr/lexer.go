package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

type tokenKind int

const (
	tokEOF    tokenKind = iota
	tokWord             // bare identifier or keyword
	tokQuoted           // "double-quoted identifier"
	tokString           // 'string'
	tokHex              // X'00ff'
	tokNumber           // 12, 1.5, 1e20 (unsigned)
	tokOp               // = != <> < <= > >=
	tokLParen           // (
	tokRParen           // )
	tokComma            // ,
	tokDot              // .
	tokMinus            // -
)

// token is one lexeme; text is unescaped for strings and quoted names.
type token struct {
	kind tokenKind
	text string
	pos  int
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of filter"
	case tokString:
		return fmt.Sprintf("string '%s'", clip(t.text))
	case tokQuoted:
		return fmt.Sprintf("name %q", clip(t.text))
	case tokHex:
		return "binary literal"
	}
	return fmt.Sprintf("%q", clip(t.text))
}

// is reports whether the token is the keyword kw, compared case-insensitively.
func (t token) is(kw string) bool { return t.kind == tokWord && strings.EqualFold(t.text, kw) }

// lexer reads a filter one token at a time, so that the parser can refuse
// a hostile filter (a megabyte of parentheses) after its first few hundred
// tokens instead of holding a token for every byte.
type lexer struct {
	s string
	i int
}

// next returns the next token, tokEOF at the end.
func (l *lexer) next() (token, error) {
	s, i := l.s, l.i
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	l.i = i
	if i == len(s) {
		return token{tokEOF, "", len(s)}, nil
	}
	tok, end, err := lexToken(s, i)
	if err != nil {
		return token{}, err
	}
	l.i = end
	return tok, nil
}

// lexToken reads the token starting at s[i], which is not a space, and
// returns it with the offset after it.
func lexToken(s string, i int) (token, int, error) {
	c := s[i]
	start := i
	one := func(kind tokenKind) (token, int, error) { return token{kind, s[i : i+1], start}, i + 1, nil }
	switch {
	case (c == 'x' || c == 'X') && i+1 < len(s) && s[i+1] == '\'':
		text, end, err := lexQuoted(s, i+1, '\'')
		return token{tokHex, text, start}, end, err
	case isWordStart(c):
		for i < len(s) && isWordPart(s[i]) {
			i++
		}
		return token{tokWord, s[start:i], start}, i, nil
	case c >= '0' && c <= '9':
		end, err := lexNumber(s, i)
		if err != nil {
			return token{}, 0, err
		}
		return token{tokNumber, s[start:end], start}, end, nil
	case c == '\'':
		text, end, err := lexQuoted(s, i, '\'')
		return token{tokString, text, start}, end, err
	case c == '"':
		text, end, err := lexQuoted(s, i, '"')
		if err == nil && text == "" {
			err = &SyntaxError{Pos: start, Msg: "empty quoted name"}
		}
		return token{tokQuoted, text, start}, end, err
	case c == '=':
		return token{tokOp, "=", start}, i + 1, nil
	case c == '!':
		if i+1 < len(s) && s[i+1] == '=' {
			return token{tokOp, "!=", start}, i + 2, nil
		}
		return token{}, 0, &SyntaxError{Pos: start, Msg: "unexpected '!' (did you mean '!='?)"}
	case c == '<' || c == '>':
		op := s[i : i+1]
		if i+1 < len(s) && (s[i+1] == '=' || (c == '<' && s[i+1] == '>')) {
			op = s[i : i+2]
		}
		return token{tokOp, op, start}, i + len(op), nil
	case c == '(':
		return one(tokLParen)
	case c == ')':
		return one(tokRParen)
	case c == ',':
		return one(tokComma)
	case c == '.':
		return one(tokDot)
	case c == '-':
		return one(tokMinus)
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return token{}, 0, &SyntaxError{Pos: start, Msg: fmt.Sprintf("unexpected character %q", r)}
}

func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isWordPart(c byte) bool { return isWordStart(c) || (c >= '0' && c <= '9') || c == '$' }

// lexQuoted reads a literal quoted with q starting at s[i] == q, where a
// doubled quote stands for one quote character.
func lexQuoted(s string, i int, q byte) (string, int, error) {
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
			return "", 0, &SyntaxError{Pos: i, Msg: fmt.Sprintf("%s is not valid UTF-8", quotedWhat(q))}
		}
		return b.String(), j + 1, nil
	}
	return "", 0, &SyntaxError{Pos: i, Msg: "unterminated " + quotedWhat(q)}
}

func quotedWhat(q byte) string {
	if q == '"' {
		return "quoted name"
	}
	return "string"
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
