package pqcodec

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/internal/servers"
	"github.com/iceflight/iceflight/internal/testutil"
)

// TestDecodeMatchesPyarrow reads files that pyarrow (Arrow C++'s writer)
// wrote with random settings, and wants every chunk decoded here to equal
// what pyarrow wrote (its table, kept as an Arrow IPC file) and what
// pqarrow reads.
func TestDecodeMatchesPyarrow(t *testing.T) {
	t.Parallel()
	python := servers.Program(t, "PYICEBERG_PYTHON", "servers-sql")
	dir := t.TempDir()
	const files = 120
	cmd := exec.Command(python, "testdata/pyarrow_files.py", dir, "27", fmt.Sprint(files))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pyarrow_files.py: %v\n%s", err, out)
	}
	var tally chunkTally
	for i := range files {
		stem := filepath.Join(dir, fmt.Sprintf("%03d", i))
		raw, err := os.ReadFile(stem + ".parquet")
		if err != nil {
			t.Fatal(err)
		}
		desc, _ := os.ReadFile(stem + ".txt")
		written := testutil.ReadIPCFile(t, stem+".arrow")
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rng := rand.New(rand.NewPCG(uint64(i), 28))
		got := compareFile(t, rng, mem, raw, fmt.Sprintf("pyarrow file %d (%s)", i, desc), func(col int) arrow.Array {
			return written.Column(col)
		})
		written.Release()
		mem.AssertSize(t, 0)
		tally.merge(got)
		if t.Failed() {
			break
		}
	}
	tally.check(t, " of pyarrow's", newEncodings...)
}
