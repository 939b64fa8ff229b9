package datafile

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

func TestPartitionPath(t *testing.T) {
	t.Parallel()
	ts := time.Date(2017, 12, 1, 10, 12, 55, 38194000, time.UTC).UnixMicro()
	day := int32(time.Date(2017, 11, 16, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	field := func(name string, tr iceberg.Transform, typ iceberg.Type) [2]any {
		return [2]any{iceberg.PartitionField{Name: name, Transform: tr}, iceberg.NestedField{Name: name, Type: typ}}
	}
	cases := []struct {
		name  string
		specs [][2]any // PartitionField, NestedField of the result type
		tuple []any
		want  string
	}{
		// Iceberg Java TestPartitionPaths.testPartitionPath.
		{"hour and bucket (Java testPartitionPath)", pf(field("ts_hour", iceberg.HourTransform{}, iceberg.IntType{}), field("id_bucket", iceberg.BucketTransform{N: 10}, iceberg.IntType{})),
			[]any{int32(ts / 3_600_000_000), int32(3)}, "ts_hour=2017-12-01-10/id_bucket=3"},
		// Iceberg Java TestPartitionPaths.testEscapedStrings.
		{"slashes are escaped (Java testEscapedStrings)", pf(field("data", iceberg.IdentityTransform{}, iceberg.StringType{}), field("data_trunc", iceberg.TruncateTransform{Width: 10}, iceberg.StringType{})),
			[]any{"a/b/c/d", "a/b/c/d"}, "data=a%2Fb%2Fc%2Fd/data_trunc=a%2Fb%2Fc%2Fd"},
		// PyIceberg test_partition_spec_to_path, which follows Java.
		{"names and values form-encoded (PyIceberg)", pf(field("my#str%bucket", iceberg.TruncateTransform{Width: 19}, iceberg.StringType{}), field("other str+bucket", iceberg.IdentityTransform{}, iceberg.StringType{}), field("my!int:bucket", iceberg.BucketTransform{N: 25}, iceberg.IntType{})),
			[]any{"my+str", "( )", int32(10)}, "my%23str%25bucket=my%2Bstr/other+str%2Bbucket=%28+%29/my%21int%3Abucket=10"},
		{"year, month, day", pf(field("y", iceberg.YearTransform{}, iceberg.IntType{}), field("m", iceberg.MonthTransform{}, iceberg.IntType{}), field("d", iceberg.DayTransform{}, iceberg.DateType{})),
			[]any{int32(47), int32(47*12 + 10), day}, "y=2017/m=2017-11/d=2017-11-16"},
		{"months before 1970", pf(field("m", iceberg.MonthTransform{}, iceberg.IntType{})), []any{int32(-1)}, "m=1969-12"},
		{"null", pf(field("data", iceberg.IdentityTransform{}, iceberg.StringType{})), []any{nil}, "data=null"},
		// Strings printed by Iceberg Java 1.12 (javaref partitionpaths).
		{"identity timestamp", pf(field("ts", iceberg.IdentityTransform{}, iceberg.TimestampType{})), []any{ts}, "ts=2017-12-01T10%3A12%3A55.038194"},
		{"identity timestamptz ends in +00:00", pf(field("ts", iceberg.IdentityTransform{}, iceberg.TimestampTzType{})), []any{ts}, "ts=2017-12-01T10%3A12%3A55.038194%2B00%3A00"},
		{"whole minutes keep the seconds", pf(field("ts", iceberg.IdentityTransform{}, iceberg.TimestampType{})), []any{int64(60_000_000)}, "ts=1970-01-01T00%3A01%3A00"},
		{"fractions lose trailing zeros", pf(field("ts", iceberg.IdentityTransform{}, iceberg.TimestampTzType{}), field("n", iceberg.IdentityTransform{}, iceberg.TimestampNsType{})), []any{int64(120_000), int64(100_000_000)}, "ts=1970-01-01T00%3A00%3A00.12%2B00%3A00/n=1970-01-01T00%3A00%3A00.1"},
		{"identity time is LocalTime.toString", pf(field("t", iceberg.IdentityTransform{}, iceberg.TimeType{})), []any{int64(3_600_000_001)}, "t=01%3A00%3A00.000001"},
		{"identity date", pf(field("d", iceberg.IdentityTransform{}, iceberg.DateType{})), []any{day}, "d=2017-11-16"},
		{"decimal", pf(field("x", iceberg.IdentityTransform{}, iceberg.DecimalType{Precision: 9, Scale: 2})), []any{decimal128.FromI64(-1234)}, "x=-12.34"},
		{"small decimal", pf(field("x", iceberg.IdentityTransform{}, iceberg.DecimalType{Precision: 9, Scale: 4})), []any{decimal128.FromI64(5)}, "x=0.0005"},
		{"binary is base64", pf(field("b", iceberg.IdentityTransform{}, iceberg.BinaryType{})), []any{[]byte{0xfb, 0xff}}, "b=%2B%2F8%3D"},
		{"boolean and long", pf(field("b", iceberg.IdentityTransform{}, iceberg.BooleanType{}), field("l", iceberg.IdentityTransform{}, iceberg.LongType{})), []any{true, int64(-5)}, "b=true/l=-5"},
		{"unicode and the characters Java keeps", pf(field("s", iceberg.IdentityTransform{}, iceberg.StringType{})), []any{"é*~_"}, "s=%C3%A9*%7E_"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var spec iceberg.PartitionSpec
			pt := &iceberg.StructType{}
			for _, sf := range c.specs {
				spec.Fields = append(spec.Fields, sf[0].(iceberg.PartitionField))
				pt.Fields = append(pt.Fields, sf[1].(iceberg.NestedField))
			}
			if got := PartitionPath(spec, pt, c.tuple); got != c.want {
				t.Errorf("path %q, want %q", got, c.want)
			}
		})
	}
}

func pf(fields ...[2]any) [][2]any { return fields }

func TestWriterPartitions(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.IntType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "cat", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 3, Name: "ts", Type: iceberg.TimestampType{}},
	)
	spec := iceberg.PartitionSpec{ID: 3, Fields: []iceberg.PartitionField{
		{SourceID: 2, FieldID: 1000, Name: "cat", Transform: iceberg.IdentityTransform{}},
		{SourceID: 1, FieldID: 1001, Name: "id_bucket", Transform: iceberg.BucketTransform{N: 100}},
		{SourceID: 3, FieldID: 1002, Name: "ts_day", Transform: iceberg.DayTransform{}},
	}}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	as, _ := iceberg.ArrowSchema(schema)
	// Spec Appendix B: the hash of int 34 is 2017239379, so bucket[100] is 79.
	batch := fromJSON(t, mem, as, `[
		{"id": 34, "cat": "a b", "ts": 0},
		{"id": 34, "cat": null, "ts": 86400000000},
		{"id": 34, "cat": "a b", "ts": 1},
		{"id": 34, "cat": null, "ts": null}
	]`)
	defer batch.Release()
	fio := fileio.NewMem()
	n := 0
	w, err := New(context.Background(), fio, schema, spec, func(p string) string {
		n++
		return "mem://t/data/" + p + "/" + string(rune('0'+n)) + ".parquet"
	}, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path+" rows="+itoa(f.RecordCount)+" spec="+itoa(int64(f.SpecID)))
		_, tbl := readBack(t, fio, f.Path)
		if tbl.NumRows() != f.RecordCount {
			t.Errorf("%s: read %d rows, recorded %d", f.Path, tbl.NumRows(), f.RecordCount)
		}
		tbl.Release()
		if len(f.Partition) != 3 || f.Partition[1] != int32(79) {
			t.Errorf("%s: partition %v", f.Path, f.Partition)
		}
	}
	sort.Strings(got)
	want := []string{
		"mem://t/data/cat=a+b/id_bucket=79/ts_day=1970-01-01/1.parquet rows=2 spec=3",
		"mem://t/data/cat=null/id_bucket=79/ts_day=1970-01-02/2.parquet rows=1 spec=3",
		"mem://t/data/cat=null/id_bucket=79/ts_day=null/3.parquet rows=1 spec=3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("files\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestWriterRollsAndAborts(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "v", Type: iceberg.LongType{}, Required: true})
	as, _ := iceberg.ArrowSchema(schema)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fio := fileio.NewMem()
	n := 0
	loc := func(string) string { n++; return "mem://t/data/" + itoa(int64(n)) + ".parquet" }
	props := map[string]string{PropTargetFileSize: "20000", PropRowGroupSize: "8000", PropCompressionCodec: "uncompressed"}
	w, err := New(context.Background(), fio, schema, iceberg.PartitionSpec{}, loc, Options{Allocator: mem, Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for b := 0; b < 20; b++ {
		bld := array.NewInt64Builder(mem)
		for i := 0; i < 500; i++ {
			bld.Append(int64(b*500 + i*7919%500)) // distinct, no runs: no compression
		}
		col := bld.NewArray()
		bld.Release()
		rec := array.NewRecordBatch(as, []arrow.Array{col}, 500)
		col.Release()
		if err := w.Write(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		total += 500
	}
	files, err := w.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 10000 longs are 80 kB, so a 20 kB target makes several files.
	if len(files) < 3 {
		t.Fatalf("%d files, want at least 3 at a 20 kB target", len(files))
	}
	var sum int64
	for _, f := range files {
		sum += f.RecordCount
		if len(f.SplitOffsets) < 2 {
			t.Errorf("%s: %d row groups at an 8 kB row group size", f.Path, len(f.SplitOffsets))
		}
	}
	if sum != total {
		t.Errorf("records %d, want %d", sum, total)
	}

	// Abort removes what was written.
	w2, err := New(context.Background(), fio, schema, iceberg.PartitionSpec{}, loc, Options{Allocator: mem, Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	bld := array.NewInt64Builder(mem)
	for i := 0; i < 5000; i++ {
		bld.Append(int64(i))
	}
	col := bld.NewArray()
	bld.Release()
	rec := array.NewRecordBatch(as, []arrow.Array{col}, 5000)
	col.Release()
	for i := 0; i < 3; i++ {
		if err := w2.Write(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	rec.Release()
	if err := w2.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	entries, err := fileio.ReadDir(context.Background(), fio, "mem://t/data")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(files) {
		t.Errorf("after Abort %d files, want the first writer's %d", len(entries), len(files))
	}
}

// TestPartitionCodesMatchTransforms checks the fast paths of the
// partitioner against iceberg.ApplyTransform, value by value, across
// the epoch and for each time unit.
func TestPartitionCodesMatchTransforms(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "us", Type: iceberg.TimestampType{}},
		iceberg.NestedField{ID: 2, Name: "ns", Type: iceberg.TimestampTzNsType{}},
		iceberg.NestedField{ID: 3, Name: "d", Type: iceberg.DateType{}},
		iceberg.NestedField{ID: 4, Name: "s", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 5, Name: "l", Type: iceberg.LongType{}},
	)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	as, _ := iceberg.ArrowSchema(schema)
	rb := array.NewRecordBuilder(mem, as)
	var us []int64
	for _, v := range []int64{-86_400_000_001, -3_600_000_000, -1, 0, 1, 3_599_999_999, 86_400_000_000, 1_700_000_000_123_456, -2_000_000_000_000_000} {
		for _, d := range []int64{0, 1, -1, 31 * 86_400_000_000} {
			us = append(us, v+d)
		}
	}
	for i, v := range us {
		rb.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(v))
		rb.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(v*1000 + int64(i%3) - 1))
		rb.Field(2).(*array.Date32Builder).Append(arrow.Date32(v / 86_400_000_000))
		rb.Field(3).(*array.StringBuilder).Append(strconv.Itoa(i % 4))
		if i%5 == 0 {
			rb.Field(4).AppendNull()
		} else {
			rb.Field(4).(*array.Int64Builder).Append(v % 7)
		}
	}
	rec := rb.NewRecordBatch()
	rb.Release()
	defer rec.Release()
	transforms := []iceberg.Transform{iceberg.YearTransform{}, iceberg.MonthTransform{}, iceberg.DayTransform{}, iceberg.HourTransform{}, iceberg.IdentityTransform{}, iceberg.BucketTransform{N: 7}, iceberg.TruncateTransform{Width: 3}}
	for _, f := range schema.Fields {
		for _, tr := range transforms {
			if !iceberg.CanTransform(tr, f.Type) {
				continue
			}
			spec := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: f.ID, FieldID: 1000, Name: "p", Transform: tr}}}
			p, err := newPartitioner(schema, spec)
			if err != nil {
				t.Fatal(err)
			}
			groups, err := p.groups(rec)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range groups {
				for _, r := range g.rows {
					var want any
					col := rec.Column(f.ID - 1)
					if col.IsValid(int(r)) {
						v, _ := literalAt(col, int(r), f.Type)
						want, _ = iceberg.ApplyTransform(tr, f.Type, v)
					}
					if fmt.Sprint(g.tuple[0]) != fmt.Sprint(want) {
						t.Errorf("%s %v row %d: %v, ApplyTransform gives %v", f.Name, tr, r, g.tuple[0], want)
					}
				}
			}
		}
	}
}

func TestWriterBoundsOpenFiles(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "p", Type: iceberg.IntType{}, Required: true})
	spec := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 1, FieldID: 1000, Name: "p", Transform: iceberg.IdentityTransform{}}}}
	as, _ := iceberg.ArrowSchema(schema)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fio := fileio.NewMem()
	n := 0
	w, err := New(context.Background(), fio, schema, spec, func(p string) string { n++; return "mem://t/" + p + "/" + itoa(int64(n)) + ".parquet" }, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	const parts = maxOpenFiles + 50
	for round := 0; round < 2; round++ {
		b := array.NewInt32Builder(mem)
		for i := 0; i < parts; i++ {
			b.Append(int32(i))
		}
		col := b.NewArray()
		b.Release()
		rec := array.NewRecordBatch(as, []arrow.Array{col}, parts)
		col.Release()
		if err := w.Write(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if len(w.open) > maxOpenFiles {
			t.Fatalf("%d files open, the bound is %d", len(w.open), maxOpenFiles)
		}
	}
	files, err := w.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Round two finds the first 50 partitions closed, and each reopening
	// closes another: every partition ends in two files.
	perPart := map[int32]int64{}
	for _, f := range files {
		perPart[f.Partition[0].(int32)] += f.RecordCount
		if !strings.HasPrefix(f.Path, "mem://t/p="+itoa(int64(f.Partition[0].(int32)))+"/") {
			t.Errorf("%s holds partition %v", f.Path, f.Partition)
		}
	}
	if len(files) != 2*parts || len(perPart) != parts {
		t.Errorf("%d files for %d partitions, want %d", len(files), len(perPart), 2*parts)
	}
	for p, c := range perPart {
		if c != 2 {
			t.Errorf("partition %d: %d rows, want 2", p, c)
		}
	}
}

func TestWriterRollsInsideABatch(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "v", Type: iceberg.LongType{}, Required: true})
	as, _ := iceberg.ArrowSchema(schema)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	n := 0
	w, err := New(context.Background(), fileio.NewMem(), schema, iceberg.PartitionSpec{}, func(string) string { n++; return "mem://t/" + itoa(int64(n)) },
		Options{Allocator: mem, Properties: map[string]string{PropTargetFileSize: "100000", PropCompressionCodec: "uncompressed"}})
	if err != nil {
		t.Fatal(err)
	}
	const rows = 4 * sliceRows // 2 MiB of longs in one batch
	b := array.NewInt64Builder(mem)
	for i := 0; i < rows; i++ {
		b.Append(int64(i) * 7919)
	}
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(as, []arrow.Array{col}, rows)
	col.Release()
	defer rec.Release()
	if err := w.Write(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, f := range files {
		sum += f.RecordCount
	}
	if len(files) != 4 || sum != rows {
		t.Errorf("%d files with %d rows, want one file per %d-row slice", len(files), sum, sliceRows)
	}
}

func TestPartitionValuesOutliveTheBatch(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "s", Type: iceberg.StringType{}})
	as, _ := iceberg.ArrowSchema(schema)
	for _, tr := range []iceberg.Transform{iceberg.IdentityTransform{}, iceberg.TruncateTransform{Width: 3}} {
		spec := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: 1, FieldID: 1000, Name: "p", Transform: tr}}}
		w, err := New(context.Background(), fileio.NewMem(), schema, spec, func(p string) string { return "mem://t/" + p }, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.Append("abcdef")
		col := b.NewArray()
		b.Release()
		rec := array.NewRecordBatch(as, []arrow.Array{col}, 1)
		col.Release()
		if err := w.Write(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		// Overwrite the batch's bytes: the tuple must not share them.
		data := rec.Column(0).Data().Buffers()[2].Bytes()
		for i := range data {
			data[i] = 'z'
		}
		rec.Release()
		files, err := w.Close(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := "abcdef"
		if _, trunc := tr.(iceberg.TruncateTransform); trunc {
			want = "abc"
		}
		if got := files[0].Partition[0]; got != want {
			t.Errorf("%v: partition %v, want %s", tr, got, want)
		}
	}
}
