package iceberg

import (
	"bytes"
	"reflect"
	"testing"
)

func TestColumnCountsGet(t *testing.T) {
	t.Parallel()
	short := ColumnCounts{{1, 10}, {3, 30}, {7, 0}}
	var long ColumnCounts // beyond linearSearchMax: binary search
	for id := 2; id <= 40; id += 2 {
		long = append(long, ColumnCount{id, int64(id) * 100})
	}
	cases := []struct {
		name string
		c    ColumnCounts
		id   int
		want int64
		ok   bool
	}{
		{"a present id gives its count", short, 3, 30, true},
		{"the first id is found", short, 1, 10, true},
		{"the last id is found", short, 7, 0, true},
		{"a zero count is present", short, 7, 0, true},
		{"an id between two is absent", short, 2, 0, false},
		{"an id below all is absent", short, 0, 0, false},
		{"an id above all is absent", short, 8, 0, false},
		{"a nil metric has no id", nil, 1, 0, false},
		{"an empty metric has no id", ColumnCounts{}, 1, 0, false},
		{"a long metric finds its first id", long, 2, 200, true},
		{"a long metric finds a middle id", long, 22, 2200, true},
		{"a long metric finds its last id", long, 40, 4000, true},
		{"a long metric lacks an odd id", long, 21, 0, false},
		{"a long metric lacks an id below all", long, -5, 0, false},
		{"a long metric lacks an id above all", long, 41, 0, false},
	}
	for _, tc := range cases {
		got, ok := tc.c.Get(tc.id)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Get(%d) = %d, %v; want %d, %v", tc.name, tc.id, got, ok, tc.want, tc.ok)
		}
	}
	if len(short) != 3 {
		t.Errorf("len = %d, want 3", len(short))
	}
}

func TestColumnBoundsGet(t *testing.T) {
	t.Parallel()
	b := ColumnBounds{{1, []byte{}}, {4, []byte("abc")}}
	cases := []struct {
		name string
		b    ColumnBounds
		id   int
		want []byte
		ok   bool
	}{
		{"a present id gives its bound", b, 4, []byte("abc"), true},
		{"an empty bound is present", b, 1, []byte{}, true},
		{"an absent id gives nil", b, 2, nil, false},
		{"a nil metric has no id", nil, 1, nil, false},
	}
	for _, tc := range cases {
		got, ok := tc.b.Get(tc.id)
		if !bytes.Equal(got, tc.want) || ok != tc.ok || (ok && got == nil) {
			t.Errorf("%s: Get(%d) = %q, %v; want %q, %v", tc.name, tc.id, got, ok, tc.want, tc.ok)
		}
	}
	if len(b) != 2 {
		t.Errorf("len = %d, want 2", len(b))
	}
}

// Metric maps arrive in writer order and may repeat an id; the slices are
// sorted by id and keep the last value of an id, as a Go map did.
func TestNewColumnMetricsOrder(t *testing.T) {
	t.Parallel()
	counts := []struct {
		name string
		in   []ColumnCount
		want ColumnCounts
	}{
		{"nil stays nil", nil, nil},
		{"empty becomes nil", []ColumnCount{}, nil},
		{"sorted input is kept", []ColumnCount{{1, 1}, {2, 2}}, ColumnCounts{{1, 1}, {2, 2}}},
		{"unsorted input is sorted", []ColumnCount{{5, 50}, {1, 10}, {3, 30}}, ColumnCounts{{1, 10}, {3, 30}, {5, 50}}},
		{"a repeated id keeps its last value", []ColumnCount{{2, 1}, {2, 2}, {2, 3}}, ColumnCounts{{2, 3}}},
		{"a repeated id apart keeps its last value", []ColumnCount{{2, 1}, {9, 9}, {1, 0}, {2, 7}}, ColumnCounts{{1, 0}, {2, 7}, {9, 9}}},
		{"a repeat in sorted input keeps the last", []ColumnCount{{1, 1}, {1, 5}, {3, 3}}, ColumnCounts{{1, 5}, {3, 3}}},
		{"extreme ids order without overflow", []ColumnCount{{1 << 62, 1}, {-1 << 62, 2}}, ColumnCounts{{-1 << 62, 2}, {1 << 62, 1}}},
	}
	for _, tc := range counts {
		if got := NewColumnCounts(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	got := NewColumnBounds([]ColumnBound{{4, []byte("x")}, {1, []byte("a")}, {4, []byte("y")}})
	want := ColumnBounds{{1, []byte("a")}, {4, []byte("y")}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bounds: got %v, want %v", got, want)
	}
	if NewColumnBounds(nil) != nil {
		t.Error("nil bounds: want nil")
	}
}
