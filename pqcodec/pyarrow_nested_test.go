package pqcodec

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestNestedMatchesPyarrow reads nested files that pyarrow (Arrow C++'s
// writer) wrote with random settings, list elements named its own way
// among them, and wants every top-level field read here to equal what
// pqarrow reads.
func TestNestedMatchesPyarrow(t *testing.T) {
	t.Parallel()
	var tally fieldTally
	pyarrowFiles(t, "pyarrow_nested.py", 41, 80, func(i int, _ string, raw []byte, desc string) {
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		tally.merge(compareFields(t, rng, raw, fmt.Sprintf("pyarrow file %d (%s)", i, desc), true))
	})
	t.Logf("%d field chunks compared (%d with part of their leaves), %d reads, %d skips; %d left to pqarrow",
		tally.fields, tally.partial, tally.reads, tally.skips, tally.fellBack)
}
