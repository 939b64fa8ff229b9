package iceberg

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errJSON marks text that is not the JSON expected.
var errJSON = errors.New("invalid JSON")

// jsonText is a small JSON reader (RFC 8259) for the parts of metadata
// files too large for a generic decoder to read quickly (see
// metadata_snapshots.go). It reads values in place from s, and strings
// without escapes come back as parts of s rather than copies.
type jsonText struct {
	s   string
	pos int
}

func (d *jsonText) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", errJSON, d.pos, fmt.Sprintf(format, args...))
}

// space skips white space.
func (d *jsonText) space() {
	for d.pos < len(d.s) {
		switch d.s[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (d *jsonText) peek() byte {
	d.space()
	if d.pos < len(d.s) {
		return d.s[d.pos]
	}
	return 0
}

// null consumes a null literal if one comes next.
func (d *jsonText) null() bool {
	if d.peek() == 'n' && strings.HasPrefix(d.s[d.pos:], "null") {
		d.pos += len("null")
		return true
	}
	return false
}

// each reads an array (open '[') or an object (open '{'), calling item for
// each element; for objects item starts at a member's value, with its key.
func (d *jsonText) each(open byte, item func(key string) error) error {
	if d.peek() != open {
		return d.errorf("expected %q", open)
	}
	d.pos++
	close := byte(']')
	if open == '{' {
		close = '}'
	}
	if d.peek() == close {
		d.pos++
		return nil
	}
	for {
		var key string
		if open == '{' {
			var err error
			if key, err = d.str(); err != nil {
				return err
			}
			if d.peek() != ':' {
				return d.errorf("expected ':'")
			}
			d.pos++
		}
		if err := item(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case close:
			d.pos++
			return nil
		default:
			return d.errorf("expected ',' or %q", close)
		}
	}
}

// str reads a string.
func (d *jsonText) str() (string, error) {
	if d.peek() != '"' {
		return "", d.errorf("expected a string")
	}
	start := d.pos + 1
	if end := strings.IndexByte(d.s[start:], '"'); end >= 0 && plainASCII(d.s[start:start+end]) {
		d.pos = start + end + 1
		return d.s[start : start+end], nil
	}
	return d.escaped()
}

// plainASCII reports whether s is printable ASCII without backslashes: a
// JSON string body that means itself. It tests eight bytes at a time.
func plainASCII(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// A byte of 0x80 or more, one below 0x20, or a backslash (the
		// "has a byte less than n" and "has a zero byte" tricks).
		below := (w - ones*0x20) &^ w
		bs := w ^ (ones * '\\')
		if (w|below|((bs-ones)&^bs))&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// escaped reads a string that holds escapes, control characters or bytes
// beyond ASCII.
func (d *jsonText) escaped() (string, error) {
	start := d.pos
	d.pos++
	plain := true
	for d.pos < len(d.s) {
		switch c := d.s[d.pos]; {
		case c == '"':
			d.pos++
			if plain {
				return d.s[start+1 : d.pos-1], nil
			}
			// Escapes and invalid UTF-8 are rare: leave them to
			// encoding/json, which also replaces invalid bytes as it does.
			var v string
			if err := json.Unmarshal([]byte(d.s[start:d.pos]), &v); err != nil {
				return "", fmt.Errorf("%w at offset %d: %v", errJSON, start, err)
			}
			return v, nil
		case c == '\\':
			plain = false
			d.pos += 2
		case c < 0x20:
			return "", d.errorf("control character in a string")
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(d.s[d.pos:])
			if r == utf8.RuneError && n == 1 {
				plain = false
			}
			d.pos += n
		default:
			d.pos++
		}
	}
	return "", d.errorf("unterminated string")
}

// int reads an integer.
func (d *jsonText) int() (int64, error) {
	d.space()
	start := d.pos
	if d.pos < len(d.s) && d.s[d.pos] == '-' {
		d.pos++
	}
	first := d.pos
	for d.pos < len(d.s) && '0' <= d.s[d.pos] && d.s[d.pos] <= '9' {
		d.pos++
	}
	if d.pos-first > 1 && d.s[first] == '0' {
		return 0, d.errorf("number with a leading zero")
	}
	if d.pos < len(d.s) {
		if c := d.s[d.pos]; c == '.' || c == 'e' || c == 'E' {
			return 0, d.errorf("expected an integer")
		}
	}
	v, err := strconv.ParseInt(d.s[start:d.pos], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w at offset %d: %v", errJSON, start, err)
	}
	return v, nil
}

// skip reads past any value.
func (d *jsonText) skip() error {
	switch c := d.peek(); {
	case c == '{' || c == '[':
		return d.each(c, func(string) error { return d.skip() })
	case c == '"':
		_, err := d.str()
		return err
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(d.s[d.pos:], lit) {
				d.pos += len(lit)
				return nil
			}
		}
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return d.errorf("expected a value")
}

// number reads past a number, checking its grammar (RFC 8259 section 6).
func (d *jsonText) number() error {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.s) && '0' <= d.s[d.pos] && d.s[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.s[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.s) && d.s[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		return d.errorf("bad number %q", d.s[start:d.pos])
	}
	if d.pos < len(d.s) && d.s[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return d.errorf("bad number %q", d.s[start:d.pos])
		}
	}
	if d.pos < len(d.s) && (d.s[d.pos] == 'e' || d.s[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.s) && (d.s[d.pos] == '+' || d.s[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return d.errorf("bad number %q", d.s[start:d.pos])
		}
	}
	return nil
}

// long reads an integer into v; null leaves v as it is.
func (d *jsonText) long(v *int64) error {
	if d.null() {
		return nil
	}
	n, err := d.int()
	if err == nil {
		*v = n
	}
	return err
}

// string reads a string into v; null leaves v as it is.
func (d *jsonText) string(v *string) error {
	if d.null() {
		return nil
	}
	s, err := d.str()
	if err == nil {
		*v = s
	}
	return err
}

// strings reads an array of strings; null is nil.
func (d *jsonText) strings() ([]string, error) {
	if d.null() {
		return nil, nil
	}
	out := []string{}
	err := d.each('[', func(string) error {
		var s string
		err := d.string(&s)
		out = append(out, s)
		return err
	})
	return out, err
}

// stringMap reads an object of strings, sized for hint members; null is
// nil.
func (d *jsonText) stringMap(hint int) (map[string]string, error) {
	if d.null() {
		return nil, nil
	}
	out := make(map[string]string, hint)
	err := d.each('{', func(key string) error {
		var v string
		if err := d.string(&v); err != nil {
			return err
		}
		out[key] = v
		return nil
	})
	return out, err
}
