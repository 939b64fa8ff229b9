package main

import (
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// itemsSchema is the Arrow schema the write tests create tables from and
// append: a required id and a column for each transform's source type.
var itemsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "price", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

// tsBase is 2026-01-01T00:00:00Z in microseconds; row i is i hours later.
const tsBase = int64(1767225600) * 1_000_000

// item is row i in the oracle's JSON form: the test's own inputs, from
// which every expected answer is computed.
func item(i int64) map[string]any {
	m := map[string]any{
		"id":    i,
		"name":  fmt.Sprintf("n%d", i),
		"ts":    tsBase + i*3_600_000_000,
		"day":   20454 + i%40,
		"price": fmt.Sprintf("%d.%02d", i*125/100, i*125%100),
		"score": float64(i) * 0.5,
	}
	if i%11 == 3 {
		m["name"] = nil
	}
	return m
}

// itemBatch builds the rows ids of itemsSchema.
func itemBatch(mem memory.Allocator, ids ...int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, itemsSchema)
	defer b.Release()
	for _, i := range ids {
		m := item(i)
		b.Field(0).(*array.Int64Builder).Append(i)
		if m["name"] == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(m["name"].(string))
		}
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(m["ts"].(int64)))
		b.Field(3).(*array.Date32Builder).Append(arrow.Date32(m["day"].(int64)))
		b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(i * 125))
		b.Field(5).(*array.Float64Builder).Append(m["score"].(float64))
	}
	return b.NewRecordBatch()
}

// ids returns first, first+1, ..., first+n-1.
func ids(first, n int64) []int64 {
	out := make([]int64, n)
	for k := range out {
		out[k] = first + int64(k)
	}
	return out
}

// model is what a table must hold: rows by id in the oracle's JSON form.
type model map[int64]map[string]any

func (m model) add(ids ...int64) {
	for _, i := range ids {
		m[i] = item(i)
	}
}

// remove drops the rows keep says no to.
func (m model) remove(drop func(row map[string]any) bool) {
	for id, row := range m {
		if drop(row) {
			delete(m, id)
		}
	}
}

// each changes every row.
func (m model) each(f func(row map[string]any)) {
	for _, row := range m {
		f(row)
	}
}

func (m model) list() []map[string]any {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a] < keys[b] })
	out := make([]map[string]any, len(keys))
	for k, id := range keys {
		out[k] = m[id]
	}
	return out
}

func idOf(row map[string]any) int64 { return row["id"].(int64) }

// stringArray builds a string array of f(id) for ids.
func stringArray(mem memory.Allocator, rowIDs []int64, f func(int64) string) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for _, i := range rowIDs {
		b.Append(f(i))
	}
	return b.NewArray()
}

func arrowRecord(schema *arrow.Schema, cols []arrow.Array, n int64) arrow.RecordBatch {
	return array.NewRecordBatch(schema, cols, n)
}
