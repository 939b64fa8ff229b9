package pqwrite

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// writeColumns writes cols as one row group of a file of schema.
func writeColumns(t *testing.T, mem memory.Allocator, schema *arrow.Schema, cols ...arrow.Array) ([]byte, error) {
	t.Helper()
	props := parquet.NewWriterProperties(parquet.WithAllocator(mem), parquet.WithStats(true), parquet.WithVersion(parquet.V2_6))
	sc, err := pqarrow.ToParquet(schema, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	types := make([]arrow.DataType, len(cols))
	for i, f := range schema.Fields() {
		types[i] = f.Type
	}
	var buf bytes.Buffer
	fw, err := NewFileWriter(&buf, sc, props, metadata.KeyValueMetadata{}, types)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fw.AppendRowGroup()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cols {
		if err := g.Column(i).Write(c); err != nil {
			_ = fw.Close()
			return nil, err
		}
	}
	if err := fw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// TestAllNullArrays writes arrays of nulls only, which may lack value
// buffers, and reads them back.
func TestAllNullArrays(t *testing.T) {
	t.Parallel()
	for _, dt := range diffTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
			nulls := array.MakeArrayOfNull(mem, dt, 1500)
			defer nulls.Release()
			b, err := writeColumns(t, mem, schema, nulls)
			if err != nil {
				t.Fatal(err)
			}
			got := readColumn(t, mem, b)
			if got.Len() != 1500 || got.NullN() != 1500 {
				t.Errorf("read back %d values, %d null", got.Len(), got.NullN())
			}
			got.Release()
			if _, ok := dt.(arrow.FixedWidthDataType); ok {
				// Only a validity buffer, as some producers send for a
				// fixed-width type (binaries need their offsets).
				bare := array.MakeFromData(array.NewData(dt, 10, []*memory.Buffer{memory.NewBufferBytes(make([]byte, 2)), nil}, nil, 10, 0))
				defer bare.Release()
				if _, err := writeColumns(t, mem, schema, bare); err != nil {
					t.Fatalf("bare nulls: %v", err)
				}
			}
		})
	}
}

func readColumn(t *testing.T, mem memory.Allocator, b []byte) arrow.Array {
	t.Helper()
	tbl := testutil.ReadParquet(t, mem, b)
	defer tbl.Release()
	out, err := array.Concatenate(tbl.Column(0).Data().Chunks(), mem)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWriteErrors wants a wrong array refused with an error naming the
// column, not a panic or a corrupt file.
func TestWriteErrors(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ints, _, _ := array.FromJSON(mem, arrow.PrimitiveTypes.Int64, strings.NewReader(`[1, null, 3]`))
	defer ints.Release()
	strs, _, _ := array.FromJSON(mem, arrow.BinaryTypes.String, strings.NewReader(`["a"]`))
	defer strs.Release()
	for _, tc := range []struct {
		name  string
		field arrow.Field
		col   arrow.Array
		want  string
	}{
		{"nulls in a required column", arrow.Field{Name: "req", Type: arrow.PrimitiveTypes.Int64}, ints, "column req: 1 nulls in a required column"},
		{"wrong type", arrow.Field{Name: "s", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, strs, "column s: cannot write utf8 values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := writeColumns(t, mem, arrow.NewSchema([]arrow.Field{tc.field}, nil), tc.col)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSupported checks which leaves the package takes on.
func TestSupported(t *testing.T) {
	t.Parallel()
	props := parquet.NewWriterProperties(parquet.WithVersion(parquet.V2_6))
	for _, tc := range []struct {
		dt   arrow.DataType
		want bool
	}{
		{arrow.PrimitiveTypes.Int64, true},
		{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, true},
		{&arrow.TimestampType{Unit: arrow.Second}, false}, // pqarrow converts seconds to milliseconds
		{arrow.BinaryTypes.LargeString, false},
		{arrow.ListOf(arrow.PrimitiveTypes.Int32), false},
		{arrow.PrimitiveTypes.Int8, false},
	} {
		schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: tc.dt, Nullable: true}}, nil)
		sc, err := pqarrow.ToParquet(schema, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if got := Supported(sc.Column(0), tc.dt); got != tc.want {
			t.Errorf("Supported(%s) = %v, want %v", tc.dt, got, tc.want)
		}
	}
}
