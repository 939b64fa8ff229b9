package pqcodec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// pageIndexFile writes the random columns with a page index and small
// pages, so that chunks have many.
func pageIndexFile(t testing.TB, rng *rand.Rand, mem memory.Allocator) []byte {
	t.Helper()
	rows := 500 + rng.IntN(5000)
	var fields []arrow.Field
	var cols []arrow.Array
	for i := range 1 + rng.IntN(4) {
		dt := columnTypes[rng.IntN(len(columnTypes))]
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: dt, Nullable: true})
		cols = append(cols, randomArray(rng, mem, dt, rows, 1+rng.IntN(5000), rng.IntN(3)*20))
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(rows))
	defer rec.Release()
	for _, c := range cols {
		c.Release()
	}
	props := parquet.NewWriterProperties(parquet.WithPageIndexEnabled(true), parquet.WithDataPageSize(int64(64+rng.IntN(4096))),
		parquet.WithMaxRowGroupLength(int64(200+rng.IntN(3000))), parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(rng.IntN(2) == 0), parquet.WithBatchSize(int64(16+rng.IntN(200))), parquet.WithAllocator(mem))
	return testutil.WriteParquet(t, rec, props, pqarrow.WithAllocator(mem))
}

// TestReadPageIndexMatchesArrowGo parses the page index of arrow-go's
// files and wants what arrow-go's own page index reader finds.
func TestReadPageIndexMatchesArrowGo(t *testing.T) {
	t.Parallel()
	pages := 0
	for seed := range 40 {
		rng := rand.New(rand.NewPCG(uint64(seed), 5))
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		raw := pageIndexFile(t, rng, mem)
		pf, err := file.NewParquetReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		md := pf.MetaData()
		pir := pf.GetPageIndexReader()
		for g := range md.NumRowGroups() {
			rgi, err := pir.RowGroup(g)
			if err != nil {
				t.Fatal(err)
			}
			for c := range md.Schema.NumColumns() {
				cc, err := md.RowGroup(g).ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				got, err := ReadPageIndex(bytes.NewReader(raw), cc)
				if err != nil {
					t.Fatalf("seed %d rg %d col %d: %v", seed, g, c, err)
				}
				wantCI, err := rgi.GetColumnIndex(c)
				if err != nil {
					t.Fatal(err)
				}
				wantOI, err := rgi.GetOffsetIndex(c)
				if err != nil {
					t.Fatal(err)
				}
				if got == nil || wantCI == nil || wantOI == nil {
					if got != nil || (wantCI != nil && wantOI != nil) {
						t.Fatalf("seed %d rg %d col %d: page index %v, arrow-go's %v %v", seed, g, c, got, wantCI, wantOI)
					}
					continue
				}
				checkPageIndex(t, fmt.Sprintf("seed %d rg %d col %d", seed, g, c), got, wantCI, wantOI)
				pages += len(got.FirstRows)
			}
		}
		pf.Close()
		mem.AssertSize(t, 0)
	}
	if pages < 1000 {
		t.Fatalf("only %d pages indexed: the files do not exercise the page index", pages)
	}
	t.Logf("%d pages' index entries agree", pages)
}

func checkPageIndex(t *testing.T, where string, got *PageIndex, ci metadata.ColumnIndex, oi metadata.OffsetIndex) {
	t.Helper()
	var rows []int64
	for _, l := range oi.GetPageLocations() {
		rows = append(rows, l.FirstRowIndex)
	}
	if !slices.Equal(got.FirstRows, rows) {
		t.Errorf("%s: first rows %v, arrow-go %v", where, got.FirstRows, rows)
	}
	if !slices.Equal(got.NullPages, ci.GetNullPages()) {
		t.Errorf("%s: null pages %v, arrow-go %v", where, got.NullPages, ci.GetNullPages())
	}
	if ci.IsSetNullCounts() != (got.NullCounts != nil) || !slices.Equal(got.NullCounts, ci.GetNullCounts()) {
		t.Errorf("%s: null counts %v, arrow-go %v", where, got.NullCounts, ci.GetNullCounts())
	}
	eq := func(a, b [][]byte) bool { return slices.EqualFunc(a, b, bytes.Equal) }
	if !eq(got.Min, ci.GetMinValues()) || !eq(got.Max, ci.GetMaxValues()) {
		t.Errorf("%s: bounds differ from arrow-go's", where)
	}
}

// TestReadPageIndexRefusesCorruptIndexes cuts and flips the index bytes
// of a real file: every answer is an error or an index whose pages are
// ordered, never a panic.
func TestReadPageIndexRefusesCorruptIndexes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	raw := pageIndexFile(t, rng, memory.NewGoAllocator())
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	ci, oi := cc.GetColumnIndexLocation(), cc.GetOffsetIndexLocation()
	if ci == nil || oi == nil {
		t.Fatal("no page index written")
	}
	for i := range 3000 {
		bad := bytes.Clone(raw)
		at := oi.Offset + int64(rng.IntN(int(oi.Length)))
		if i%2 == 0 {
			at = ci.Offset + int64(rng.IntN(int(ci.Length)))
		}
		bad[at] ^= byte(1 + rng.IntN(255))
		pi, err := ReadPageIndex(bytes.NewReader(bad), cc)
		if err == nil && pi != nil && !slices.IsSorted(pi.FirstRows) {
			t.Fatalf("flip at %d: pages out of order %v", at, pi.FirstRows)
		}
	}
	// A location past the file's end is an error.
	if _, err := readIndex(bytes.NewReader(raw), int64(len(raw))-2, 10); err == nil {
		t.Error("an index past the file's end was read")
	}
}

// FuzzPageIndex parses arbitrary bytes as an OffsetIndex and as a
// ColumnIndex, seeded with a real file's: an answer or an error, never a
// panic or a read out of range.
func FuzzPageIndex(f *testing.F) {
	raw := pageIndexFile(f, rand.New(rand.NewPCG(3, 3)), memory.NewGoAllocator())
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		f.Fatal(err)
	}
	md := pf.MetaData()
	for g := range md.NumRowGroups() {
		cc, err := md.RowGroup(g).ColumnChunk(0)
		if err != nil {
			f.Fatal(err)
		}
		if l := cc.GetOffsetIndexLocation(); l != nil {
			f.Add(raw[l.Offset : l.Offset+int64(l.Length)])
		}
		if l := cc.GetColumnIndexLocation(); l != nil {
			f.Add(raw[l.Offset : l.Offset+int64(l.Length)])
		}
	}
	pf.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		if rows, err := parseOffsetIndex(b); err == nil && len(rows) > len(b) {
			t.Fatalf("%d pages from %d bytes", len(rows), len(b))
		}
		var pi PageIndex
		_ = parseColumnIndex(b, &pi)
	})
}

// TestPageIndexReaderReadsOnce reads the page indexes of every chunk of
// a row group through PageIndexReader: one read from the file for all of
// them, and the same indexes as reading each on its own.
func TestPageIndexReaderReadsOnce(t *testing.T) {
	t.Parallel()
	for seed := range 10 {
		raw := pageIndexFile(t, rand.New(rand.NewPCG(uint64(seed), 11)), memory.NewGoAllocator())
		pf, err := file.NewParquetReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		md := pf.MetaData()
		for g := range md.NumRowGroups() {
			var ccs []*metadata.ColumnChunkMetaData
			for c := range md.Schema.NumColumns() {
				cc, err := md.RowGroup(g).ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				ccs = append(ccs, cc)
			}
			log := &rangeLog{r: bytes.NewReader(raw)}
			ir, err := PageIndexReader(log, ccs)
			if err != nil {
				t.Fatal(err)
			}
			for _, cc := range ccs {
				got, err := ReadPageIndex(ir, cc)
				if err != nil {
					t.Fatal(err)
				}
				want, err := ReadPageIndex(bytes.NewReader(raw), cc)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d row group %d: the held span gives another index", seed, g)
				}
			}
			if len(log.ranges) != 1 {
				t.Fatalf("seed %d row group %d: %d reads for %d chunks' indexes, want 1", seed, g, len(log.ranges), len(ccs))
			}
		}
		pf.Close()
	}
}
