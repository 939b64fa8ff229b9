package expr

import (
	"bytes"
	"math"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// compareValues orders two literals of one Iceberg type, also accepting the
// Go types of a type and its promotion (int32 with int64, float32 with
// float64) because bounds and partition tuples written before a promotion
// keep their old width. Floats compare as IEEE 754 numbers: -0 equals +0
// and a NaN is unordered. ok is false for unordered or mismatched values.
func compareValues(a, b any) (int, bool) {
	switch a := a.(type) {
	case int32:
		if bi, ok := asInt64(b); ok {
			return cmpInt(int64(a), bi), true
		}
	case int64:
		if bi, ok := asInt64(b); ok {
			return cmpInt(a, bi), true
		}
	case float32:
		if bf, ok := asFloat64(b); ok {
			return cmpFloat(float64(a), bf)
		}
	case float64:
		if bf, ok := asFloat64(b); ok {
			return cmpFloat(a, bf)
		}
	case string:
		if bs, ok := b.(string); ok {
			// Byte order of UTF-8 is code point order, the order of bounds.
			return strings.Compare(a, bs), true
		}
	case []byte:
		if bb, ok := b.([]byte); ok {
			return bytes.Compare(a, bb), true
		}
	case [16]byte:
		// UUIDs order as unsigned big-endian bytes (RFC 4122), the order
		// Parquet uses for their statistics.
		if bu, ok := b.([16]byte); ok {
			return bytes.Compare(a[:], bu[:]), true
		}
	case decimal128.Num:
		if bd, ok := b.(decimal128.Num); ok {
			return a.Cmp(bd), true
		}
	case bool:
		if bb, ok := b.(bool); ok {
			switch {
			case a == bb:
				return 0, true
			case !a:
				return -1, true
			}
			return 1, true
		}
	}
	return 0, false
}

func asInt64(v any) (int64, bool) {
	switch v := v.(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

func asFloat64(v any) (float64, bool) {
	switch v := v.(type) {
	case float32:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) (int, bool) {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return 0, false
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	}
	return 0, true
}

func isNaN(v any) bool {
	switch v := v.(type) {
	case float32:
		return math.IsNaN(float64(v))
	case float64:
		return math.IsNaN(v)
	}
	return false
}

// sortValues sorts literals and drops duplicates, the canonical form of an
// IN list.
func sortValues(vs []any) []any {
	out := append([]any(nil), vs...)
	sort.SliceStable(out, func(i, j int) bool {
		c, _ := compareValues(out[i], out[j])
		return c < 0
	})
	n := 0
	for i, v := range out {
		if i > 0 {
			if c, ok := compareValues(out[n-1], v); ok && c == 0 {
				continue
			}
		}
		out[n] = v
		n++
	}
	return out[:n]
}

// containsValue reports whether v is in a list sorted by sortValues.
func containsValue(sorted []any, v any) bool {
	i := sort.Search(len(sorted), func(i int) bool {
		c, ok := compareValues(sorted[i], v)
		return !ok || c >= 0
	})
	if i == len(sorted) {
		return false
	}
	c, ok := compareValues(sorted[i], v)
	return ok && c == 0
}

// anyWithin reports whether some value of a list sorted by sortValues may
// lie in [lower, upper] (a nil bound is open), by binary search: metrics
// and summaries prune by an IN list of any length at the cost of one
// lookup, where Iceberg Java gives up past 200 values.
func anyWithin(sorted []any, lower, upper any) bool {
	i := 0
	if lower != nil {
		i = sort.Search(len(sorted), func(i int) bool {
			c, ok := compareValues(sorted[i], lower)
			return !ok || c >= 0
		})
	}
	return i < len(sorted) && within(sorted[i], lower, upper)
}
