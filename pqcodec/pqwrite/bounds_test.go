package pqwrite

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestBounds writes row groups of values that Iceberg's metrics treat
// apart from the footer's statistics and wants the Bounds Java's rules
// give: NaNs counted and left out, -0 below +0 (Double.compare), a zero
// bound keeping the sign of the zeros present, byte bounds whole past the
// statistics limit; with dictionaries and without, since a dictionary
// chunk's statistics see each distinct value once.
func TestBounds(t *testing.T) {
	t.Parallel()
	negZero, nan, inf := math.Copysign(0, -1), math.NaN(), math.Inf(1)
	long := strings.Repeat("z", 5000)
	type want struct {
		nans     int64
		lo, hi   float64
		hasFloat bool
		min, max string
		hasBytes bool
	}
	for _, c := range []struct {
		name   string
		floats [][]float64 // per row group
		null   int         // every null-th value is null (0: none)
		bytes  [][]string
		want   want
	}{
		{name: "plus zero only", floats: [][]float64{{0, 0, 1}}, want: want{lo: 0, hi: 1, hasFloat: true}},
		{name: "minus zero only", floats: [][]float64{{negZero, 2}}, want: want{lo: negZero, hi: 2, hasFloat: true}},
		{name: "both zeros", floats: [][]float64{{0, negZero}}, want: want{lo: negZero, hi: 0, hasFloat: true}},
		{name: "zeros across row groups", floats: [][]float64{{0, 3}, {negZero, negZero}}, want: want{lo: negZero, hi: 3, hasFloat: true}},
		{name: "minus zero is the max", floats: [][]float64{{-1, negZero}}, want: want{lo: -1, hi: negZero, hasFloat: true}},
		{name: "zero inside the range", floats: [][]float64{{-1, negZero, 0, 1}}, want: want{lo: -1, hi: 1, hasFloat: true}},
		{name: "NaNs", floats: [][]float64{{nan, 1, nan}, {nan, -2}}, want: want{nans: 3, lo: -2, hi: 1, hasFloat: true}},
		{name: "NaNs only", floats: [][]float64{{nan, nan}}, want: want{nans: 2}},
		{name: "infinities", floats: [][]float64{{inf, -inf, nan}}, want: want{nans: 1, lo: -inf, hi: inf, hasFloat: true}},
		{name: "nulls", floats: [][]float64{{5, 6, 7, 8}}, null: 2, want: want{lo: 6, hi: 8, hasFloat: true}},
		{name: "strings", bytes: [][]string{{"b", "", "c"}, {"a" + long, "~" + long}}, want: want{min: "", max: "~" + long, hasBytes: true}},
		{name: "long strings", bytes: [][]string{{"m" + long, "k" + long}}, want: want{min: "k" + long, max: "m" + long, hasBytes: true}},
		{name: "high bytes", bytes: [][]string{{"\u00ff", "z", "\x00"}}, want: want{min: "\x00", max: "\u00ff", hasBytes: true}},
	} {
		for _, dict := range []bool{true, false} {
			for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32, arrow.BinaryTypes.String} {
				if (c.floats != nil) == (typ.ID() == arrow.STRING) {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/dict=%v", c.name, typ, dict), func(t *testing.T) {
					t.Parallel()
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer mem.AssertSize(t, 0)
					props := parquet.NewWriterProperties(parquet.WithAllocator(mem), parquet.WithStats(true), parquet.WithDictionaryDefault(dict))
					schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: typ, Nullable: true}}, nil)
					sc, err := pqarrow.ToParquet(schema, props, pqarrow.DefaultWriterProps())
					if err != nil {
						t.Fatal(err)
					}
					fw, err := NewFileWriter(io.Discard, sc, props, metadata.KeyValueMetadata{}, []arrow.DataType{typ})
					if err != nil {
						t.Fatal(err)
					}
					groups := len(c.floats) + len(c.bytes)
					for g := range groups {
						rg, err := fw.AppendRowGroup()
						if err != nil {
							t.Fatal(err)
						}
						b := array.NewBuilder(mem, typ)
						n := 0
						if c.floats != nil {
							n = len(c.floats[g])
						} else {
							n = len(c.bytes[g])
						}
						for i := range n {
							switch {
							case c.null > 0 && i%c.null == 0:
								b.AppendNull()
							case typ.ID() == arrow.FLOAT64:
								b.(*array.Float64Builder).Append(c.floats[g][i])
							case typ.ID() == arrow.FLOAT32:
								b.(*array.Float32Builder).Append(float32(c.floats[g][i]))
							default:
								b.(*array.StringBuilder).Append(c.bytes[g][i])
							}
						}
						arr := b.NewArray()
						b.Release()
						err = rg.Column(0).Write(arr)
						arr.Release()
						if err != nil {
							t.Fatal(err)
						}
					}
					if err := fw.Close(); err != nil {
						t.Fatal(err)
					}
					got, w := fw.Bounds(0), c.want
					if got.NaNs != w.nans || got.HasFloats != w.hasFloat || got.HasBytes != w.hasBytes {
						t.Fatalf("NaNs %d, floats %v, bytes %v; want %d, %v, %v", got.NaNs, got.HasFloats, got.HasBytes, w.nans, w.hasFloat, w.hasBytes)
					}
					if w.hasFloat && (math.Float64bits(got.FloatMin) != math.Float64bits(w.lo) || math.Float64bits(got.FloatMax) != math.Float64bits(w.hi)) {
						t.Errorf("floats [%v, %v] (signs %v, %v), want [%v, %v] (signs %v, %v)", got.FloatMin, got.FloatMax,
							math.Signbit(got.FloatMin), math.Signbit(got.FloatMax), w.lo, w.hi, math.Signbit(w.lo), math.Signbit(w.hi))
					}
					if w.hasBytes && (!bytes.Equal(got.Min, []byte(w.min)) || !bytes.Equal(got.Max, []byte(w.max))) {
						t.Errorf("bytes [%.20q, %.20q], want [%.20q, %.20q]", got.Min, got.Max, w.min, w.max)
					}
				})
			}
		}
	}
}
