package testutil

import (
	"strings"
	"testing"
)

func TestDiffRowsIsAMultisetComparison(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		got, want []string
		diff      string // a substring of the description, "" for equal
	}{
		{"equal in another order", []string{"b", "a", "a"}, []string{"a", "b", "a"}, ""},
		{"both empty", nil, []string{}, ""},
		{"a duplicate is a difference", []string{"a", "a"}, []string{"a"}, "unexpected 1 e.g. [a]"},
		{"a missing row", []string{"a"}, []string{"a", "b"}, "missing 1 e.g. [b]"},
		{"counts", []string{"x"}, []string{"y", "z"}, "got 1 rows, want 2"},
	}
	for _, tt := range tests {
		got := DiffRows(tt.got, tt.want)
		if (tt.diff == "") != (got == "") || !strings.Contains(got, tt.diff) {
			t.Errorf("%s: DiffRows = %q, want %q", tt.name, got, tt.diff)
		}
	}
}
