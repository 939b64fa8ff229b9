package reader

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

func metadataField(t *testing.T, name string) iceberg.NestedField {
	t.Helper()
	f, ok := iceberg.MetadataColumn(name)
	if !ok {
		t.Fatalf("no metadata column %s", name)
	}
	return f
}

func TestMetadataColumns(t *testing.T) {
	t.Parallel()
	// A v3 data file that stores row lineage for some rows (as a compaction
	// writes it) and leaves it null for the others, which inherit
	// (spec: Row Lineage).
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(1)},
		{Name: "_row_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: fid(iceberg.FieldIDRowID)},
		{Name: "_last_updated_sequence_number", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: fid(iceberg.FieldIDLastUpdatedSequenceNumber)},
	}, nil)
	data := writeParquet(t, sc, `[
		{"i":0,"_row_id":500,"_last_updated_sequence_number":3},
		{"i":1,"_row_id":null,"_last_updated_sequence_number":null},
		{"i":2,"_row_id":null,"_last_updated_sequence_number":4},
		{"i":3,"_row_id":501,"_last_updated_sequence_number":null}]`, 2)
	files := memIO{
		"data.parquet":  data,
		"plain.parquet": writeParquet(t, arrow.NewSchema(sc.Fields()[:1], nil), `[{"i":0},{"i":1},{"i":2}]`, 10),
		"del.parquet":   posDeleteFile(t, []posEntry{{recorded, 1}}, 10),
	}
	partition := metadataField(t, "_file")
	partition.ID, partition.Name, partition.Required = iceberg.FieldIDPartition, "_partition", false
	partition.Type = &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 1000, Name: "day", Type: iceberg.DateType{}},
		{ID: 1001, Name: "cat", Type: iceberg.StringType{}},
		{ID: 1002, Name: "bucket", Type: iceberg.IntType{}},
	}}
	deleted := metadataField(t, "_file")
	deleted.ID, deleted.Name, deleted.Type = iceberg.FieldIDIsDeleted, "_deleted", iceberg.BooleanType{}
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "i", Type: iceberg.LongType{}, Required: true},
		metadataField(t, "_file"), metadataField(t, "_pos"), metadataField(t, "_spec_id"), partition,
		metadataField(t, "_row_id"), metadataField(t, "_last_updated_sequence_number"), deleted,
	)
	first := int64(1000)
	task := func(path string, firstRowID *int64) *scantask.Task {
		return &scantask.Task{Path: path, FilePath: recorded, Format: scantask.Parquet,
			SpecID: 3, DataSequenceNumber: 7, FirstRowID: firstRowID, PartitionJSON: `{"day":19000,"cat":"x"}`}
	}
	withDeletes := task("data.parquet", &first)
	withDeletes.Deletes = []*scantask.DeleteFile{posDelete("del.parquet")}
	tests := []struct {
		name string
		task *scantask.Task
		want string
	}{
		{"stored lineage wins, null lineage inherits; positions skip deleted rows", withDeletes, `[
			{"i":0,"_file":"s3://bucket/t/data/seq.parquet","_pos":0,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":500,"_last_updated_sequence_number":3,"_deleted":false},
			{"i":2,"_file":"s3://bucket/t/data/seq.parquet","_pos":2,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":1002,"_last_updated_sequence_number":4,"_deleted":false},
			{"i":3,"_file":"s3://bucket/t/data/seq.parquet","_pos":3,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":501,"_last_updated_sequence_number":7,"_deleted":false}]`},
		{"a file without lineage columns inherits them all", task("plain.parquet", &first), `[
			{"i":0,"_file":"s3://bucket/t/data/seq.parquet","_pos":0,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":1000,"_last_updated_sequence_number":7,"_deleted":false},
			{"i":1,"_file":"s3://bucket/t/data/seq.parquet","_pos":1,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":1001,"_last_updated_sequence_number":7,"_deleted":false},
			{"i":2,"_file":"s3://bucket/t/data/seq.parquet","_pos":2,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":1002,"_last_updated_sequence_number":7,"_deleted":false}]`},
		// Iceberg Java reads null lineage for a file with no first_row_id,
		// whatever the file stores.
		{"a file without first_row_id has null lineage", task("data.parquet", nil), `[
			{"i":0,"_file":"s3://bucket/t/data/seq.parquet","_pos":0,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":null,"_last_updated_sequence_number":null,"_deleted":false},
			{"i":1,"_file":"s3://bucket/t/data/seq.parquet","_pos":1,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":null,"_last_updated_sequence_number":null,"_deleted":false},
			{"i":2,"_file":"s3://bucket/t/data/seq.parquet","_pos":2,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":null,"_last_updated_sequence_number":null,"_deleted":false},
			{"i":3,"_file":"s3://bucket/t/data/seq.parquet","_pos":3,"_spec_id":3,"_partition":{"day":"2022-01-08","cat":"x","bucket":null},"_row_id":null,"_last_updated_sequence_number":null,"_deleted":false}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(files, WithAllocator(mem), WithBatchSize(3))
			res := readAll(t, r, Scan{Schema: schema}, tc.task)
			if res.err != nil {
				t.Fatal(res.err)
			}
			if got, want := toJSON(t, res.rows), toJSON(t, jsonRows(t, tc.want)); got != want {
				t.Errorf("rows\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestPartitionValue(t *testing.T) {
	t.Parallel()
	st := &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 1000, Name: "day", Type: iceberg.DateType{}},
		{ID: 1001, Name: "ts_hour", Type: iceberg.IntType{}},
		{ID: 1002, Name: "amount", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
		{ID: 1003, Name: "b", Type: iceberg.BinaryType{}},
		{ID: 1004, Name: "other", Type: iceberg.LongType{}},
	}}
	tests := []struct {
		name, json string
	}{
		// Spec: JSON single-value serialization (Appendix D).
		{"the spec's JSON single values", `{"day":"2022-01-08","ts_hour":458000,"amount":"12.34","b":"0aff"}`},
		{"dates as day numbers", `{"day":19000,"ts_hour":458000,"amount":"12.34","b":"0aff"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := partitionValue(st, &scantask.Task{Path: "f", PartitionJSON: tc.json})
			if err != nil {
				t.Fatal(err)
			}
			if got[1000] != int32(19000) || got[1001] != int32(458000) || got[1002] != decimal128.FromI64(1234) || toJSON(t, got[1003]) != `"Cv8="` {
				t.Errorf("values %v", got)
			}
			if v, ok := got[1004]; ok || v != nil {
				t.Errorf("a field the spec lacks is %v, want absent", v)
			}
		})
	}
}

// taggedIO serves memIO's files as a store that answers with an entity
// tag and a modification time.
type taggedIO struct {
	memIO
	info fileio.Info
}

type taggedFile struct {
	fileio.File
	info fileio.Info
}

func (f taggedFile) Info() fileio.Info { return f.info }

func (m taggedIO) Open(ctx context.Context, loc string) (fileio.File, error) {
	f, err := m.memIO.Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	return taggedFile{f, m.info}, nil
}

func TestStorageColumnsAreWhatTheStoreSays(t *testing.T) {
	t.Parallel()
	sc := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(1)}}, nil)
	data := writeParquet(t, sc, `[{"i":0},{"i":1},{"i":2}]`, 2)
	dir := t.TempDir()
	local := filepath.Join(dir, "data.parquet")
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	if err := os.Chtimes(local, mod, mod); err != nil {
		t.Fatal(err)
	}
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "i", Type: iceberg.LongType{}, Required: true},
		metadataField(t, "_size"), metadataField(t, "_time"), metadataField(t, "_etag"), metadataField(t, "_pos"))
	tagged := taggedIO{memIO{"data.parquet": data, "del.parquet": posDeleteFile(t, []posEntry{{recorded, 1}}, 10)},
		fileio.Info{ModTime: mod, ETag: `"5d41402abc4b2a76b9719d911017c592"`}}
	withDeletes := &scantask.Task{Path: "data.parquet", FilePath: recorded, Format: scantask.Parquet,
		Deletes: []*scantask.DeleteFile{posDelete("del.parquet")}}
	size := strconv.Itoa(len(data))
	tests := []struct {
		name string
		fio  fileio.FileIO
		task *scantask.Task
		want string
	}{
		{"a local file has a modification time and no entity tag", fileio.NewLocal(),
			&scantask.Task{Path: local, Format: scantask.Parquet}, `[
			{"i":0,"_size":` + size + `,"_time":"2024-05-06T07:08:09.123456Z","_etag":null,"_pos":0},
			{"i":1,"_size":` + size + `,"_time":"2024-05-06T07:08:09.123456Z","_etag":null,"_pos":1},
			{"i":2,"_size":` + size + `,"_time":"2024-05-06T07:08:09.123456Z","_etag":null,"_pos":2}]`},
		{"an object store's answer, with deleted rows left out", tagged, withDeletes, `[
			{"i":0,"_size":` + size + `,"_time":"2024-05-06T07:08:09.123456Z","_etag":"\"5d41402abc4b2a76b9719d911017c592\"","_pos":0},
			{"i":2,"_size":` + size + `,"_time":"2024-05-06T07:08:09.123456Z","_etag":"\"5d41402abc4b2a76b9719d911017c592\"","_pos":2}]`},
		{"a store that tells nothing leaves them null", memIO{"data.parquet": data},
			&scantask.Task{Path: "data.parquet", Format: scantask.Parquet}, `[
			{"i":0,"_size":` + size + `,"_time":null,"_etag":null,"_pos":0},
			{"i":1,"_size":` + size + `,"_time":null,"_etag":null,"_pos":1},
			{"i":2,"_size":` + size + `,"_time":null,"_etag":null,"_pos":2}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(tc.fio, WithAllocator(mem), WithBatchSize(2))
			res := readAll(t, r, Scan{Schema: schema}, tc.task)
			if res.err != nil {
				t.Fatal(res.err)
			}
			if got, want := toJSON(t, res.rows), toJSON(t, jsonRows(t, tc.want)); got != want {
				t.Errorf("rows\n%s\nwant\n%s", got, want)
			}
		})
	}
}
