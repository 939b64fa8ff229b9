package catalog

import (
	"errors"
	"testing"
)

func TestParseIdentifier(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want Identifier
		ok   bool
	}{
		{"sales.orders", Identifier{"sales", "orders"}, true},
		{"apache-impala__foo", Identifier{"apache-impala__foo"}, true},
		{"a.b.c", Identifier{"a", "b", "c"}, true},
		{"", nil, false},
		{".", nil, false},
		{"..", nil, false},
		{"a..b", nil, false},
		{".a", nil, false},
		{"a.", nil, false},
		{"../etc", nil, false},
		{"a/b", nil, false},
		{`a\b`, nil, false},
		{"/etc/passwd", nil, false},
		{`C:\x`, nil, false},
		{"C:", nil, false},
		{"a\x00b", nil, false},
	}
	for _, tc := range cases {
		got, err := ParseIdentifier(tc.in)
		if !tc.ok {
			if !errors.Is(err, ErrInvalidIdentifier) {
				t.Errorf("ParseIdentifier(%q) = %v, %v; want ErrInvalidIdentifier", tc.in, got, err)
			}
			continue
		}
		if err != nil || got.String() != tc.want.String() || len(got) != len(tc.want) {
			t.Errorf("ParseIdentifier(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestIdentifierValidateRejectsPathParts(t *testing.T) {
	t.Parallel()
	for _, id := range []Identifier{nil, {""}, {"db", ".."}, {"..", "t"}, {"."}, {"db", "a/b"}, {"/abs"}} {
		if err := id.Validate(); !errors.Is(err, ErrInvalidIdentifier) {
			t.Errorf("Validate(%q) = %v", []string(id), err)
		}
	}
	id := Identifier{"sales", "orders"}
	if id.Validate() != nil || id.Name() != "orders" || len(id.Namespace()) != 1 || id.String() != "sales.orders" {
		t.Errorf("accessors of %v", id)
	}
}
