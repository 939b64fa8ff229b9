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

	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestDecodeMatchesPyarrow reads files that pyarrow (Arrow C++'s writer)
// wrote with random settings, and wants every chunk decoded here to equal
// what pyarrow wrote (its table, kept as an Arrow IPC file) and what
// pqarrow reads.
func TestDecodeMatchesPyarrow(t *testing.T) {
	t.Parallel()
	var tally chunkTally
	pyarrowFiles(t, "pyarrow_files.py", 27, 120, func(i int, stem string, raw []byte, desc string) {
		written := testutil.ReadIPCFile(t, stem+".arrow")
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rng := rand.New(rand.NewPCG(uint64(i), 28))
		got := compareFile(t, rng, mem, raw, fmt.Sprintf("pyarrow file %d (%s)", i, desc), func(col int) arrow.Array {
			return written.Column(col)
		})
		written.Release()
		mem.AssertSize(t, 0)
		tally.merge(got)
	})
	tally.check(t, " of pyarrow's", newEncodings...)
}

// pyarrowFiles has testdata/script write n files with pyarrow from seed
// into a temporary folder and calls each with every file's index, stem
// (NNN, its path without an extension), Parquet bytes and description,
// until a check fails. It skips the test without PYICEBERG_PYTHON.
func pyarrowFiles(t *testing.T, script string, seed, n int, each func(i int, stem string, raw []byte, desc string)) {
	t.Helper()
	python := servers.Program(t, "PYICEBERG_PYTHON", "servers-sql")
	dir := t.TempDir()
	cmd := exec.Command(python, filepath.Join("testdata", script), dir, fmt.Sprint(seed), fmt.Sprint(n))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	for i := range n {
		stem := filepath.Join(dir, fmt.Sprintf("%03d", i))
		raw, err := os.ReadFile(stem + ".parquet")
		if err != nil {
			t.Fatal(err)
		}
		desc, _ := os.ReadFile(stem + ".txt")
		each(i, stem, raw, string(desc))
		if t.Failed() {
			return
		}
	}
}
