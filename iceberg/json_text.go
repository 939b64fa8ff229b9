package iceberg

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
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

// atEnd reports whether nothing but white space is left: peek's 0 is also
// a NUL byte of the text.
func (d *jsonText) atEnd() bool {
	d.space()
	return d.pos >= len(d.s)
}

// peek returns the next byte after white space, 0 at the end.
func (d *jsonText) peek() byte {
	// Writers rarely put white space between tokens: test for none first.
	if d.pos < len(d.s) && d.s[d.pos] > ' ' {
		return d.s[d.pos]
	}
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
	// Most strings are short and plain: one pass over their bytes finds
	// the closing quote, and any byte that needs more care (escapes,
	// control characters, UTF-8) sends the string to escaped.
	start := d.pos + 1
	i := start
	for i+8 <= len(d.s) {
		w := d.s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if !plainWord(x) {
			break
		}
		i += 8
	}
	for i < len(d.s) && plainByte[d.s[i]] {
		i++
	}
	if i < len(d.s) && d.s[i] == '"' {
		d.pos = i + 1
		return d.s[start:i], nil
	}
	return d.escaped()
}

// plainWord reports whether the eight bytes packed in x are all plain
// (see plainByte), testing them at once: paths and summaries make most of
// a metadata file's text, and a byte at a time is most of its parsing.
// Each test is exact as a whole; a word that fails one goes through
// plainByte.
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zeroIn := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	control := (x - 0x20*ones) & ^x & highs // a byte below 0x20
	return (zeroIn(x^('"'*ones)) | zeroIn(x^('\\'*ones)) | control | x&highs) == 0
}

// plainByte tells the bytes that mean themselves inside a JSON string:
// printable ASCII other than the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

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
	neg := d.pos < len(d.s) && d.s[d.pos] == '-'
	if neg {
		d.pos++
	}
	first := d.pos
	var u uint64
	for d.pos < len(d.s) && '0' <= d.s[d.pos] && d.s[d.pos] <= '9' {
		u = u*10 + uint64(d.s[d.pos]-'0')
		d.pos++
	}
	n := d.pos - first
	if n > 1 && d.s[first] == '0' {
		return 0, d.errorf("number with a leading zero")
	}
	if d.pos < len(d.s) {
		if c := d.s[d.pos]; c == '.' || c == 'e' || c == 'E' {
			return 0, d.errorf("expected an integer")
		}
	}
	// Up to 19 digits fit a uint64 (snapshot ids have 19); what is out of
	// range, longer or no number at all takes strconv's checks and
	// messages.
	if n == 0 || n > 19 || u > math.MaxInt64 && !(neg && u == 1<<63) {
		v, err := strconv.ParseInt(d.s[start:d.pos], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w at offset %d: %v", errJSON, start, err)
		}
		return v, nil
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
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
