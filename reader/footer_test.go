package reader

import (
	"bytes"
	"context"
	"encoding/binary"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/thriftval"
	"github.com/iceflight/iceflight/reader/parquet"
)

// Thrift field ids of parquet.thrift that withUnknownOnKeyValue touches.
const (
	fileMetaSchema  = 2  // FileMetaData.schema
	elemLogicalType = 10 // SchemaElement.logicalType
)

// arrowGoAccepts reports whether arrow-go parses footer bytes; it panics on
// some malformed schemas, which count as a refusal.
func arrowGoAccepts(footer []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, err := metadata.NewFileMetaData(footer, nil)
	return err == nil
}

// withUnknownOnKeyValue rewrites a Parquet file's footer the way Impala's
// writer does: the repeated key_value group of a map gets an UNKNOWN
// logical type.
func withUnknownOnKeyValue(t *testing.T, data []byte) []byte {
	t.Helper()
	ctx := context.Background()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	footer := data[len(data)-8-n : len(data)-8]
	in := thrift.NewTMemoryBufferLen(n)
	in.Write(footer)
	root, err := thriftval.Read(ctx, thrift.NewTCompactProtocolConf(in, &thrift.TConfiguration{}), thrift.STRUCT)
	if err != nil {
		t.Fatal(err)
	}
	unknown := thriftval.Value{Type: thrift.STRUCT, Fields: []thriftval.Field{{ID: 11, Val: thriftval.Value{Type: thrift.STRUCT}}}}
	patched := false
	for fi := range root.Fields {
		if root.Fields[fi].ID != fileMetaSchema {
			continue
		}
		for i := range root.Fields[fi].Val.Items {
			elem := &root.Fields[fi].Val.Items[i]
			if name, _ := elem.Get(4); string(name.Scalar.([]byte)) == "key_value" {
				elem.Fields = append(elem.Fields, thriftval.Field{ID: elemLogicalType, Val: unknown})
				patched = true
			}
		}
	}
	if !patched {
		t.Fatal("no key_value group to patch")
	}
	out := thrift.NewTMemoryBufferLen(n)
	p := thrift.NewTCompactProtocolConf(out, &thrift.TConfiguration{})
	if err := thriftval.Write(ctx, p, root); err != nil {
		t.Fatal(err)
	}
	p.Flush(ctx)
	var b bytes.Buffer
	b.Write(data[:len(data)-8-n])
	b.Write(out.Bytes())
	binary.Write(&b, binary.LittleEndian, uint32(out.Len()))
	b.WriteString("PAR1")
	return b.Bytes()
}

func TestReadRepairsImpalaMapFooter(t *testing.T) {
	t.Parallel()
	sc := arrow.NewSchema([]arrow.Field{{Name: "m", Nullable: true, Metadata: fid(1), Type: arrow.MapOfFields(
		arrow.Field{Name: "key", Type: arrow.BinaryTypes.String, Metadata: fid(2)},
		arrow.Field{Name: "value", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: fid(3)},
	)}}, nil)
	data := withUnknownOnKeyValue(t, writeParquet(t, sc, `[{"m":[{"key":"a","value":1}]},{"m":null}]`, 10))
	if arrowGoAccepts(data[len(data)-8-int(binary.LittleEndian.Uint32(data[len(data)-8:])) : len(data)-8]) {
		t.Fatal("arrow-go accepted the patched footer; the test no longer reproduces the defect")
	}
	mem := checkedAlloc(t)
	r := New(memIO{"impala.parq": data}, WithAllocator(mem))
	schema := schemaOf(t, `[{"id":1,"name":"m","required":false,"type":{"type":"map","key-id":2,"key":"string","value-id":3,"value":"int","value-required":false}}]`)
	res := readAll(t, r, Scan{Schema: schema}, parquetTask("impala.parq"))
	if res.err != nil {
		t.Fatal(res.err)
	}
	if want := jsonRows(t, `[{"m":[{"key":"a","value":1}]},{"m":null}]`); !reflect.DeepEqual(res.rows, want) {
		t.Errorf("rows %v, want %v", res.rows, want)
	}
}

// readCountingIO counts the ReadAt calls made on its files.
type readCountingIO struct {
	memIO
	reads *atomic.Int64
}

type readCountingFile struct {
	memFile
	reads *atomic.Int64
	size  int64
}

func (f readCountingFile) ReadAt(p []byte, off int64) (int, error) {
	f.reads.Add(1)
	return f.memFile.ReadAt(p, off)
}

func (f readCountingFile) Size() int64 { return f.size }

func (c readCountingIO) Open(ctx context.Context, loc string) (fileio.File, error) {
	f, err := c.memIO.Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	return readCountingFile{f.(memFile), c.reads, f.Size()}, nil
}

// TestParquetReads checks how many reads a Parquet file costs: a small file
// one in all; a large one one for its footer, then its column chunks.
func TestParquetReads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		rows        int
		small       bool
		footerReads int64
	}{
		{"a small file is read in one piece", 1_000, true, 1},
		{"a large file's footer takes one read", 400_000, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sc := arrow.NewSchema([]arrow.Field{
				{Name: "a", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(1)},
				{Name: "b", Type: arrow.PrimitiveTypes.Float64, Metadata: fid(2)},
			}, nil)
			mem := memory.NewGoAllocator()
			ab, bb := array.NewInt64Builder(mem), array.NewFloat64Builder(mem)
			defer ab.Release()
			defer bb.Release()
			for i := range tc.rows {
				ab.Append(int64(i) * 7919)
				bb.Append(float64(i) / 3)
			}
			ca, cb := ab.NewArray(), bb.NewArray()
			defer ca.Release()
			defer cb.Release()
			rec := array.NewRecordBatch(sc, []arrow.Array{ca, cb}, int64(tc.rows))
			defer rec.Release()
			data := writeRecord(t, rec, int64(tc.rows), pqarrow.WithStoreSchema())
			if small := len(data) <= parquet.WholeFileBytes; small != tc.small {
				t.Fatalf("file of %d bytes: the test needs it on the other side of %d", len(data), parquet.WholeFileBytes)
			}
			reads := new(atomic.Int64)
			fio := readCountingIO{memIO{"f.parquet": data}, reads}
			f, err := fio.Open(context.Background(), "f.parquet")
			if err != nil {
				t.Fatal(err)
			}
			alloc := checkedAlloc(t)
			_, whole, err := parquet.Open(f, alloc, alloc, "f.parquet", 0)
			if err != nil {
				t.Fatal(err)
			}
			if whole != nil {
				whole.Release()
			}
			if got := reads.Load(); got != tc.footerReads {
				t.Fatalf("opening the file took %d reads, want %d", got, tc.footerReads)
			}
			reads.Store(0)
			r := New(fio, WithAllocator(alloc))
			schema := schemaOf(t, `[{"id":1,"name":"a","required":true,"type":"long"},{"id":2,"name":"b","required":true,"type":"double"}]`)
			var rows int64
			err = r.Read(context.Background(), Scan{Schema: schema}, parquetTask("f.parquet"), func(rec arrow.RecordBatch) error {
				rows += rec.NumRows()
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if rows != int64(tc.rows) {
				t.Fatalf("rows = %d, want %d", rows, tc.rows)
			}
			if tc.small && reads.Load() != 1 {
				t.Fatalf("reading the small file took %d reads, want 1", reads.Load())
			}
		})
	}
}
