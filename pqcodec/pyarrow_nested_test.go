package pqcodec

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/iceflight/iceflight/internal/servers"
)

// TestNestedMatchesPyarrow reads nested files that pyarrow (Arrow C++'s
// writer) wrote with random settings, list elements named its own way
// among them, and wants every top-level field read here to equal what
// pqarrow reads.
func TestNestedMatchesPyarrow(t *testing.T) {
	t.Parallel()
	python := servers.Program(t, "PYICEBERG_PYTHON", "servers-sql")
	dir := t.TempDir()
	const files = 80
	cmd := exec.Command(python, "testdata/pyarrow_nested.py", dir, "41", fmt.Sprint(files))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pyarrow_nested.py: %v\n%s", err, out)
	}
	var tally fieldTally
	for i := range files {
		stem := filepath.Join(dir, fmt.Sprintf("%03d", i))
		raw, err := os.ReadFile(stem + ".parquet")
		if err != nil {
			t.Fatal(err)
		}
		desc, _ := os.ReadFile(stem + ".txt")
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		tally.merge(compareFields(t, rng, raw, fmt.Sprintf("pyarrow file %d (%s)", i, desc), true))
		if t.Failed() {
			break
		}
	}
	t.Logf("%d field chunks compared (%d with part of their leaves), %d reads, %d skips; %d left to pqarrow",
		tally.fields, tally.partial, tally.reads, tally.skips, tally.fellBack)
}
