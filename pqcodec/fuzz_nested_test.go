package pqcodec

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// nestedBase is one leaf chunk of a nested field of a real file, whose
// bytes a fuzz input replaces.
type nestedBase struct {
	raw   []byte
	md    *metadata.FileMetaData
	field *pqarrow.SchemaField
	col   int
}

// nestedBases writes nested files and returns the leaf chunks of their
// first row group's fields.
func nestedBases(t testing.TB) []nestedBase {
	var out []nestedBase
	for seed := range 16 {
		rng := rand.New(rand.NewPCG(uint64(seed), 77))
		raw, _ := randomNestedFile(t, rng)
		pf, err := file.NewParquetReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		md := pf.MetaData()
		for i := range fr.Manifest.Fields {
			f := &fr.Manifest.Fields[i]
			if !FieldSupported(md, 0, f, nil) {
				continue
			}
			for _, col := range fieldLeaves(f) {
				out = append(out, nestedBase{raw: raw, md: md, field: f, col: col})
			}
		}
		pf.Close()
	}
	return out
}

// FuzzFieldReader reads nested fields with one leaf chunk's bytes
// mutated, under the metadata of the real one: whatever the bytes, a read
// returns records or an error, never a panic, and frees what it allocated.
func FuzzFieldReader(f *testing.F) {
	bases := nestedBases(f)
	for i, b := range bases {
		f.Add(uint16(i), chunkBytes(b.raw, b.md, b.col))
	}
	f.Fuzz(func(t *testing.T, which uint16, chunk []byte) {
		b := bases[int(which)%len(bases)]
		raw := bytes.Clone(b.raw)
		copy(chunkBytes(raw, b.md, b.col), chunk)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		fr, err := NewFieldReader(mem, bytes.NewReader(raw), b.md, 0, b.field, nil)
		if err != nil {
			return
		}
		defer fr.Release()
		// Inputs of odd length step over every other batch with Skip,
		// which walks the levels and values by other paths than Read.
		readOrSkip(t, fr, int(b.md.RowGroup(0).NumRows()), len(chunk)%2 == 1, func(step int) int { return 1 + step*37%500 })
	})
}
