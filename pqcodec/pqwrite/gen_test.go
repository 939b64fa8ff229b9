package pqwrite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// diffTypes are the Arrow types Iceberg writes that this package encodes.
var diffTypes = []arrow.DataType{
	arrow.FixedWidthTypes.Boolean,
	arrow.PrimitiveTypes.Int32,
	arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Float32,
	arrow.PrimitiveTypes.Float64,
	arrow.FixedWidthTypes.Date32,
	arrow.FixedWidthTypes.Time64us,
	&arrow.TimestampType{Unit: arrow.Microsecond},
	&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
	&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"},
	arrow.BinaryTypes.String,
	arrow.BinaryTypes.Binary,
	&arrow.FixedSizeBinaryType{ByteWidth: 16},
	&arrow.FixedSizeBinaryType{ByteWidth: 3},
	&arrow.Decimal128Type{Precision: 9, Scale: 2},
	&arrow.Decimal128Type{Precision: 18, Scale: 0},
	&arrow.Decimal128Type{Precision: 38, Scale: 10},
}

var diffCodecs = []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy,
	compress.Codecs.Gzip, compress.Codecs.Zstd, compress.Codecs.Lz4Raw}

// diffCase is one random file: its schema, batches and writer settings.
type diffCase struct {
	name    string
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	props   func(mem memory.Allocator) *parquet.WriterProperties
	groupAt int64 // rows per row group
}

func (c *diffCase) release() {
	for _, b := range c.batches {
		b.Release()
	}
}

// randomCase draws a schema of up to six columns and batches of rows for
// it: nulls none, some or all per column, values from a few distinct ones
// (dictionary encoded) or many (falling back to PLAIN), small pages and
// dictionary limits so chunks cross pages and fall back mid-chunk.
func randomCase(rng *rand.Rand, mem memory.Allocator, i int) *diffCase {
	var fields []arrow.Field
	var desc []string
	gens := map[int]colGen{}
	for j := range 1 + rng.IntN(6) {
		dt := diffTypes[rng.IntN(len(diffTypes))]
		nullable := rng.IntN(2) == 0
		g := colGen{distinct: []int{1, 3, 50, 1000, 1 << 30, drift, drift}[rng.IntN(7)], long: rng.IntN(8) == 0}
		if nullable {
			g.nulls = []float64{0, 0.1, 0.7, 1}[rng.IntN(4)]
		}
		gens[j] = g
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", j), Type: dt, Nullable: nullable})
		desc = append(desc, fmt.Sprintf("%s nullable=%v nulls=%v distinct=%d", dt, nullable, g.nulls, g.distinct))
	}
	schema := arrow.NewSchema(fields, nil)
	codec := diffCodecs[rng.IntN(len(diffCodecs))]
	pageSize := []int64{64, 1 << 10, 8 << 10, 1 << 20}[rng.IntN(4)]
	dictSize := []int64{16, 512, 4 << 10, 2 << 20}[rng.IntN(4)]
	groupAt := []int64{300, 2500, 1 << 20}[rng.IntN(3)]
	c := &diffCase{schema: schema, groupAt: groupAt,
		name: fmt.Sprintf("case %d: %s page %d dict %d group %d; %s", i, codec, pageSize, dictSize, groupAt, strings.Join(desc, "; ")),
		props: func(mem memory.Allocator) *parquet.WriterProperties {
			return parquet.NewWriterProperties(parquet.WithAllocator(mem), parquet.WithCompression(codec),
				parquet.WithDataPageSize(pageSize), parquet.WithDictionaryPageSizeLimit(dictSize), parquet.WithStats(true),
				parquet.WithVersion(parquet.V2_6), parquet.WithMaxRowGroupLength(groupAt), parquet.WithCreatedBy("pqwrite test"))
		}}
	pools := make([]*valuePool, len(fields))
	for j, f := range fields {
		pools[j] = newValuePool(rng, f.Type, gens[j])
	}
	for range 1 + rng.IntN(4) {
		n := []int{0, 1, 17, 1000, 4000}[rng.IntN(5)]
		b := array.NewRecordBuilder(mem, schema)
		for j, f := range fields {
			for range n {
				if f.Nullable && rng.Float64() < gens[j].nulls {
					b.Field(j).AppendNull()
					continue
				}
				pools[j].append(rng, b.Field(j))
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		if n > 20 && rng.IntN(2) == 0 {
			// A slice has offsets into its buffers, as the data file
			// writer's slices of a big batch do.
			sl := rec.NewSlice(7, int64(n-3))
			rec.Release()
			rec = sl
		}
		c.batches = append(c.batches, rec)
	}
	return c
}

// colGen is how a column's values are drawn.
type colGen struct {
	nulls    float64
	distinct int  // or drift
	long     bool // some strings longer than the statistics limit
}

// drift is a column whose set of distinct values grows as rows are drawn:
// its first page pays for a dictionary that later outgrows its limit.
const drift = -1

// valuePool draws a column's values from a fixed set of distinct ones,
// afresh when the set is "unbounded", or from a set that drifts.
type valuePool struct {
	dt   arrow.DataType
	gen  colGen
	vals []any
}

func newValuePool(rng *rand.Rand, dt arrow.DataType, g colGen) *valuePool {
	p := &valuePool{dt: dt, gen: g}
	if g.distinct == drift {
		p.vals = []any{p.draw(rng)}
	}
	if g.distinct < 1<<20 {
		for range g.distinct {
			p.vals = append(p.vals, p.draw(rng))
		}
	}
	return p
}

func (p *valuePool) append(rng *rand.Rand, b array.Builder) {
	v := any(nil)
	if p.gen.distinct == drift && rng.IntN(10) == 0 {
		p.vals = append(p.vals, p.draw(rng))
	}
	if p.vals != nil {
		v = p.vals[rng.IntN(len(p.vals))]
	} else {
		v = p.draw(rng)
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.Int32Builder:
		b.Append(int32(v.(int64)))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v.(int64)))
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.Time64Builder:
		b.Append(arrow.Time64(v.(int64)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.(int64)))
	case *array.Float32Builder:
		b.Append(float32(v.(float64)))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.StringBuilder:
		b.Append(string(v.([]byte)))
	case *array.BinaryBuilder:
		b.Append(v.([]byte))
	case *array.FixedSizeBinaryBuilder:
		b.Append(v.([]byte))
	case *array.Decimal128Builder:
		b.Append(v.(decimal128.Num))
	default:
		panic(fmt.Sprintf("no case for %T", b))
	}
}

var specialFloats = []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), 1e-300, -1e300}

func (p *valuePool) draw(rng *rand.Rand) any {
	switch t := p.dt.(type) {
	case *arrow.BooleanType:
		return rng.IntN(2) == 0
	case *arrow.Int32Type, *arrow.Date32Type:
		return int64(int32(rng.Uint32())) >> rng.IntN(32)
	case *arrow.Int64Type, *arrow.TimestampType:
		return int64(rng.Uint64()) >> rng.IntN(64)
	case *arrow.Time64Type:
		return rng.Int64N(86_400_000_000)
	case *arrow.Float32Type, *arrow.Float64Type:
		if rng.IntN(10) == 0 {
			return specialFloats[rng.IntN(len(specialFloats))]
		}
		return rng.NormFloat64() * 1000
	case *arrow.StringType, *arrow.BinaryType:
		n := rng.IntN(12)
		if p.gen.long && rng.IntN(20) == 0 {
			n = 5000
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
			if t.ID() == arrow.BINARY {
				b[i] = byte(rng.Uint32())
			}
		}
		return b
	case *arrow.FixedSizeBinaryType:
		b := make([]byte, t.ByteWidth)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	case *arrow.Decimal128Type:
		// Any value of the precision, negative ones included.
		bound := decimal128.GetMaxValue(t.Precision)
		f := rng.Float64()*2 - 1
		v, err := decimal128.FromFloat64(f*bound.ToFloat64(0), t.Precision, 0)
		if err != nil {
			v = decimal128.FromI64(rng.Int64N(1000) - 500)
		}
		return v
	}
	panic(fmt.Sprintf("no case for %s", p.dt))
}
