package manifest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/linkedin/goavro/v2"
)

// Hand-built manifest lists: small Avro container files written in the
// test, to check the spec's inheritance rules one by one.

// listSchema is a v3 manifest_file schema as Iceberg Java writes it, except
// that sequence numbers and added_snapshot_id are nullable; drop removes
// fields by name.
func listSchema(drop ...string) string {
	fields := []string{
		`{"name":"manifest_path","type":"string","field-id":500}`,
		`{"name":"manifest_length","type":"long","field-id":501}`,
		`{"name":"partition_spec_id","type":"int","field-id":502}`,
		`{"name":"content","type":"int","field-id":517}`,
		`{"name":"sequence_number","type":["null","long"],"field-id":515}`,
		`{"name":"min_sequence_number","type":["null","long"],"field-id":516}`,
		`{"name":"added_snapshot_id","type":["null","long"],"field-id":503}`,
		`{"name":"added_files_count","type":"int","field-id":504}`,
		`{"name":"existing_files_count","type":"int","field-id":505}`,
		`{"name":"deleted_files_count","type":"int","field-id":506}`,
		`{"name":"added_rows_count","type":"long","field-id":512}`,
		`{"name":"existing_rows_count","type":"long","field-id":513}`,
		`{"name":"deleted_rows_count","type":"long","field-id":514}`,
		`{"name":"partitions","field-id":507,"type":["null",{"type":"array","element-id":508,"items":{"type":"record","name":"r508","fields":[
			{"name":"contains_null","type":"boolean","field-id":509},
			{"name":"contains_nan","type":["null","boolean"],"field-id":518},
			{"name":"lower_bound","type":["null","bytes"],"field-id":510},
			{"name":"upper_bound","type":["null","bytes"],"field-id":511}]}}]}`,
		`{"name":"key_metadata","type":["null","bytes"],"field-id":519}`,
		`{"name":"first_row_id","type":["null","long"],"field-id":520}`,
	}
	return recordSchema("manifest_file", fields, drop)
}

func listRecord(seq, minSeq, snapshot any) map[string]any {
	return map[string]any{
		"manifest_path": "s3://b/t/metadata/m0.avro", "manifest_length": int64(6000), "partition_spec_id": int32(2),
		"content": int32(1), "sequence_number": avroOpt("long", seq), "min_sequence_number": avroOpt("long", minSeq),
		"added_snapshot_id": avroOpt("long", snapshot),
		"added_files_count": int32(1), "existing_files_count": int32(2), "deleted_files_count": int32(3),
		"added_rows_count": int64(10), "existing_rows_count": int64(20), "deleted_rows_count": int64(30),
		"partitions": goavro.Union("array", []any{
			map[string]any{"contains_null": true, "contains_nan": nil, "lower_bound": avroOpt("bytes", []byte{1}), "upper_bound": avroOpt("bytes", []byte{9})},
			map[string]any{"contains_null": false, "contains_nan": avroOpt("boolean", false), "lower_bound": nil, "upper_bound": nil},
		}),
		"key_metadata": nil, "first_row_id": avroOpt("long", int64(1000)),
	}
}

// v1 lists from old writers name the counts added_data_files_count and so
// on; this one also has no field ids and another record name.
const listSchemaV1 = `{"type":"record","name":"ManifestFile","fields":[
	{"name":"manifest_path","type":"string"},
	{"name":"manifest_length","type":"long"},
	{"name":"partition_spec_id","type":"int"},
	{"name":"added_snapshot_id","type":["null","long"]},
	{"name":"added_data_files_count","type":["null","int"]},
	{"name":"existing_data_files_count","type":["null","int"]},
	{"name":"deleted_data_files_count","type":["null","int"]},
	{"name":"partitions","type":["null",{"type":"array","items":{"type":"record","name":"FieldSummary","fields":[
		{"name":"contains_null","type":"boolean"},
		{"name":"lower_bound","type":["null","bytes"]},
		{"name":"upper_bound","type":["null","bytes"]}]}}]}]}`

func TestReadManifestList(t *testing.T) {
	t.Parallel()
	snap := &iceberg.Snapshot{SnapshotID: 77, SequenceNumber: 12}
	v1rec := map[string]any{
		"manifest_path": "m.avro", "manifest_length": int64(5), "partition_spec_id": int32(0),
		"added_snapshot_id": avroOpt("long", int64(66)), "added_data_files_count": avroOpt("int", int32(4)),
		"existing_data_files_count": nil, "deleted_data_files_count": avroOpt("int", int32(0)), "partitions": nil,
	}
	cases := []struct {
		name     string
		schema   string
		meta     map[string]string
		version  int
		snapshot *iceberg.Snapshot
		rec      map[string]any
		want     [6]int64 // sequence, min sequence, added snapshot, added/existing/deleted files
		wantErr  string
	}{
		{"explicit values are kept", listSchema(), nil, 2, snap,
			listRecord(int64(5), int64(3), int64(55)), [6]int64{5, 3, 55, 1, 2, 3}, ""},
		{"null sequence numbers inherit the snapshot's", listSchema(), nil, 2, snap,
			listRecord(nil, nil, int64(55)), [6]int64{12, 12, 55, 1, 2, 3}, ""},
		{"absent sequence numbers inherit the snapshot's", listSchema("sequence_number", "min_sequence_number"), nil, 3, snap,
			listRecord(nil, nil, int64(55)), [6]int64{12, 12, 55, 1, 2, 3}, ""},
		{"null added_snapshot_id inherits the snapshot id", listSchema(), nil, 2, snap,
			listRecord(int64(5), int64(5), nil), [6]int64{5, 5, 77, 1, 2, 3}, ""},
		{"v1 list: sequence numbers 0, absent counts -1, old names", listSchemaV1, nil, 1, snap,
			v1rec, [6]int64{0, 0, 66, 4, -1, 0}, ""},
		{"list written as v1 in a v2 table reads sequence numbers 0", listSchemaV1, map[string]string{"format-version": "1"}, 2, snap,
			v1rec, [6]int64{0, 0, 66, 4, -1, 0}, ""},
		{"null added_snapshot_id without a snapshot is an error", listSchema(), nil, 2, nil,
			listRecord(int64(5), int64(5), nil), [6]int64{}, "added_snapshot_id is null"},
		{"null sequence number without a snapshot is an error", listSchema(), nil, 2, nil,
			listRecord(nil, int64(5), int64(1)), [6]int64{}, "sequence_number is absent"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw := writeOCF(t, "deflate", tc.schema, tc.meta, tc.rec)
			mfs, err := ReadList(bytes.NewReader(raw), tc.version, tc.snapshot)
			if tc.wantErr != "" {
				if !errors.Is(err, iceberg.ErrInvalidMetadata) || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "manifest list entry 0") {
					t.Fatalf("got error %v, want one about entry 0: %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(mfs) != 1 {
				t.Fatalf("got %d manifests, %v", len(mfs), err)
			}
			mf := mfs[0]
			got := [6]int64{mf.SequenceNumber, mf.MinSequenceNumber, mf.AddedSnapshotID, mf.AddedFilesCount, mf.ExistingFilesCount, mf.DeletedFilesCount}
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadManifestListSummaries(t *testing.T) {
	t.Parallel()
	raw := writeOCF(t, "snappy", listSchema(), nil, listRecord(int64(5), int64(3), int64(55)))
	mfs, err := ReadList(bytes.NewReader(raw), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	no, first := false, int64(1000)
	want := iceberg.ManifestFile{
		Path: "s3://b/t/metadata/m0.avro", Length: 6000, SpecID: 2, Content: iceberg.ManifestContentDeletes,
		SequenceNumber: 5, MinSequenceNumber: 3, AddedSnapshotID: 55,
		AddedFilesCount: 1, ExistingFilesCount: 2, DeletedFilesCount: 3,
		AddedRowsCount: 10, ExistingRowsCount: 20, DeletedRowsCount: 30,
		Partitions: []iceberg.FieldSummary{
			{ContainsNull: true, LowerBound: []byte{1}, UpperBound: []byte{9}},
			{ContainsNaN: &no},
		},
		FirstRowID: &first,
	}
	if !reflect.DeepEqual(mfs[0], want) {
		t.Errorf("got  %+v\nwant %+v", mfs[0], want)
	}
}

func TestManifestMetadataAndDataManifestsFromPaths(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"a.avro": writeOCF(t, "null", entrySchema(""), map[string]string{"partition-spec-id": "3", "format-version": "1", "content": "data"}),
		"b.avro": writeOCF(t, "null", entrySchema(""), nil),
	}
	meta, err := Metadata(bytes.NewReader(files["a.avro"]))
	if err != nil || meta["partition-spec-id"] != "3" || meta["format-version"] != "1" || meta["avro.schema"] != entrySchema("") {
		t.Fatalf("got %v, %v", meta, err)
	}
	open := func(p string) (io.ReadCloser, error) {
		b, ok := files[p]
		if !ok {
			return nil, os.ErrNotExist
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	s := &iceberg.Snapshot{SnapshotID: 9, Manifests: []string{"a.avro", "b.avro"}}
	mfs, err := FromPaths(s, open)
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 2 || mfs[0].SpecID != 3 || mfs[1].SpecID != 0 || mfs[0].AddedSnapshotID != 9 ||
		mfs[1].Path != "b.avro" || mfs[0].AddedFilesCount != -1 || mfs[0].SequenceNumber != 0 {
		t.Errorf("got %+v", mfs)
	}
	s.Manifests = append(s.Manifests, "missing.avro")
	if _, err := FromPaths(s, open); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.avro") {
		t.Errorf("missing manifest: got %v", err)
	}
}

// A list sized by its first block's share of the file reserves about its
// length, and sizes that mean nothing (unknown, damaged) fall back to the
// block's own count.
func TestListSizeHint(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		n            int
		first, total int64
		want         int
	}{
		{"three blocks, the last short", 378, 20_700, 54_700, 1_030},
		{"one block", 100, 15_000, 15_000, 100},
		{"unknown size", 100, 15_000, -1, 100},
		{"an empty first block", 0, 10, 1_000, 0},
		{"a damaged count is capped", 1, 1, 1 << 40, 1 << 10},
	}
	for _, tc := range cases {
		if got := listSizeHint(tc.n, tc.first, tc.total); got != tc.want {
			t.Errorf("%s: listSizeHint(%d, %d, %d) = %d, want %d", tc.name, tc.n, tc.first, tc.total, got, tc.want)
		}
	}
}
