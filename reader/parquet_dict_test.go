package reader

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/iceflight/iceflight/pqcodec"
	pqfile "github.com/iceflight/iceflight/reader/parquet"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// dictArray builds a dictionary array of the given string values and
// indices (nil for a null), sliced to [offset, end).
func dictArray(t *testing.T, mem memory.Allocator, values []string, keys []*int32, offset int) *array.Dictionary {
	t.Helper()
	vb := array.NewStringBuilder(mem)
	defer vb.Release()
	vb.AppendValues(values, nil)
	dict := vb.NewArray()
	defer dict.Release()
	ib := array.NewInt32Builder(mem)
	defer ib.Release()
	for _, k := range keys {
		if k == nil {
			ib.AppendNull()
		} else {
			ib.Append(*k)
		}
	}
	idx := ib.NewArray()
	defer idx.Release()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	d := array.NewDictionaryArray(dt, idx, dict)
	if offset == 0 {
		return d
	}
	defer d.Release()
	return array.NewSlice(d, int64(offset), int64(d.Len())).(*array.Dictionary)
}

func keysOf(ks ...int) []*int32 {
	out := make([]*int32, len(ks))
	for i, k := range ks {
		if k >= 0 {
			v := int32(k)
			out[i] = &v
		}
	}
	return out
}

func TestUnpackDictionary(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", pqcodec.MaxSlot+9)
	tests := []struct {
		name   string
		values []string
		keys   []*int32
		offset int
		want   []any // string or nil
		err    error
	}{
		{
			name:   "each index stands for its dictionary value",
			values: []string{"A", "N", "R"},
			keys:   keysOf(2, 0, 0, 1, 2),
			want:   []any{"R", "A", "A", "N", "R"},
		},
		{
			name:   "a null index is a null value",
			values: []string{"MAIL", "SHIP"},
			keys:   keysOf(1, -1, 0, -1),
			want:   []any{"SHIP", nil, "MAIL", nil},
		},
		{
			name:   "values of every slot width and the empty string",
			values: []string{"", "12345678", "123456789", strings.Repeat("y", 17), strings.Repeat("z", 33), strings.Repeat("w", 64)},
			keys:   keysOf(5, 0, 1, 2, 3, 4, 0, 5),
			want:   []any{strings.Repeat("w", 64), "", "12345678", "123456789", strings.Repeat("y", 17), strings.Repeat("z", 33), "", strings.Repeat("w", 64)},
		},
		{
			name:   "values longer than a slot are copied whole",
			values: []string{"short", long},
			keys:   keysOf(1, 0, 1, -1),
			want:   []any{long, "short", long, nil},
		},
		{
			name:   "a sliced array starts at its offset",
			values: []string{"a", "b", "c"},
			keys:   keysOf(0, 1, -1, 2, 1),
			offset: 2,
			want:   []any{nil, "c", "b"},
		},
		{
			name:   "an index past the dictionary is an error",
			values: []string{"a"},
			keys:   keysOf(0, 1),
			err:    ErrInvalidTask,
		},
		{
			name:   "no rows",
			values: []string{"a"},
			keys:   keysOf(),
			want:   []any{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			d := dictArray(t, mem, tc.values, tc.keys, tc.offset)
			defer d.Release()
			got, err := unpackDictionary(mem, d)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			s, ok := got.(*array.String)
			if !ok {
				t.Fatalf("result is %T, want *array.String", got)
			}
			if err := s.ValidateFull(); err != nil {
				t.Fatalf("invalid result: %v", err)
			}
			if s.Len() != len(tc.want) {
				t.Fatalf("len = %d, want %d", s.Len(), len(tc.want))
			}
			for i, w := range tc.want {
				switch {
				case w == nil && !s.IsNull(i):
					t.Errorf("row %d = %q, want null", i, s.Value(i))
				case w != nil && (s.IsNull(i) || s.Value(i) != w):
					t.Errorf("row %d = %q (null %v), want %q", i, s.Value(i), s.IsNull(i), w)
				}
			}
		})
	}
}

// stringFile writes one nullable string column (field id 1) of n rows whose
// values cycle through distinct values, every seventh row null.
func stringFile(t *testing.T, n, distinct int, props ...parquet.WriterProperty) ([]byte, []any) {
	t.Helper()
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(1)}}, nil)
	b := array.NewStringBuilder(mem)
	defer b.Release()
	want := make([]any, n)
	for i := range n {
		if i%7 == 3 {
			b.AppendNull()
			continue
		}
		v := fmt.Sprintf("value %d %s", i%distinct, strings.Repeat("-", i%distinct%50))
		b.Append(v)
		want[i] = v
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(n))
	defer rec.Release()
	wp := parquet.NewWriterProperties(append([]parquet.WriterProperty{parquet.WithMaxRowGroupLength(int64(n))}, props...)...)
	return testutil.WriteParquet(t, rec, wp), want
}

func TestDictionaryColumns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		n        int
		distinct int
		props    []parquet.WriterProperty
		want     bool
	}{
		{name: "a dictionary-encoded column with many rows per value is read as a dictionary", n: 20_000, distinct: 40, want: true},
		{name: "a plain-encoded column is not", n: 20_000, distinct: 40, props: []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}},
		{name: "a chunk that fell back to plain pages is not", n: 20_000, distinct: 5_000, props: []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(1 << 10)}},
		{name: "a chunk that is mostly dictionary is not", n: 2_000, distinct: 1_900},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, _ := stringFile(t, tc.n, tc.distinct, tc.props...)
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			got := len(pqfile.DictionaryColumns(pf.MetaData(), []int{0})) == 1
			if got != tc.want {
				t.Fatalf("read as dictionary = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestReadDictionaryStrings reads a string column through both paths, many
// batches each, and checks every value against what was written.
func TestReadDictionaryStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		distinct  int
		props     []parquet.WriterProperty
		batchSize int
		dict      bool
	}{
		{name: "dictionary path, short values", distinct: 30, batchSize: 1_000, dict: true},
		{name: "dictionary path, values longer than a slot", distinct: 90, batchSize: 777, dict: true},
		{name: "plain path", distinct: 30, props: []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}, batchSize: 1_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, want := stringFile(t, 10_000, tc.distinct, tc.props...)
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if dict := len(pqfile.DictionaryColumns(pf.MetaData(), []int{0})) == 1; dict != tc.dict {
				t.Fatalf("read as dictionary = %v, want %v", dict, tc.dict)
			}
			mem := checkedAlloc(t)
			r := New(memIO{"s.parquet": data}, WithAllocator(mem), WithBatchSize(tc.batchSize))
			res := readAll(t, r, Scan{Schema: schemaOf(t, `[{"id":1,"name":"s","required":false,"type":"string"}]`)}, parquetTask("s.parquet"))
			if res.err != nil {
				t.Fatal(res.err)
			}
			if len(res.rows) != len(want) {
				t.Fatalf("rows = %d, want %d", len(res.rows), len(want))
			}
			for i, row := range res.rows {
				if row["s"] != want[i] {
					t.Fatalf("row %d = %v, want %v", i, row["s"], want[i])
				}
			}
		})
	}
}

// TestPositionsAfterAFallbackRowGroup reads a file whose string column is
// decoded by pqcodec as a dictionary in its first row group and falls
// back to pqarrow in the second (its dictionary overflowed to PLAIN
// pages), with a list column, which pqarrow reads, after it. The list's
// place among pqarrow's columns moves between the row groups; a place
// kept from the first group read the wrong column in the second.
func TestPositionsAfterAFallbackRowGroup(t *testing.T) {
	t.Parallel()
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(1)},
		{Name: "l", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: fid(3)}), Nullable: true, Metadata: fid(2)},
	}, nil)
	const n = 4_000
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	defer lb.Release()
	for i := range n {
		distinct := 10 // the first row group: a small dictionary
		if i >= n/2 {
			distinct = n // the second: past the dictionary page limit
		}
		sb.Append(fmt.Sprintf("value %d", i%distinct))
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).Append(int32(i))
	}
	s, l := sb.NewArray(), lb.NewArray()
	defer s.Release()
	defer l.Release()
	rec := array.NewRecordBatch(sc, []arrow.Array{s, l}, n)
	defer rec.Release()
	data := testutil.WriteParquet(t, rec, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(n/2), parquet.WithDictionaryPageSizeLimit(1<<10)))
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for g, want := range []bool{true, false} {
		cc, err := pf.MetaData().RowGroup(g).ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		if got := pqcodec.DictionaryPagesOnly(cc); got != want {
			t.Fatalf("row group %d: dictionary pages only = %v, want %v", g, got, want)
		}
	}
	alloc := checkedAlloc(t)
	r := New(memIO{"f.parquet": data}, WithAllocator(alloc), WithBatchSize(700))
	scan := Scan{
		Schema: schemaOf(t, `[{"id":1,"name":"s","required":false,"type":"string"},
			{"id":2,"name":"l","required":false,"type":{"type":"list","element-id":3,"element":"int","element-required":false}}]`),
		Dictionary: []int{1},
	}
	res := readAll(t, r, scan, parquetTask("f.parquet"))
	if res.err != nil {
		t.Fatal(res.err)
	}
	if len(res.rows) != n {
		t.Fatalf("%d rows, want %d", len(res.rows), n)
	}
	for i, row := range res.rows {
		distinct := 10
		if i >= n/2 {
			distinct = n
		}
		l, _ := row["l"].([]any)
		if row["s"] != fmt.Sprintf("value %d", i%distinct) || len(l) != 1 || l[0] != float64(i) {
			t.Fatalf("row %d = %v", i, row)
		}
	}
}
