package pqcodec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuzzDecodeMatchesPqarrow is the differential fuzz target of the decoder:
// each input seeds a random file (schema, values, nulls, encodings, page
// version, codec, page and row group sizes, as TestDecodeMatchesPqarrow
// draws them), which is decoded chunk by chunk here and by pqarrow, with
// reads of random sizes; the two must agree value for value.
func FuzzDecodeMatchesPqarrow(f *testing.F) {
	for seed := range 8 {
		f.Add(uint64(seed), uint64(seed*7+1))
	}
	f.Fuzz(func(t *testing.T, seed, salt uint64) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rng := rand.New(rand.NewPCG(seed, salt))
		raw, desc := randomFile(t, rng, mem)
		compareFile(t, rng, mem, raw, fmt.Sprintf("seed %d/%d: %s", seed, salt, desc), nil)
		mem.AssertSize(t, 0)
	})
}
