package pqcodec

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestMaxBatchBytes reads 300 copies of a 256 KiB string, which
// DELTA_BYTE_ARRAY stores in a few KiB (each value the whole of the one
// before as its prefix) and dictionary encoding in one entry: a batch
// asking for more than the bound is ErrTooLarge, one within it reads.
func TestMaxBatchBytes(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 256<<10)
	for _, enc := range []parquet.Encoding{parquet.Encodings.DeltaByteArray, parquet.Encodings.Plain, parquet.Encodings.RLEDict} {
		t.Run(enc.String(), func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			b := array.NewStringBuilder(mem)
			for range 300 {
				b.Append(long)
			}
			col := b.NewArray()
			b.Release()
			sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
			rec := array.NewRecordBatch(sc, []arrow.Array{col}, 300)
			col.Release()
			props := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy)}
			if enc == parquet.Encodings.RLEDict {
				props = append(props, parquet.WithDictionaryDefault(true))
			} else {
				props = append(props, parquet.WithDictionaryDefault(false), parquet.WithEncoding(enc))
			}
			raw := testutil.WriteParquet(t, rec, parquet.NewWriterProperties(props...))
			rec.Release()
			md, cc := firstChunk(t, raw)
			read := func(bound int64, n int) error {
				cr, err := NewColumnReader(mem, bytes.NewReader(raw), nil, md, cc, md.Schema.Column(0), arrow.BinaryTypes.String)
				if err != nil {
					t.Fatal(err)
				}
				defer cr.Release()
				cr.SetMaxBatchBytes(bound)
				a, err := cr.Read(n)
				if err == nil {
					a.Release()
				}
				return err
			}
			if err := read(8<<20, 100); !errors.Is(err, ErrTooLarge) {
				t.Errorf("100 values of 256 KiB under an 8 MiB bound: %v, want ErrTooLarge", err)
			}
			if err := read(8<<20, 20); err != nil {
				t.Errorf("20 values of 256 KiB under an 8 MiB bound: %v", err)
			}
			if err := read(0, 300); err != nil {
				t.Errorf("300 values of 256 KiB without a bound: %v", err)
			}
		})
	}
}
