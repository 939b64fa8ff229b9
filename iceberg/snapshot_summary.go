package iceberg

import (
	"encoding/json"

	"github.com/iceflight/iceflight/internal/jsontext"
)

// Summary is a snapshot's summary: string properties such as "operation"
// and "total-records" (spec: Snapshots). It keeps the summary's JSON text
// as the metadata file holds it and decodes it only when asked: a table
// that commits often keeps thousands of snapshots of fifteen properties
// each, and a cold table load would otherwise spend most of its time and
// memory building maps that a scan never reads. The zero Summary is an
// absent one.
type Summary struct {
	// text is a JSON object of strings (values may be null), checked when
	// the summary was read; "" when absent.
	text string
}

// NewSummary returns a summary holding the properties of m; nil gives an
// absent summary.
func NewSummary(m map[string]string) Summary {
	if m == nil {
		return Summary{}
	}
	b, err := json.Marshal(m)
	if err != nil { // a map of strings always encodes
		return Summary{}
	}
	return Summary{text: string(b)}
}

// IsZero reports whether the summary is absent.
func (s Summary) IsZero() bool { return s.text == "" }

// Get returns the value of one property, without decoding the others. As
// with a map decoded from the text, the last of duplicate keys wins and a
// null value reads as "".
func (s Summary) Get(key string) (string, bool) {
	var value string
	found := false
	s.each(func(k, v string) {
		if k == key {
			value, found = v, true
		}
	})
	return value, found
}

// Value returns the value of one property, "" when absent.
func (s Summary) Value(key string) string {
	v, _ := s.Get(key)
	return v
}

// Map decodes every property into a new map; nil when the summary is
// absent.
func (s Summary) Map() map[string]string {
	if s.text == "" {
		return nil
	}
	out := make(map[string]string, 16)
	s.each(func(k, v string) { out[k] = v })
	return out
}

// each calls f with each property in the order of the text. The text was
// checked when it was read, so decoding it again cannot fail.
func (s Summary) each(f func(key, value string)) {
	if s.text == "" {
		return
	}
	d := jsontext.Scanner{Text: s.text}
	_ = d.Each('{', func(key string) error {
		var v string
		if err := d.StringOrNull(&v); err != nil {
			return err
		}
		f(key, v)
		return nil
	})
}

// MarshalJSON writes the summary's JSON object ("null" when absent).
func (s Summary) MarshalJSON() ([]byte, error) {
	if s.text == "" {
		return []byte("null"), nil
	}
	return []byte(s.text), nil
}

// UnmarshalJSON reads a JSON object of strings; null leaves s as it is.
func (s *Summary) UnmarshalJSON(b []byte) error {
	d := jsontext.Scanner{Text: string(b)}
	if d.Null() {
		return nil
	}
	v, err := readSummary(&d)
	if err != nil {
		return err
	}
	if !d.AtEnd() {
		return d.Errorf("data after the summary")
	}
	*s = v
	return nil
}

// summary reads an object of strings (or nulls) and keeps its text,
// which shares d's memory; null gives an absent summary.
func readSummary(d *jsontext.Scanner) (Summary, error) {
	if d.Null() {
		return Summary{}, nil
	}
	d.Space()
	start := d.Pos
	err := d.Each('{', func(string) error {
		var v string
		return d.StringOrNull(&v)
	})
	if err != nil {
		return Summary{}, err
	}
	return Summary{text: d.Text[start:d.Pos]}, nil
}
