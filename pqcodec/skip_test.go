package pqcodec

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestSkipKeepsReadsInStep reads the random files' chunks with Reads and
// Skips of random sizes interleaved: every Read must give the rows
// pqarrow has at the same place, so a Skip that moved past more or fewer
// values than asked, or left the page state out of step, fails.
func TestSkipKeepsReadsInStep(t *testing.T) {
	t.Parallel()
	files := 120
	if testing.Short() {
		files = 30
	}
	var skipped, read int
	for seed := range files {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rng := rand.New(rand.NewPCG(uint64(seed), 31))
		raw, desc := randomFile(t, rng, mem)
		s, r := checkSkips(t, rng, mem, raw, fmt.Sprintf("seed %d: %s", seed, desc))
		skipped += s
		read += r
		mem.AssertSize(t, 0)
		if t.Failed() {
			break
		}
	}
	t.Logf("%d values skipped, %d read between the skips", skipped, read)
	if skipped == 0 || read == 0 {
		t.Fatal("nothing was skipped or nothing read")
	}
}

// checkSkips walks every supported chunk of a file with random Reads and
// Skips and returns how many values each moved over.
func checkSkips(t *testing.T, rng *rand.Rand, mem memory.Allocator, raw []byte, desc string) (skipped, read int) {
	t.Helper()
	ref := memory.NewGoAllocator()
	pf, fr := openReference(t, ref, raw, desc)
	defer pf.Close()
	md := pf.MetaData()
	for col := 0; col < md.Schema.NumColumns(); col++ {
		typ := fr.Manifest.Fields[col].Field.Type
		for g := 0; g < md.NumRowGroups(); g++ {
			cc, err := md.RowGroup(g).ColumnChunk(col)
			if err != nil {
				t.Fatal(err)
			}
			if !Supported(cc, md.Schema.Column(col), typ) {
				continue
			}
			ch, err := fr.RowGroup(g).Column(col).Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := concat(t, ref, ch)
			ch.Release()
			cr, err := NewColumnReader(mem, bytes.NewReader(raw), nil, md, cc, md.Schema.Column(col), typ)
			if err != nil {
				t.Fatal(err)
			}
			rows := int(md.RowGroup(g).NumRows())
			for at := 0; at < rows; {
				n := min(rows-at, 1+rng.IntN(2500))
				if rng.IntN(2) == 0 {
					if err := cr.Skip(n); err != nil {
						t.Fatalf("%s: column %d row group %d: skip %d at %d: %v", desc, col, g, n, at, err)
					}
					skipped += n
				} else {
					if !readsAt(t, cr, want, at, n) {
						t.Errorf("%s: column %d row group %d (%s): rows %d..%d differ after skips", desc, col, g, typ, at, at+n)
					}
					read += n
				}
				at += n
			}
			if err := cr.Skip(1); err == nil {
				t.Errorf("%s: column %d row group %d: a skip past the chunk's end succeeded", desc, col, g)
			}
			cr.Release()
			want.Release()
		}
	}
	return skipped, read
}

// readsAt reports whether the next n values of cr are want's from at.
func readsAt(t *testing.T, cr *ColumnReader, want arrow.Array, at, n int) bool {
	t.Helper()
	got, err := cr.Read(n)
	if err != nil {
		t.Fatalf("read %d at %d: %v", n, at, err)
	}
	defer got.Release()
	sl := array.NewSlice(want, int64(at), int64(at+n))
	defer sl.Release()
	return array.Equal(got, sl)
}
