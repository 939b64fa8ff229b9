package iceberg

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const v1Metadata = `{
  "format-version": 1, "table-uuid": "u", "location": "/w/t", "last-updated-ms": 1, "last-column-id": 2,
  "schema": {"type": "struct", "fields": [
    {"id": 1, "name": "id", "required": true, "type": "long"},
    {"id": 2, "name": "d", "required": false, "type": "date"}]},
  "partition-spec": [{"name": "d", "transform": "identity", "source-id": 2}],
  "properties": {"k": "v"},
  "current-snapshot-id": 10,
  "snapshots": [{"snapshot-id": 10, "timestamp-ms": 100, "manifests": ["/w/t/metadata/m1.avro"]}]
}`

const v2Metadata = `{
  "format-version": 2, "table-uuid": "u", "location": "s3://b/t", "last-sequence-number": 2,
  "last-updated-ms": 1, "last-column-id": 3, "current-schema-id": 1,
  "schemas": [
    {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "required": true, "type": "long"}]},
    {"type": "struct", "schema-id": 1, "identifier-field-ids": [1], "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long"},
      {"id": 3, "name": "tags", "required": false, "type": {"type": "map", "key-id": 4, "key": "string", "value-id": 5, "value": "decimal(9, 2)", "value-required": false}}]}],
  "default-spec-id": 1, "last-partition-id": 1001,
  "partition-specs": [{"spec-id": 0, "fields": []}, {"spec-id": 1, "fields": [{"name": "b", "transform": "bucket[16]", "source-id": 1, "field-id": 1000}]}],
  "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
  "current-snapshot-id": 20,
  "refs": {"main": {"snapshot-id": 20, "type": "branch"}, "v1": {"snapshot-id": 10, "type": "tag"}},
  "snapshots": [
    {"snapshot-id": 10, "sequence-number": 1, "timestamp-ms": 1000, "manifest-list": "s3://b/t/metadata/snap-10.avro", "schema-id": 0, "summary": {"operation": "append"}},
    {"snapshot-id": 20, "parent-snapshot-id": 10, "sequence-number": 2, "timestamp-ms": 2000, "manifest-list": "s3://b/t/metadata/snap-20.avro", "schema-id": 1, "summary": {"operation": "overwrite"}}],
  "snapshot-log": [{"timestamp-ms": 1000, "snapshot-id": 10}, {"timestamp-ms": 2000, "snapshot-id": 20}],
  "metadata-log": []
}`

func TestParseMetadata(t *testing.T) {
	t.Parallel()
	md, err := ParseMetadata([]byte(v1Metadata))
	if err != nil {
		t.Fatal(err)
	}
	if md.FormatVersion != 1 || len(md.Schemas) != 1 || md.CurrentSchema().Fields[1].Name != "d" {
		t.Fatalf("v1 schema not read: %+v", md)
	}
	spec, _ := md.SpecByID(0)
	if len(spec.Fields) != 1 || spec.Fields[0].FieldID != 1000 || spec.Fields[0].Transform != (IdentityTransform{}) {
		t.Fatalf("v1 partition-spec: %+v", spec)
	}
	if s := md.CurrentSnapshot(); s == nil || len(s.Manifests) != 1 || md.Refs["main"].SnapshotID != 10 {
		t.Fatalf("v1 snapshot with manifests list and implied main branch: %+v %+v", s, md.Refs)
	}

	md, err = ParseMetadata([]byte(v2Metadata))
	if err != nil {
		t.Fatal(err)
	}
	if md.CurrentSchema().ID != 1 || md.DefaultSpecID != 1 {
		t.Fatalf("current schema/spec: %d %d", md.CurrentSchema().ID, md.DefaultSpecID)
	}
	f, ok := md.CurrentSchema().FieldByID(5)
	if !ok || f.Type != (DecimalType{9, 2}) {
		t.Fatalf("map value field 5: %+v", f)
	}
	spec, _ = md.SpecByID(1)
	if spec.Fields[0].Transform != (BucketTransform{N: 16}) {
		t.Fatalf("bucket transform: %v", spec.Fields[0].Transform)
	}
}

func TestSnapshotSelection(t *testing.T) {
	t.Parallel()
	md, err := ParseMetadata([]byte(v2Metadata))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		ts   int64
		want int64
		err  error
	}{
		{"before the first snapshot there is none", 999, 0, ErrSnapshotNotFound},
		{"exactly at a snapshot's time selects it", 1000, 10, nil},
		{"between snapshots selects the earlier", 1999, 10, nil},
		{"after the last selects the last", 5000, 20, nil},
	}
	for _, tc := range cases {
		s, err := md.SnapshotAsOf(tc.ts)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: err %v", tc.name, err)
			}
			continue
		}
		if err != nil || s.SnapshotID != tc.want {
			t.Errorf("%s: got %v %v, want %d", tc.name, s, err, tc.want)
		}
	}
	s, ref, err := md.Ref("v1")
	if err != nil || s.SnapshotID != 10 || ref.Type != RefTag || md.SnapshotSchema(s).ID != 0 {
		t.Fatalf("tag v1: %v %v %v", s, ref, err)
	}
	if _, _, err := md.Ref("nope"); !errors.Is(err, ErrSnapshotNotFound) {
		t.Fatalf("unknown ref: %v", err)
	}
}

func TestEmptyTableAndVersions(t *testing.T) {
	t.Parallel()
	base := `{"format-version": 2, "location": "/t", "last-column-id": 1, "current-schema-id": 0,
	  "schemas": [{"type": "struct", "schema-id": 0, "fields": []}], "partition-specs": [{"spec-id": 0, "fields": []}]`
	for name, tail := range map[string]string{
		"absent":  `}`,
		"null":    `, "current-snapshot-id": null}`,
		"minus 1": `, "current-snapshot-id": -1}`,
	} {
		md, err := ParseMetadata([]byte(base + tail))
		if err != nil || md.CurrentSnapshot() != nil {
			t.Errorf("current-snapshot-id %s: %v %v", name, md, err)
		}
	}
	_, err := ParseMetadata([]byte(strings.Replace(base, `"format-version": 2`, `"format-version": 4`, 1) + "}"))
	if !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(err.Error(), "format-version 4") {
		t.Fatalf("format-version 4: %v", err)
	}
}

func TestParseGzipMetadata(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(v2Metadata))
	zw.Close()
	md, err := ParseMetadata(buf.Bytes())
	if err != nil || md.FormatVersion != 2 {
		t.Fatalf("gzip metadata: %v", err)
	}
}

// TestCorpusMetadata parses every metadata file of the conformance corpus.
func TestCorpusMetadata(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "conformance", "tables", "*", "metadata", "*.metadata.json*"))
	if len(files) == 0 {
		t.Skip("conformance corpus not found at ../../shared/conformance: skipping")
	}
	versions := map[int]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		md, err := ParseMetadata(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		versions[md.FormatVersion]++
		for _, s := range md.Schemas {
			if _, err := ArrowSchema(s); err != nil {
				t.Errorf("%s schema %d: %v", f, s.ID, err)
			}
		}
	}
	if versions[1] == 0 || versions[2] == 0 || versions[3] == 0 {
		t.Errorf("expected v1, v2 and v3 metadata in the corpus, got %v", versions)
	}
}
