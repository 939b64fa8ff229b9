package reader

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// posEntry is one row of a position delete file.
type posEntry struct {
	path string
	pos  int64
}

// posDeleteFile writes a position delete file (spec: Position Delete
// Files), sorted by file_path then pos as the spec requires, in row groups
// of rowGroup rows.
func posDeleteFile(t *testing.T, entries []posEntry, rowGroup int64) []byte {
	t.Helper()
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].path != entries[j].path {
			return entries[i].path < entries[j].path
		}
		return entries[i].pos < entries[j].pos
	})
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "file_path", Type: arrow.BinaryTypes.String, Metadata: fid(iceberg.FieldIDDeleteFilePath)},
		{Name: "pos", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(iceberg.FieldIDDeletePosition)},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, e := range entries {
		b.Field(0).(*array.StringBuilder).Append(e.path)
		b.Field(1).(*array.Int64Builder).Append(e.pos)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return writeRecord(t, rec, rowGroup)
}

func posDelete(path string) *scantask.DeleteFile {
	return &scantask.DeleteFile{Path: path, Format: scantask.Parquet, Kind: scantask.PositionDeletes}
}

// recorded is the data file path as the test's metadata records it; the
// file is read from "seq.parquet".
const recorded = "s3://bucket/t/data/seq.parquet"

func seqTask() *scantask.Task {
	task := parquetTask("seq.parquet")
	task.FilePath = recorded
	return task
}

// seqRows returns the values of "i" (which equal file positions in
// seqFile) and of _pos, checking that they agree.
func seqRows(t *testing.T, rows []map[string]any) []int64 {
	t.Helper()
	var out []int64
	for _, r := range rows {
		i := int64(r["i"].(float64))
		if p, ok := r["_pos"]; ok && int64(p.(float64)) != i {
			t.Fatalf("row i=%d has _pos %v", i, p)
		}
		out = append(out, i)
	}
	return out
}

func rangeWithout(lo, hi int64, deleted map[int64]bool) []int64 {
	var out []int64
	for i := lo; i < hi; i++ {
		if !deleted[i] {
			out = append(out, i)
		}
	}
	return out
}

func TestPositionDeletes(t *testing.T) {
	t.Parallel()
	data := seqFile(t, 1000, 100) // row groups of 100 rows; i is the position
	deleted := map[int64]bool{0: true, 5: true, 99: true, 100: true, 101: true, 250: true, 299: true, 300: true, 700: true, 799: true, 999: true}
	var entries []posEntry
	for p := range deleted {
		entries = append(entries, posEntry{recorded, p})
	}
	// Entries for other files, and for this file spelled another way, which
	// Iceberg Java does not match either.
	entries = append(entries,
		posEntry{"s3://bucket/t/data/other.parquet", 1}, posEntry{"s3://bucket/t/data/other.parquet", 2},
		posEntry{"s3a://bucket/t/data/seq.parquet", 3}, posEntry{"s3://bucket/t/data/seq.parquet.bak", 4},
		posEntry{"s3://bucket/t/data/zzz.parquet", 6})
	files := memIO{"seq.parquet": data, "del.parquet": posDeleteFile(t, entries, 4)}
	schema := schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"},
		{"id":2147483645,"name":"_pos","required":true,"type":"long"}]`)

	tests := []struct {
		name      string
		rowGroups []int32
		batchSize int
		deletes   []*scantask.DeleteFile
		want      []int64
	}{
		{name: "positions across batch and row-group boundaries", batchSize: 64,
			deletes: []*scantask.DeleteFile{posDelete("del.parquet")}, want: rangeWithout(0, 1000, deleted)},
		{name: "positions stay right when row groups are skipped", rowGroups: []int32{2, 7}, batchSize: 64,
			deletes: []*scantask.DeleteFile{posDelete("del.parquet")},
			want:    append(rangeWithout(200, 300, deleted), rangeWithout(700, 800, deleted)...)},
		{name: "a batch whose every row is deleted is not emitted", rowGroups: []int32{0}, batchSize: 1,
			deletes: []*scantask.DeleteFile{posDelete("del.parquet")}, want: rangeWithout(0, 100, deleted)},
		{name: "a delete file that references another data file is ignored", batchSize: 500,
			deletes: []*scantask.DeleteFile{func() *scantask.DeleteFile {
				d := posDelete("del.parquet")
				d.ReferencedDataFile = "s3://bucket/t/data/other.parquet"
				return d
			}()}, want: rangeWithout(0, 1000, nil)},
		{name: "a delete file that references this data file applies", batchSize: 500,
			deletes: []*scantask.DeleteFile{func() *scantask.DeleteFile {
				d := posDelete("del.parquet")
				d.ReferencedDataFile = recorded
				return d
			}()}, want: rangeWithout(0, 1000, deleted)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(files, WithAllocator(mem), WithBatchSize(tc.batchSize))
			task := seqTask()
			task.RowGroups = tc.rowGroups
			task.Deletes = tc.deletes
			res := readAll(t, r, Scan{Schema: schema}, task)
			if res.err != nil {
				t.Fatal(res.err)
			}
			if got := seqRows(t, res.rows); !equalInts(got, tc.want) {
				t.Errorf("rows %v\nwant %v", got, tc.want)
			}
		})
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// eqRow is one row of the equality delete tests.
type eqRow struct {
	id    int32
	name  *string
	score *float64
}

func str(s string) *string            { return &s }
func flt(f float64) *float64          { return &f }
func nanWithPayload(p uint64) float64 { return math.Float64frombits(0x7ff8000000000000 | p) }

// eqFile writes rows of (id 1 int, name 2 string, score 3 double), only
// the columns whose ids are listed.
func eqFile(t *testing.T, rows []eqRow, ids ...int) []byte {
	t.Helper()
	all := map[int]arrow.Field{
		1: {Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: fid(1)},
		2: {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(2)},
		3: {Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true, Metadata: fid(3)},
	}
	var fields []arrow.Field
	for _, id := range ids {
		fields = append(fields, all[id])
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		for c, id := range ids {
			switch fb := b.Field(c).(type) {
			case *array.Int32Builder:
				fb.Append(r.id)
			case *array.StringBuilder:
				if r.name == nil {
					fb.AppendNull()
				} else {
					fb.Append(*r.name)
				}
			case *array.Float64Builder:
				if r.score == nil {
					fb.AppendNull()
				} else {
					fb.Append(*r.score)
				}
			default:
				t.Fatalf("column %d", id)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return writeRecord(t, rec, 3)
}

func eqDelete(path string, ids ...int32) *scantask.DeleteFile {
	return &scantask.DeleteFile{Path: path, Format: scantask.Parquet,
		Kind: scantask.EqualityDeletes, EqualityIDs: ids}
}

func ids(rows []map[string]any) []int64 {
	var out []int64
	for _, r := range rows {
		out = append(out, int64(r["id"].(float64)))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func TestEqualityDeletes(t *testing.T) {
	t.Parallel()
	data := eqFile(t, []eqRow{
		{1, str("a"), flt(1)},
		{2, nil, flt(2)},
		{3, nil, nil},
		{4, str("b"), flt(math.NaN())},
		{5, str("c"), flt(math.Copysign(0, -1))},
		{6, str("c"), flt(0)},
		{7, str("a"), flt(2)},
		{8, str("b"), nil},
	}, 1, 2, 3)
	files := memIO{
		"data.parquet": data,
		// (name, score) keys: null equals null, every NaN equals every NaN,
		// and -0.0 differs from 0.0, as Java's StructLikeSet compares.
		"name_score.parquet": eqFile(t, []eqRow{
			{0, str("a"), flt(1)}, {0, nil, flt(2)}, {0, nil, nil}, {0, str("b"), flt(nanWithPayload(12345))}, {0, str("c"), flt(0)},
		}, 2, 3),
		"id.parquet": eqFile(t, []eqRow{{id: 7}, {id: 100}}, 1),
	}
	table := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.IntType{}},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 3, Name: "score", Type: iceberg.DoubleType{}},
	)
	onlyID := iceberg.NewSchema(0, table.Fields[0])
	tests := []struct {
		name    string
		schema  *iceberg.Schema
		deletes []*scantask.DeleteFile
		want    []int64
	}{
		{"a two-column key matches nulls, NaNs and exact values", table,
			[]*scantask.DeleteFile{eqDelete("name_score.parquet", 2, 3)}, []int64{5, 7, 8}},
		{"key columns are read even when not projected", onlyID,
			[]*scantask.DeleteFile{eqDelete("name_score.parquet", 2, 3)}, []int64{5, 7, 8}},
		{"delete files with different keys all apply", onlyID,
			[]*scantask.DeleteFile{eqDelete("name_score.parquet", 2, 3), eqDelete("id.parquet", 1)}, []int64{5, 8}},
		{"key order follows equality_ids", table,
			[]*scantask.DeleteFile{eqDelete("name_score.parquet", 3, 2)}, []int64{5, 7, 8}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(files, WithAllocator(mem), WithBatchSize(3))
			task := parquetTask("data.parquet")
			task.Deletes = tc.deletes
			res := readAll(t, r, Scan{Schema: tc.schema, EqualitySchema: table}, task)
			if res.err != nil {
				t.Fatal(res.err)
			}
			if got := ids(res.rows); !equalInts(got, tc.want) {
				t.Errorf("ids %v, want %v", got, tc.want)
			}
			if len(res.rows) > 0 && len(res.rows[0]) != len(tc.schema.Fields) {
				t.Errorf("row %v has other columns than %v", res.rows[0], tc.schema)
			}
		})
	}
}

func TestEqualityDeletesEvolvedKeys(t *testing.T) {
	t.Parallel()
	// The data file stores "n" (id 2) as int; the table now has it as long,
	// and the delete file wrote long. Column 9 was dropped from the table
	// after the delete was written: the equality schema still has it.
	dataSchema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Metadata: fid(1)},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: fid(2)},
		{Name: "gone", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(9)},
	}, nil)
	data := writeParquet(t, dataSchema, `[{"id":1,"n":10,"gone":"x"},{"id":2,"n":20,"gone":"y"},{"id":3,"n":null,"gone":"z"},{"id":4,"n":40,"gone":null}]`, 10)
	nDel := writeParquet(t, arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(2)}}, nil),
		`[{"n":20},{"n":3000000000}]`, 10)
	goneDel := writeParquet(t, arrow.NewSchema([]arrow.Field{{Name: "gone", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(9)}}, nil),
		`[{"gone":null},{"gone":"z"}]`, 10)
	files := memIO{"data.parquet": data, "n.parquet": nDel, "gone.parquet": goneDel}
	schema := schemaOf(t, `[{"id":1,"name":"id","required":true,"type":"int"},{"id":2,"name":"n","required":false,"type":"long"}]`)
	eq := schemaOf(t, `[{"id":2,"name":"n","required":false,"type":"long"},{"id":9,"name":"gone","required":false,"type":"string"}]`)
	mem := checkedAlloc(t)
	r := New(files, WithAllocator(mem))
	task := parquetTask("data.parquet")
	task.Deletes = []*scantask.DeleteFile{eqDelete("n.parquet", 2), eqDelete("gone.parquet", 9)}
	res := readAll(t, r, Scan{Schema: schema, EqualitySchema: eq}, task)
	if res.err != nil {
		t.Fatal(res.err)
	}
	if got := ids(res.rows); !equalInts(got, []int64{1}) {
		t.Errorf("ids %v, want [1]", got)
	}
}

func TestEqualityDeleteUnknownField(t *testing.T) {
	t.Parallel()
	mem := checkedAlloc(t)
	r := New(memIO{"seq.parquet": seqFile(t, 10, 10)}, WithAllocator(mem))
	task := seqTask()
	task.Deletes = []*scantask.DeleteFile{eqDelete("d.parquet", 42)}
	err := r.Read(context.Background(), Scan{Schema: schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)}, task,
		func(arrow.RecordBatch) error { return nil })
	if !errors.Is(err, ErrInvalidTask) || !strings.Contains(err.Error(), "d.parquet") {
		t.Fatalf("err = %v, want ErrInvalidTask naming the delete file", err)
	}
}

func TestNoDeletesPassBatchesThrough(t *testing.T) {
	t.Parallel()
	// Delete files that name other data files leave nothing to apply: the
	// source's batches are emitted as they are.
	files := memIO{"seq.parquet": seqFile(t, 100, 50), "del.parquet": posDeleteFile(t, []posEntry{{"other", 1}}, 10)}
	mem := checkedAlloc(t)
	r := New(files, WithAllocator(mem), WithBatchSize(40))
	task := seqTask()
	task.Deletes = []*scantask.DeleteFile{posDelete("del.parquet")}
	res := readAll(t, r, Scan{Schema: schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)}, task)
	if res.err != nil || len(res.rows) != 100 {
		t.Fatalf("%d rows, err %v", len(res.rows), res.err)
	}
	if want := []int{40, 10, 40, 10}; !bytes.Equal(intsBytes(res.batches), intsBytes(want)) {
		t.Errorf("batches %v, want %v (one row group at a time)", res.batches, want)
	}
}

func intsBytes(v []int) []byte {
	var b []byte
	for _, x := range v {
		b = binary.AppendVarint(b, int64(x))
	}
	return b
}

func TestEqualityDeleteOnNestedField(t *testing.T) {
	t.Parallel()
	// Spec: equality ids may name fields nested in structs. A row whose
	// struct is null has a null key field, which a null in the delete
	// file matches.
	s := func(extra ...arrow.Field) arrow.Field {
		return arrow.Field{Name: "s", Type: arrow.StructOf(append([]arrow.Field{
			{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(12)}}, extra...)...), Nullable: true, Metadata: fid(10)}
	}
	data := writeParquet(t, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Metadata: fid(1)},
		s(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: fid(11)}),
	}, nil), `[{"id":1,"s":{"b":"x","a":1}},{"id":2,"s":{"b":"y","a":2}},{"id":3,"s":null},{"id":4,"s":{"b":null,"a":4}},{"id":5,"s":{"b":"z","a":5}}]`, 10)
	del := writeParquet(t, arrow.NewSchema([]arrow.Field{s()}, nil), `[{"s":{"b":"y"}},{"s":{"b":null}}]`, 10)
	schema := schemaOf(t, `[{"id":1,"name":"id","required":true,"type":"int"},
		{"id":10,"name":"s","required":false,"type":{"type":"struct","fields":[
			{"id":11,"name":"a","required":false,"type":"int"},{"id":12,"name":"b","required":false,"type":"string"}]}}]`)
	mem := checkedAlloc(t)
	r := New(memIO{"data.parquet": data, "del.parquet": del}, WithAllocator(mem))
	// An equality schema that lists the nested field at its top level
	// still finds it in its struct when the projection has the struct.
	flat := iceberg.NewSchema(0, iceberg.NestedField{ID: 12, Name: "b", Type: iceberg.StringType{}})
	for _, tc := range []struct {
		projected, equality *iceberg.Schema
	}{
		{schema, schema},
		{iceberg.NewSchema(0, schema.Fields[0]), schema},
		{schema, flat},
	} {
		task := parquetTask("data.parquet")
		task.Deletes = []*scantask.DeleteFile{eqDelete("del.parquet", 12)}
		res := readAll(t, r, Scan{Schema: tc.projected, EqualitySchema: tc.equality}, task)
		if res.err != nil {
			t.Fatal(res.err)
		}
		if got := ids(res.rows); !equalInts(got, []int64{1, 5}) {
			t.Errorf("projecting %d columns, equality schema %s: ids %v, want [1 5]", len(tc.projected.Fields), tc.equality, got)
		}
	}
}
