package inflate

import (
	"math/bits"
	"testing"
)

// randomCompleteLens returns code lengths of a random complete prefix code
// over n of the symbols [0, size), none longer than maxDepth bits: the
// leaves of a binary tree grown by splitting random leaves.
func randomCompleteLens(seed uint64, size, n int, maxDepth uint8) []uint8 {
	r := newRand(seed)
	depths := []uint8{0}
	for len(depths) < n {
		i := r.IntN(len(depths))
		if depths[i] == maxDepth {
			continue
		}
		depths[i]++
		depths = append(depths, depths[i])
	}
	lens := make([]uint8, size)
	for i, s := range r.Perm(size)[:n] {
		lens[s] = depths[i]
	}
	return lens
}

// TestBuildTableDecodesEveryCode checks table construction, subtables
// included, against the canonical codes of RFC 1951 section 3.2.2 computed
// independently: every symbol's code, followed by any bits, must look up
// that symbol and its code length, within the worst-case table sizes.
func TestBuildTableDecodesEveryCode(t *testing.T) {
	t.Parallel()
	var payload [numLitLen]uint32
	for s := range payload {
		payload[s] = uint32(s) << entryValueShift
	}
	kinds := []struct {
		name      string
		size      int
		rootBits  uint
		maxLen    uint8
		tableSize int
	}{
		{"literal/length", maxLitLenDyn, litLenBits, maxCodeLen, litLenTableSize},
		{"distance", maxDistDyn, distBits, maxCodeLen, distTableSize},
		{"code length", numPrecode, precodeBits, 7, precodeSize},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(300) {
				n := 2 + int(seed)%(k.size-1)
				lens := randomCompleteLens(seed, k.size, n, k.maxLen)
				table := make([]uint32, k.tableSize)
				if why := buildTable(table, k.rootBits, lens, payload[:k.size], false); why != "" {
					t.Fatalf("seed %d: %s", seed, why)
				}
				codes := canonical(lens)
				r := newRand(seed)
				for s, n := range lens {
					if n == 0 {
						continue
					}
					in := uint64(bits.Reverse32(codes[s])>>(32-n)) | r.Uint64()<<n
					e := table[in&(1<<k.rootBits-1)]
					if e&entrySub != 0 {
						e = table[subIndex(e, in, k.rootBits)]
					}
					if got := int(e >> entryValueShift & entryValueMask); got != s || e>>8&15 != uint32(n) || e&entryBitsMask != uint32(n) {
						t.Fatalf("seed %d: symbol %d (%d bits) decodes as %d (%d bits)", seed, s, n, got, e&entryBitsMask)
					}
				}
			}
		})
	}
}

// TestPairLiteralsKeepsBothCodes checks that a paired entry stands for the
// two literals whose codes its bits begin with.
func TestPairLiteralsKeepsBothCodes(t *testing.T) {
	t.Parallel()
	pairs := 0
	for seed := range uint64(100) {
		lens := randomCompleteLens(seed, maxLitLenDyn, 20+int(seed), maxCodeLen)
		if lens[endOfBlock] == 0 {
			continue
		}
		var table [litLenTableSize]uint32
		if why := buildTable(table[:], litLenBits, lens, litLenPayload[:], true); why != "" {
			t.Fatal(why)
		}
		single := table
		pairLiterals(&table, lens)
		for i := range 1 << litLenBits {
			e := table[i]
			if e&entryPair == 0 || int32(e) >= 0 {
				if e != single[i] {
					t.Fatalf("seed %d: unpaired entry %d changed", seed, i)
				}
				continue
			}
			pairs++
			first := single[i]
			n := first & entryBitsMask
			second := single[i>>n]
			if byte(e>>entryValueShift) != byte(first>>entryValueShift) ||
				byte(e>>(entryValueShift+8)) != byte(second>>entryValueShift) ||
				e&entryBitsMask != n+second&entryBitsMask || int32(second) >= 0 {
				t.Fatalf("seed %d: entry %d pairs %#x wrongly (from %#x, %#x)", seed, i, e, first, second)
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no literals were paired")
	}
}
