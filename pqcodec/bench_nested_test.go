package pqcodec

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// BenchmarkDecodeNested decodes one nested field of 256K records per
// shape, here with FieldReader and with pqarrow, beside each other:
// compare the pairs' MB/s (Arrow bytes out per second on one core).
func BenchmarkDecodeNested(b *testing.B) {
	const rows = 256 << 10
	field := func(name string, dt arrow.DataType, nullable bool) arrow.Field {
		return arrow.Field{Name: name, Type: dt, Nullable: nullable}
	}
	cases := []struct {
		name string
		typ  arrow.DataType
		dict bool
	}{
		{"list<int64>", arrow.ListOf(arrow.PrimitiveTypes.Int64), false},
		{"list<string>/dict", arrow.ListOf(arrow.BinaryTypes.String), true},
		{"struct<int32,string,float64>", arrow.StructOf(field("a", arrow.PrimitiveTypes.Int32, true),
			field("b", arrow.BinaryTypes.String, true), field("c", arrow.PrimitiveTypes.Float64, false)), false},
		{"map<string,int64>/dict", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), true},
		{"list<struct<int32,string>>", arrow.ListOf(arrow.StructOf(field("a", arrow.PrimitiveTypes.Int32, true),
			field("b", arrow.BinaryTypes.String, true))), false},
		{"list<list<float64>>", arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Float64)), false},
	}
	for _, tc := range cases {
		raw, size, leaves := benchNestedFile(b, tc.typ, rows, tc.dict)
		b.Run(tc.name+"/pqcodec", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				benchOursNested(b, raw)
			}
		})
		b.Run(tc.name+"/pqarrow", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				benchPqarrow(b, raw, leaves)
			}
		})
	}
}

// benchNestedFile writes one nested column, 10% of it null at each level,
// snappy compressed, and returns the file, the Arrow size of the column
// and its leaf columns.
func benchNestedFile(b *testing.B, dt arrow.DataType, rows int, dict bool) ([]byte, int64, []int) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(1, 2))
	col := randomNested(rng, mem, dt, rows, true, 10, nil)
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(rows))
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(dict),
		parquet.WithMaxRowGroupLength(int64(rows)), parquet.WithDictionaryPageSizeLimit(1<<30))
	raw := testutil.WriteParquet(b, rec, props)
	var leaves []int
	for i := range arrayLeafCount(dt) {
		leaves = append(leaves, i)
	}
	return raw, arraySize(col.Data()), leaves
}

// arraySize is the bytes of an array's buffers and its children's.
func arraySize(d arrow.ArrayData) int64 {
	var n int64
	for _, bb := range d.Buffers() {
		if bb != nil {
			n += int64(bb.Len())
		}
	}
	for _, ch := range d.Children() {
		n += arraySize(ch)
	}
	return n
}

// arrayLeafCount is the number of Parquet leaf columns of dt.
func arrayLeafCount(dt arrow.DataType) int {
	switch t := dt.(type) {
	case *arrow.StructType:
		n := 0
		for _, f := range t.Fields() {
			n += arrayLeafCount(f.Type)
		}
		return n
	case *arrow.MapType:
		return 1 + arrayLeafCount(t.ItemType())
	case arrow.ListLikeType:
		return arrayLeafCount(t.Elem())
	}
	return 1
}

func benchOursNested(b *testing.B, raw []byte) {
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	defer pf.Close()
	manifest, err := pqarrow.NewSchemaManifest(pf.MetaData().Schema, pf.MetaData().KeyValueMetadata(), &pqarrow.ArrowReadProperties{})
	if err != nil {
		b.Fatal(err)
	}
	fr, err := NewFieldReader(memory.DefaultAllocator, bytes.NewReader(raw), pf.MetaData(), 0, &manifest.Fields[0], nil)
	if err != nil {
		b.Fatal(err)
	}
	defer fr.Release()
	for left := int(pf.MetaData().RowGroup(0).NumRows()); left > 0; {
		n := min(left, 64<<10)
		a, err := fr.Read(n)
		if err != nil {
			b.Fatal(err)
		}
		a.Release()
		left -= n
	}
}
