package iceberg

import (
	"cmp"
	"slices"
)

// A data file's column metrics (Spec: Manifests, data_file fields 108-110,
// 125, 128 and 137) are maps from field id to a count or a bound. They are
// held here as slices sorted by field id rather than as Go maps: a manifest
// entry has up to six of them, each usually of a handful of columns, and a
// Go map costs an allocation and a few hundred bytes even for one entry,
// while a slice of entries can share the reader's arena with every other
// entry of the manifest. Lookups are by binary search, or a scan of the
// short slices scans keep for the few columns their filters test.

// ColumnCount is one column's entry in a count metric: its size in bytes,
// or its count of values, nulls or NaNs.
type ColumnCount struct {
	ID    int // field id
	Count int64
}

// ColumnCounts is a count metric of a file: entries sorted by field id,
// each id once. Nil or empty means the metric is absent. It is read-only:
// decoded values share memory with the rest of their manifest.
type ColumnCounts []ColumnCount

// ColumnBound is one column's lower or upper bound, in the single-value
// binary serialization of the column's type (Spec: Appendix D), undecoded.
type ColumnBound struct {
	ID    int // field id
	Value []byte
}

// ColumnBounds is a bound metric of a file: entries sorted by field id,
// each id once. Nil or empty means the metric is absent. It is read-only:
// decoded values share memory with the rest of their manifest.
type ColumnBounds []ColumnBound

// NewColumnCounts orders entries by field id in place and keeps, of an id
// that repeats, its last entry, as successive assignments to a map would.
// The result shares entries' memory; nil when entries is empty.
func NewColumnCounts(entries []ColumnCount) ColumnCounts {
	return normalize(entries, func(e *ColumnCount) int { return e.ID })
}

// NewColumnBounds orders entries by field id in place and keeps, of an id
// that repeats, its last entry, as successive assignments to a map would.
// The result shares entries' memory; nil when entries is empty.
func NewColumnBounds(entries []ColumnBound) ColumnBounds {
	return normalize(entries, func(e *ColumnBound) int { return e.ID })
}

// Get returns the count of field id; ok is false when there is none.
func (c ColumnCounts) Get(id int) (count int64, ok bool) {
	if i, found := search(c, id, func(e *ColumnCount) int { return e.ID }); found {
		return c[i].Count, true
	}
	return 0, false
}

// Get returns the bound of field id; ok is false when there is none.
func (b ColumnBounds) Get(id int) (value []byte, ok bool) {
	if i, found := search(b, id, func(e *ColumnBound) int { return e.ID }); found {
		return b[i].Value, true
	}
	return nil, false
}

// linearSearchMax is the length up to which search scans: below it a scan
// of a cache line or two beats the branches of a binary search.
const linearSearchMax = 8

// search finds id in s, sorted by id.
func search[E any](s []E, id int, idOf func(*E) int) (int, bool) {
	if len(s) <= linearSearchMax {
		for i := range s {
			if v := idOf(&s[i]); v >= id {
				return i, v == id
			}
		}
		return len(s), false
	}
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if idOf(&s[m]) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s) && idOf(&s[lo]) == id
}

// normalize sorts s by id, stably so that entries of a repeated id stay in
// writer order, and keeps the last of each such run. Writers usually write
// metric maps in id order, so a sorted s is only checked.
func normalize[E any](s []E, idOf func(*E) int) []E {
	if len(s) == 0 {
		return nil
	}
	sorted, unique := true, true
	for i := 1; i < len(s) && sorted; i++ {
		a, b := idOf(&s[i-1]), idOf(&s[i])
		sorted = a <= b
		unique = unique && a != b
	}
	if sorted && unique {
		return s
	}
	if !sorted {
		slices.SortStableFunc(s, func(a, b E) int { return cmp.Compare(idOf(&a), idOf(&b)) })
	}
	// Keep the last entry of each run of one id.
	n := 0
	for i := range s {
		if i+1 < len(s) && idOf(&s[i+1]) == idOf(&s[i]) {
			continue
		}
		s[n] = s[i]
		n++
	}
	clear(s[n:])
	return s[:n]
}
