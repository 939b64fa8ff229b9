package reader

import (
	"bytes"
	"context"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/thrift/lib/go/thrift"
)

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
	root, err := readThrift(ctx, thrift.NewTCompactProtocolConf(in, &thrift.TConfiguration{}), thrift.STRUCT, 0)
	if err != nil {
		t.Fatal(err)
	}
	unknown := tvalue{typ: thrift.STRUCT, fields: []tfield{{id: 11, val: tvalue{typ: thrift.STRUCT}}}}
	patched := false
	for fi := range root.fields {
		if root.fields[fi].id != fileMetaSchema {
			continue
		}
		for i := range root.fields[fi].val.items {
			elem := &root.fields[fi].val.items[i]
			if name, _ := elem.get(4); string(name.scalar.([]byte)) == "key_value" {
				elem.fields = append(elem.fields, tfield{id: elemLogicalType, val: unknown})
				patched = true
			}
		}
	}
	if !patched {
		t.Fatal("no key_value group to patch")
	}
	out := thrift.NewTMemoryBufferLen(n)
	p := thrift.NewTCompactProtocolConf(out, &thrift.TConfiguration{})
	if err := writeThrift(ctx, p, root); err != nil {
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
	if _, err := parseFooter(data[len(data)-8-int(binary.LittleEndian.Uint32(data[len(data)-8:])) : len(data)-8]); err == nil {
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
