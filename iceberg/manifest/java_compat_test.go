package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// corpus holds tables written by other engines, Iceberg Java among them.
var corpus = filepath.Join("..", "..", "..", "shared", "conformance", "tables")

// javaV3 returns the v3 manifests (or manifest lists) of the corpus; v3
// tables there were written by Iceberg Java 1.10, whose schemas ours must
// equal. (Older v1 and v2 files come from older Java releases, which lack
// fields the spec has added since, such as referenced_data_file.)
func javaV3(t *testing.T, pattern string) map[string]map[string]string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(corpus, "*", "metadata", pattern))
	if len(names) == 0 {
		t.Skipf("no corpus at %s", corpus)
	}
	out := map[string]map[string]string{}
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		md, err := Metadata(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if md["format-version"] == "3" {
			out[filepath.Base(filepath.Dir(filepath.Dir(n)))+"/"+filepath.Base(n)] = md
		}
	}
	if len(out) == 0 {
		t.Skip("no v3 files in the corpus")
	}
	return out
}

// stripDocs removes "doc" attributes, which are informational, and the
// space Java puts in a decimal type's name ("decimal(9, 2)"; our iceberg
// package writes "decimal(9,2)", which the spec's Appendix C shows).
func stripDocs(v any) any {
	switch v := v.(type) {
	case string:
		if strings.HasPrefix(v, "decimal(") {
			return strings.ReplaceAll(v, " ", "")
		}
	case map[string]any:
		delete(v, "doc")
		for k, x := range v {
			v[k] = stripDocs(x)
		}
	case []any:
		for i, x := range v {
			v[i] = stripDocs(x)
		}
	}
	return v
}

func parseJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return stripDocs(v)
}

// specFromHeader rebuilds the partition spec of a manifest's header.
func specFromHeader(t *testing.T, md map[string]string) iceberg.PartitionSpec {
	t.Helper()
	var sp iceberg.PartitionSpec
	if err := json.Unmarshal([]byte(`{"fields":`+md["partition-spec"]+`}`), &sp); err != nil {
		t.Fatal(err)
	}
	sp.ID, _ = strconv.Atoi(md["partition-spec-id"])
	return sp
}

// TestSchemasMatchJava writes an empty manifest for the schema, spec and
// content of each Java-written manifest and compares the Avro schemas
// (docs aside) and Java's "iceberg.schema" key.
func TestSchemasMatchJava(t *testing.T) {
	t.Parallel()
	for name, java := range javaV3(t, "*-m[0-9]*.avro") {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var schema iceberg.Schema
			if err := json.Unmarshal([]byte(java["schema"]), &schema); err != nil {
				t.Fatal(err)
			}
			version, _ := strconv.Atoi(java["format-version"])
			content := iceberg.ManifestContentData
			if java["content"] == "deletes" {
				content = iceberg.ManifestContentDeletes
			}
			var buf bytes.Buffer
			w, err := NewWriter(&buf, WriterOptions{FormatVersion: version, Content: content, Schema: &schema, Spec: specFromHeader(t, java), SnapshotID: 1})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Close(); err != nil {
				t.Fatal(err)
			}
			ours, err := Metadata(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"avro.schema", "iceberg.schema", "schema", "partition-spec"} {
				if got, want := parseJSON(t, ours[key]), parseJSON(t, java[key]); !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n got %s\nwant %s", key, ours[key], java[key])
				}
			}
			for _, key := range []string{"format-version", "partition-spec-id", "content", "avro.codec"} {
				if ours[key] != java[key] {
					t.Errorf("%s = %q, Java wrote %q", key, ours[key], java[key])
				}
			}
		})
	}
}

// TestListSchemasMatchJava compares our v3 manifest list schema with those
// of Java-written manifest lists, and the header keys they share.
func TestListSchemasMatchJava(t *testing.T) {
	t.Parallel()
	for name, java := range javaV3(t, "snap-*.avro") {
		var buf bytes.Buffer
		snap, _ := strconv.ParseInt(java["snapshot-id"], 10, 64)
		seq, _ := strconv.ParseInt(java["sequence-number"], 10, 64)
		first, _ := strconv.ParseInt(java["first-row-id"], 10, 64)
		opts := WriteListOptions{FormatVersion: 3, SnapshotID: snap, SequenceNumber: seq, FirstRowID: first}
		if p, err := strconv.ParseInt(java["parent-snapshot-id"], 10, 64); err == nil {
			opts.ParentID = &p
		}
		if _, err := WriteList(&buf, opts, nil); err != nil {
			t.Fatal(err)
		}
		ours, err := Metadata(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"avro.schema", "iceberg.schema"} {
			if got, want := parseJSON(t, ours[key]), parseJSON(t, java[key]); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s:\n got %s\nwant %s", name, key, ours[key], java[key])
			}
		}
		for _, key := range []string{"snapshot-id", "parent-snapshot-id", "sequence-number", "first-row-id", "format-version", "avro.codec"} {
			if ours[key] != java[key] {
				t.Errorf("%s %s = %q, Java wrote %q", name, key, ours[key], java[key])
			}
		}
	}
}

// TestRewriteJavaManifests reads every manifest of the corpus's current
// snapshots, writes its entries again, and expects the manifest-list
// summary Java (or the engine that wrote it) computed: counts by status,
// partition field summaries and the minimum sequence number; and entries
// that read back as the original's.
func TestRewriteJavaManifests(t *testing.T) {
	t.Parallel()
	lists, _ := filepath.Glob(filepath.Join(corpus, "*", "metadata", "snap-*.avro"))
	if len(lists) == 0 {
		t.Skipf("no corpus at %s", corpus)
	}
	checked := 0
	for _, list := range lists {
		lb, err := os.ReadFile(list)
		if err != nil {
			t.Fatal(err)
		}
		lmd, err := Metadata(bytes.NewReader(lb))
		if err != nil {
			t.Fatal(err)
		}
		version, _ := strconv.Atoi(lmd["format-version"])
		if version < 2 {
			continue // v1 lists may leave counts out
		}
		mfs, err := ReadList(bytes.NewReader(lb), version, nil)
		if err != nil {
			t.Fatalf("%s: %v", list, err)
		}
		for _, mf := range mfs {
			loc := filepath.Join(filepath.Dir(list), filepath.Base(mf.Path))
			mb, err := os.ReadFile(loc)
			if err != nil {
				continue // a manifest the corpus did not keep
			}
			name := filepath.Base(filepath.Dir(filepath.Dir(list))) + "/" + filepath.Base(loc)
			md, err := Metadata(bytes.NewReader(mb))
			if err != nil {
				t.Fatal(err)
			}
			var schema iceberg.Schema
			if err := json.Unmarshal([]byte(md["schema"]), &schema); err != nil {
				t.Fatal(err)
			}
			sp := specFromHeader(t, md)
			part := sp.PartitionType(&schema)
			entries, err := Read(bytes.NewReader(mb), mf, part)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			mv, _ := strconv.Atoi(md["format-version"])
			var buf bytes.Buffer
			w, err := NewWriter(&buf, WriterOptions{FormatVersion: mv, Content: mf.Content, Schema: &schema, Spec: sp, SnapshotID: mf.AddedSnapshotID})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, e := range entries {
				if err := w.Add(e); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			got, err := w.Close()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i, s := range mf.Partitions {
				if s.ContainsNaN == nil && i < len(got.Partitions) {
					got.Partitions[i].ContainsNaN = nil // the writer did not record it
				}
			}
			if got.MinSequenceNumber == 0 {
				// No live entry carries a sequence number: WriteList gives
				// the manifest that of the snapshot that adds it.
				got.MinSequenceNumber = mf.SequenceNumber
			}
			want := mf
			want.Path, want.Length, want.SequenceNumber, want.KeyMetadata, want.FirstRowID = "", got.Length, 0, nil, nil
			if len(want.Partitions) == 0 && len(got.Partitions) == 0 {
				want.Partitions, got.Partitions = nil, nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s summary:\n got %+v\nwant %+v", name, got, want)
			}
			got.Path, got.SequenceNumber, got.FirstRowID = mf.Path, mf.SequenceNumber, mf.FirstRowID
			again, err := Read(bytes.NewReader(buf.Bytes()), got, part)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !reflect.DeepEqual(again, entries) {
				t.Errorf("%s entries differ after rewriting", name)
			}
			checked++
		}
	}
	t.Logf("%d manifests rewritten", checked)
}
