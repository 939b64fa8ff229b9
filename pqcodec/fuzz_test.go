package pqcodec

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// fuzzBase is one real column chunk: the file it came from, its metadata
// and the Arrow type it decodes into.
type fuzzBase struct {
	raw  []byte
	md   *metadata.FileMetaData
	col  int
	typ  arrow.DataType
	rows int
}

// fuzzBases writes files of every covered type and layout and returns
// their first row group's chunks.
func fuzzBases(t testing.TB) []fuzzBase {
	var out []fuzzBase
	for seed := range 24 {
		rng := rand.New(rand.NewPCG(uint64(seed), 99))
		raw, _ := randomFile(t, rng, memory.NewGoAllocator())
		pf, err := file.NewParquetReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		md := pf.MetaData()
		for c := 0; c < md.Schema.NumColumns(); c++ {
			out = append(out, fuzzBase{raw: raw, md: md, col: c, typ: fr.Manifest.Fields[c].Field.Type, rows: int(md.RowGroup(0).NumRows())})
		}
		pf.Close()
	}
	return out
}

// FuzzColumnReader decodes mutated column chunks under the metadata of a
// real one: whatever the bytes, a read returns values or an error, never
// a panic or an out-of-range access, and frees what it allocated.
func FuzzColumnReader(f *testing.F) {
	bases := fuzzBases(f)
	for i, b := range bases {
		cc, _ := b.md.RowGroup(0).ColumnChunk(b.col)
		off, n := ChunkRange(b.md, cc)
		f.Add(uint16(i), b.raw[off:min(off+n, int64(len(b.raw)))])
	}
	f.Fuzz(func(t *testing.T, which uint16, chunk []byte) {
		b := bases[int(which)%len(bases)]
		cc, _ := b.md.RowGroup(0).ColumnChunk(b.col)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		for _, typ := range []arrow.DataType{b.typ, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: b.typ}} {
			if !Supported(cc, b.md.Schema.Column(b.col), typ) {
				continue
			}
			// chunk is the whole chunk as it sits in memory; an empty
			// chunk is read from the ReaderAt, which holds nothing.
			cr, err := NewColumnReader(mem, bytes.NewReader(nil), chunk, b.md, cc, b.md.Schema.Column(b.col), typ)
			if err != nil {
				continue
			}
			for left := b.rows; left > 0; {
				n := min(left, 700)
				a, err := cr.Read(n)
				if err != nil {
					break
				}
				if a.Len() != n {
					t.Fatalf("Read(%d) returned %d values", n, a.Len())
				}
				a.Release()
				left -= n
			}
			cr.Release()
		}
	})
}
