// Package jsontext is a JSON scanner for the long arrays of Iceberg
// metadata files: it reads in place, without reflection, and hands out
// strings that share the text. It is untrusted-input code kept only because
// it is proven: its fuzz targets hold it to encoding/json's answers (the
// same values, or an error for the same inputs), and the planning
// benchmark's figures (docs/design.md) justify it.
package jsontext

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrJSON marks text that is not the JSON expected.
var ErrJSON = errors.New("invalid JSON")

// Scanner is a small JSON reader (RFC 8259) for the parts of Iceberg
// metadata files too large for a generic decoder to read quickly (the
// snapshots and logs, see iceberg/metadata_snapshots.go). It reads values in
// place from Text, from Pos on, and strings without escapes come back as
// parts of Text rather than copies. What it accepts and what it returns
// are encoding/json's (FuzzScanner holds it to that).
type Scanner struct {
	Text string // the JSON text
	Pos  int    // the offset of the next byte to read
}

// Errorf returns an error wrapping ErrJSON that names the offset.
func (d *Scanner) Errorf(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrJSON, d.Pos, fmt.Sprintf(format, args...))
}

// Space skips white space.
func (d *Scanner) Space() {
	for d.Pos < len(d.Text) {
		switch d.Text[d.Pos] {
		case ' ', '\t', '\n', '\r':
			d.Pos++
		default:
			return
		}
	}
}

// AtEnd reports whether nothing but white space is left: Peek's 0 is also
// a NUL byte of the text.
func (d *Scanner) AtEnd() bool {
	d.Space()
	return d.Pos >= len(d.Text)
}

// Peek returns the next byte after white space, 0 at the end.
func (d *Scanner) Peek() byte {
	// Writers rarely put white space between tokens: test for none first.
	if d.Pos < len(d.Text) && d.Text[d.Pos] > ' ' {
		return d.Text[d.Pos]
	}
	d.Space()
	if d.Pos < len(d.Text) {
		return d.Text[d.Pos]
	}
	return 0
}

// Null consumes a null literal if one comes next.
func (d *Scanner) Null() bool {
	if d.Peek() == 'n' && strings.HasPrefix(d.Text[d.Pos:], "null") {
		d.Pos += len("null")
		return true
	}
	return false
}

// Each reads an array (open '[') or an object (open '{'), calling item for
// each element; for objects item starts at a member's value, with its key.
func (d *Scanner) Each(open byte, item func(key string) error) error {
	if d.Peek() != open {
		return d.Errorf("expected %q", open)
	}
	d.Pos++
	close := byte(']')
	if open == '{' {
		close = '}'
	}
	if d.Peek() == close {
		d.Pos++
		return nil
	}
	for {
		var key string
		if open == '{' {
			var err error
			if key, err = d.Str(); err != nil {
				return err
			}
			if d.Peek() != ':' {
				return d.Errorf("expected ':'")
			}
			d.Pos++
		}
		if err := item(key); err != nil {
			return err
		}
		switch d.Peek() {
		case ',':
			d.Pos++
		case close:
			d.Pos++
			return nil
		default:
			return d.Errorf("expected ',' or %q", close)
		}
	}
}

// Str reads a string.
func (d *Scanner) Str() (string, error) {
	if d.Peek() != '"' {
		return "", d.Errorf("expected a string")
	}
	// Most strings are short and plain: one pass over their bytes finds
	// the closing quote, and any byte that needs more care (escapes,
	// control characters, UTF-8) sends the string to escaped.
	start := d.Pos + 1
	i := start
	for i+8 <= len(d.Text) {
		w := d.Text[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if !plainWord(x) {
			break
		}
		i += 8
	}
	for i < len(d.Text) && plainByte[d.Text[i]] {
		i++
	}
	if i < len(d.Text) && d.Text[i] == '"' {
		d.Pos = i + 1
		return d.Text[start:i], nil
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
func (d *Scanner) escaped() (string, error) {
	start := d.Pos
	d.Pos++
	plain := true
	for d.Pos < len(d.Text) {
		switch c := d.Text[d.Pos]; {
		case c == '"':
			d.Pos++
			if plain {
				return d.Text[start+1 : d.Pos-1], nil
			}
			// Escapes and invalid UTF-8 are rare: leave them to
			// encoding/json, which also replaces invalid bytes as it does.
			var v string
			if err := json.Unmarshal([]byte(d.Text[start:d.Pos]), &v); err != nil {
				return "", fmt.Errorf("%w at offset %d: %v", ErrJSON, start, err)
			}
			return v, nil
		case c == '\\':
			plain = false
			d.Pos += 2
		case c < 0x20:
			return "", d.Errorf("control character in a string")
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(d.Text[d.Pos:])
			if r == utf8.RuneError && n == 1 {
				plain = false
			}
			d.Pos += n
		default:
			d.Pos++
		}
	}
	return "", d.Errorf("unterminated string")
}

// Int reads an integer.
func (d *Scanner) Int() (int64, error) {
	d.Space()
	start := d.Pos
	neg := d.Pos < len(d.Text) && d.Text[d.Pos] == '-'
	if neg {
		d.Pos++
	}
	first := d.Pos
	var u uint64
	for d.Pos < len(d.Text) && '0' <= d.Text[d.Pos] && d.Text[d.Pos] <= '9' {
		u = u*10 + uint64(d.Text[d.Pos]-'0')
		d.Pos++
	}
	n := d.Pos - first
	if n > 1 && d.Text[first] == '0' {
		return 0, d.Errorf("number with a leading zero")
	}
	if d.Pos < len(d.Text) {
		if c := d.Text[d.Pos]; c == '.' || c == 'e' || c == 'E' {
			return 0, d.Errorf("expected an integer")
		}
	}
	// Up to 19 digits fit a uint64 (snapshot ids have 19); what is out of
	// range, longer or no number at all takes strconv's checks and
	// messages.
	if n == 0 || n > 19 || u > math.MaxInt64 && !(neg && u == 1<<63) {
		v, err := strconv.ParseInt(d.Text[start:d.Pos], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w at offset %d: %v", ErrJSON, start, err)
		}
		return v, nil
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

// Skip reads past any value.
func (d *Scanner) Skip() error {
	switch c := d.Peek(); {
	case c == '{' || c == '[':
		return d.Each(c, func(string) error { return d.Skip() })
	case c == '"':
		_, err := d.Str()
		return err
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(d.Text[d.Pos:], lit) {
				d.Pos += len(lit)
				return nil
			}
		}
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return d.Errorf("expected a value")
}

// number reads past a number, checking its grammar (RFC 8259 section 6).
func (d *Scanner) number() error {
	start := d.Pos
	digits := func() int {
		n := 0
		for d.Pos < len(d.Text) && '0' <= d.Text[d.Pos] && d.Text[d.Pos] <= '9' {
			d.Pos++
			n++
		}
		return n
	}
	if d.Text[d.Pos] == '-' {
		d.Pos++
	}
	if d.Pos < len(d.Text) && d.Text[d.Pos] == '0' {
		d.Pos++
	} else if digits() == 0 {
		return d.Errorf("bad number %q", d.Text[start:d.Pos])
	}
	if d.Pos < len(d.Text) && d.Text[d.Pos] == '.' {
		d.Pos++
		if digits() == 0 {
			return d.Errorf("bad number %q", d.Text[start:d.Pos])
		}
	}
	if d.Pos < len(d.Text) && (d.Text[d.Pos] == 'e' || d.Text[d.Pos] == 'E') {
		d.Pos++
		if d.Pos < len(d.Text) && (d.Text[d.Pos] == '+' || d.Text[d.Pos] == '-') {
			d.Pos++
		}
		if digits() == 0 {
			return d.Errorf("bad number %q", d.Text[start:d.Pos])
		}
	}
	return nil
}

// LongOrNull reads an integer into v; null leaves v as it is.
func (d *Scanner) LongOrNull(v *int64) error {
	if d.Null() {
		return nil
	}
	n, err := d.Int()
	if err == nil {
		*v = n
	}
	return err
}

// StringOrNull reads a string into v; null leaves v as it is.
func (d *Scanner) StringOrNull(v *string) error {
	if d.Null() {
		return nil
	}
	s, err := d.Str()
	if err == nil {
		*v = s
	}
	return err
}

// Strings reads an array of strings; null is nil.
func (d *Scanner) Strings() ([]string, error) {
	if d.Null() {
		return nil, nil
	}
	out := []string{}
	err := d.Each('[', func(string) error {
		var s string
		err := d.StringOrNull(&s)
		out = append(out, s)
		return err
	})
	return out, err
}

// FoldKey returns the name among names that key spells, exactly or else
// without regard to case (encoding/json's rule), or key itself.
func FoldKey(key string, names ...string) string {
	for _, name := range names {
		if key == name {
			return name
		}
	}
	for _, name := range names {
		if strings.EqualFold(key, name) {
			return name
		}
	}
	return key
}
