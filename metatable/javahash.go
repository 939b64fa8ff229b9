package metatable

import "unicode/utf16"

// Iceberg Java numbers readable_metrics' columns in the iteration order of
// Schema.idToName(), an immutable copy of a java.util.HashMap from full
// names to ids filled in IndexByName's visiting order. So the field ids of
// a table's readable_metrics are a function of how OpenJDK's HashMap lays
// out those names, which javaHashOrder reproduces: String.hashCode over
// UTF-16 code units, spread by h ^ (h >>> 16), a table of 16 buckets that
// doubles whenever the entries exceed three quarters of it (or when a
// bucket of a table smaller than 64 reaches 9 entries, which Java
// resolves by growing the table), each bucket in insertion order, and
// iteration bucket by bucket. A bucket of 9 or more entries in a table of
// 64 or more becomes a tree whose order Java keeps differently; that needs
// hundreds of names colliding in the low bits of their hashes, and is not
// reproduced.

// HashMap's constants (java.util.HashMap).
const (
	javaInitialCapacity   = 16
	javaTreeifyThreshold  = 8
	javaMinTreeifyBuckets = 64
)

// javaHashOrder returns names in the order a java.util.HashMap holding
// them, inserted in the given order, iterates its keys.
func javaHashOrder(names []namedID) []namedID {
	type node struct {
		hash uint32
		n    namedID
	}
	buckets := make([][]node, javaInitialCapacity)
	size := 0
	grow := func() {
		next := make([][]node, 2*len(buckets))
		mask := uint32(len(next) - 1)
		// Each bucket splits into two, keeping the order of its nodes.
		for _, b := range buckets {
			for _, nd := range b {
				i := nd.hash & mask
				next[i] = append(next[i], nd)
			}
		}
		buckets = next
	}
	for _, n := range names {
		h := javaSpread(javaStringHash(n.name))
		i := h & uint32(len(buckets)-1)
		buckets[i] = append(buckets[i], node{h, n})
		if len(buckets[i]) > javaTreeifyThreshold && len(buckets) < javaMinTreeifyBuckets {
			grow()
		}
		size++
		if 4*size > 3*len(buckets) {
			grow()
		}
	}
	out := make([]namedID, 0, len(names))
	for _, b := range buckets {
		for _, nd := range b {
			out = append(out, nd.n)
		}
	}
	return out
}

// javaStringHash is Java's String.hashCode.
func javaStringHash(s string) int32 {
	var h int32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(c)
	}
	return h
}

// javaSpread is HashMap.hash: the high half of the hash folded into the
// low half, which picks the bucket.
func javaSpread(h int32) uint32 {
	u := uint32(h)
	return u ^ (u >> 16)
}
