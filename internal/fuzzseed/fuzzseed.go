// Package fuzzseed builds the seed corpora of iceflight's fuzz targets from real
// files. It imports nothing of iceflight, so the tests of any package may use it.
package fuzzseed

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// WriteSeedsEnv names the environment variable that makes AddSeeds write
// its inputs into the package's checked-in fuzz corpus.
const WriteSeedsEnv = "ICEFLIGHT_WRITE_FUZZ_SEEDS"

// AddSeeds adds each input to f's seed corpus. With ICEFLIGHT_WRITE_FUZZ_SEEDS=1
// it also writes them, in go test's corpus file format, to
// testdata/fuzz/<target>/seed-<hash>: the checked-in corpus is made from real
// files, and this is how it is made again when they change.
func AddSeeds(f *testing.F, inputs ...[]byte) {
	f.Helper()
	write := os.Getenv(WriteSeedsEnv) == "1"
	dir := filepath.Join("testdata", "fuzz", f.Name())
	if write {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for _, in := range inputs {
		f.Add(in)
		if !write {
			continue
		}
		sum := sha256.Sum256(in)
		name := filepath.Join(dir, "seed-"+hex.EncodeToString(sum[:8]))
		if err := os.WriteFile(name, fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", in), 0o644); err != nil {
			f.Fatal(err)
		}
	}
}

// SeedFiles returns the contents of the files that match each glob pattern,
// at most limit bytes each (larger files are left out: the fuzzer mutates
// small inputs faster and finds the same faults in them).
func SeedFiles(tb testing.TB, limit int, patterns ...string) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, p := range patterns {
		files, err := filepath.Glob(p)
		if err != nil {
			tb.Fatal(err)
		}
		for _, name := range files {
			fi, err := os.Stat(name)
			if err != nil || fi.IsDir() || fi.Size() > int64(limit) {
				continue
			}
			b, err := os.ReadFile(name)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}
