// Package strictjson decodes the JSON bodies of requests strictly: a
// misspelt key or trailing data is an error, never ignored.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Abbreviate cuts b to at most n runes for an error message.
func Abbreviate(b []byte, n int) string {
	r := []rune(string(b))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n]) + "..."
}

// Decode decodes one JSON object into v, refusing unknown keys and
// trailing data: a misspelt option must fail, not be ignored.
func Decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the object")
	}
	return nil
}

// Depth returns the deepest nesting of objects and arrays in the JSON text
// b, without decoding it, so that a caller can refuse a hostile document
// before a recursive decoder sees it. Brackets inside strings do not
// count.
func Depth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
