package jsontext

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// scannerSeeds are texts of every kind the scanner reads, and the edges
// of its grammar where a hand-written reader is most likely to part from
// encoding/json: escapes and surrogates, invalid UTF-8, control
// characters, leading zeros, exponents, the int64 range, nesting.
var scannerSeeds = []string{
	`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`, `"\ud800\u0041"`,
	"\"caf\xc3\xa9\"", "\"bad \xff utf8\"", "\"tab\there\"", `"\x"`, `"unterminated`, `""`, `"0123456789abcdef0123"`,
	`0`, `-0`, `01`, `-`, `1.5`, `1e3`, `1E+3`, `-1.25e-7`, `.5`, `1.`, `1e`, `9223372036854775807`, `9223372036854775808`,
	`-9223372036854775808`, `-9223372036854775809`, `12345678901234567890123`, `4611686018427387904`,
	`null`, `nul`, `true`, `false`, `tru`, `[]`, `[1,2,3]`, `[1,]`, `[,1]`, `["a","b"]`, `["a",null,"c"]`, `[ "a" , "b" ]`,
	`{}`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{"a":{"b":[1,{"c":null}]}}`, ` [ ] `, "[\n1\t]", `[[[[[[]]]]]]`, `[1] x`,
}

// FuzzScanner holds the scanner to encoding/json on arbitrary text: each
// way of reading a whole text (skipping one value, an integer, a string,
// an array of strings) must accept exactly what encoding/json accepts when
// it decodes the same text into the matching Go type, and return the same
// value. Every error must wrap ErrJSON.
func FuzzScanner(f *testing.F) {
	for _, s := range scannerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		whole := func(d *Scanner, err error) error {
			if err == nil && !d.AtEnd() {
				err = d.Errorf("data after the value")
			}
			if err != nil && !errors.Is(err, ErrJSON) {
				t.Fatalf("%q: error %v does not wrap ErrJSON", text, err)
			}
			return err
		}
		agree := func(what string, got, want any, gotErr, wantErr error) {
			t.Helper()
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("%s of %q: error %v, encoding/json's %v", what, text, gotErr, wantErr)
			}
			if gotErr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("%s of %q: %#v, encoding/json's %#v", what, text, got, want)
			}
		}

		d := &Scanner{Text: text}
		err := whole(d, d.Skip())
		if valid := json.Valid([]byte(text)); (err == nil) != valid {
			t.Fatalf("skip of %q: error %v, encoding/json valid %v", text, err, valid)
		}

		var wantN, gotN int64
		wantErr := json.Unmarshal([]byte(text), &wantN)
		d = &Scanner{Text: text}
		err = whole(d, d.LongOrNull(&gotN))
		agree("an integer", gotN, wantN, err, wantErr)

		var wantS, gotS string
		wantErr = json.Unmarshal([]byte(text), &wantS)
		d = &Scanner{Text: text}
		err = whole(d, d.StringOrNull(&gotS))
		agree("a string", gotS, wantS, err, wantErr)

		var wantL []string
		wantErr = json.Unmarshal([]byte(text), &wantL)
		d = &Scanner{Text: text}
		gotL, err := d.Strings()
		agree("strings", gotL, wantL, whole(d, err), wantErr)
	})
}
