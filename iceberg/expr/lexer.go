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
		return fmt.Sprintf("string '%s'", t.text)
	case tokQuoted:
		return fmt.Sprintf("name %q", t.text)
	case tokHex:
		return "binary literal"
	}
	return fmt.Sprintf("%q", t.text)
}

// is reports whether the token is the keyword kw, compared case-insensitively.
func (t token) is(kw string) bool { return t.kind == tokWord && strings.EqualFold(t.text, kw) }

// lex splits a filter into tokens, ending with tokEOF.
func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case (c == 'x' || c == 'X') && i+1 < len(s) && s[i+1] == '\'':
			text, end, err := lexQuoted(s, i+1, '\'')
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokHex, text, start})
			i = end
		case isWordStart(c):
			for i < len(s) && isWordPart(s[i]) {
				i++
			}
			toks = append(toks, token{tokWord, s[start:i], start})
		case c >= '0' && c <= '9':
			end, err := lexNumber(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokNumber, s[start:end], start})
			i = end
		case c == '\'':
			text, end, err := lexQuoted(s, i, '\'')
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokString, text, start})
			i = end
		case c == '"':
			text, end, err := lexQuoted(s, i, '"')
			if err != nil {
				return nil, err
			}
			if text == "" {
				return nil, &SyntaxError{start, "empty quoted name"}
			}
			toks = append(toks, token{tokQuoted, text, start})
			i = end
		case c == '=':
			toks = append(toks, token{tokOp, "=", start})
			i++
		case c == '!':
			if i+1 < len(s) && s[i+1] == '=' {
				toks = append(toks, token{tokOp, "!=", start})
				i += 2
				continue
			}
			return nil, &SyntaxError{start, "unexpected '!' (did you mean '!='?)"}
		case c == '<' || c == '>':
			op := string(c)
			if i+1 < len(s) && (s[i+1] == '=' || (c == '<' && s[i+1] == '>')) {
				op += string(s[i+1])
			}
			toks = append(toks, token{tokOp, op, start})
			i += len(op)
		case c == '(':
			toks = append(toks, token{tokLParen, "(", start})
			i++
		case c == ')':
			toks = append(toks, token{tokRParen, ")", start})
			i++
		case c == ',':
			toks = append(toks, token{tokComma, ",", start})
			i++
		case c == '.':
			toks = append(toks, token{tokDot, ".", start})
			i++
		case c == '-':
			toks = append(toks, token{tokMinus, "-", start})
			i++
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return nil, &SyntaxError{start, fmt.Sprintf("unexpected character %q", r)}
		}
	}
	return append(toks, token{tokEOF, "", len(s)}), nil
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
		return b.String(), j + 1, nil
	}
	what := "string"
	if q == '"' {
		what = "quoted name"
	}
	return "", 0, &SyntaxError{i, "unterminated " + what}
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
			return 0, &SyntaxError{i, "expected digits after the decimal point"}
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
			return 0, &SyntaxError{i, "expected digits in the exponent"}
		}
		i = k
	}
	if i < len(s) && isWordPart(s[i]) {
		return 0, &SyntaxError{start, fmt.Sprintf("malformed number %q", s[start:i+1])}
	}
	return i, nil
}
