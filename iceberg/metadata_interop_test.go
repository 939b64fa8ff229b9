package iceberg

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// javarefJar returns the Iceberg Java reference jar, skipping the test
// when there is none (failing under ICEFLIGHT_REQUIRE_SERVERS=1).
func javarefJar(t *testing.T) string {
	t.Helper()
	jar := os.Getenv("JAVAREF_JAR")
	if jar == "" {
		if os.Getenv("ICEFLIGHT_REQUIRE_SERVERS") == "1" {
			t.Fatal("JAVAREF_JAR is not set and ICEFLIGHT_REQUIRE_SERVERS=1")
		}
		t.Skip("JAVAREF_JAR not set: skipping the check by Iceberg Java")
	}
	return jar
}

// TestMarshalMetadataJava has Iceberg Java's TableMetadataParser read
// every metadata file we write (each conformance file rewritten, new
// tables, updated tables) and compares what Java writes back with ours.
func TestMarshalMetadataJava(t *testing.T) {
	t.Parallel()
	jar := javarefJar(t)
	mds, names := writtenMetadata(t)
	dir := t.TempDir()
	files := make([]string, len(mds))
	ours := make([][]byte, len(mds))
	for i, md := range mds {
		out, err := json.Marshal(md)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		ours[i] = out
		files[i] = filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(names[i]))
		if err := os.WriteFile(files[i], out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("java", append([]string{"-jar", jar, "metacheck"}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("Iceberg Java refuses what we wrote: %v\n%s", err, stderr.String())
	}
	lines := bufio.NewScanner(bytes.NewReader(stdout))
	lines.Buffer(nil, 64<<20)
	n := 0
	for i := 0; lines.Scan(); i++ {
		n++
		if i >= len(mds) {
			t.Fatal("more output than files")
		}
		var java, our any
		if err := json.Unmarshal(lines.Bytes(), &java); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(ours[i], &our); err != nil {
			t.Fatal(err)
		}
		if d := jsonDiff(java, our, ""); d != "" {
			t.Errorf("%s: Java writes it back differently: %s", names[i], d)
		}
	}
	if n != len(mds) {
		t.Fatalf("Java wrote %d files back, want %d", n, len(mds))
	}
}

// jsonDiff names the first place where two decoded JSON values differ.
func jsonDiff(a, b any, path string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		for k := range x {
			if _, ok := y[k]; !ok {
				return fmt.Sprintf("%s.%s: only Java has it (%v)", path, k, x[k])
			}
			if d := jsonDiff(x[k], y[k], path+"."+k); d != "" {
				return d
			}
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				return fmt.Sprintf("%s.%s: only ours has it (%v)", path, k, y[k])
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		for i := range x {
			if d := jsonDiff(x[i], y[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	// A binary default is hex, which the spec reads in either case: we
	// keep the file's spelling, Java writes upper case.
	if xs, ok := a.(string); ok && strings.HasSuffix(path, "-default") {
		if ys, ok := b.(string); ok && strings.EqualFold(xs, ys) {
			return ""
		}
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: Java %v, ours %v", path, a, b)
	}
	return ""
}

// TestNewTableMetadataJava compares NewTableMetadata with what Iceberg
// Java's TableMetadata.newTableMetadata builds from the same schema, spec,
// sort order and properties (all but the random uuid and the clock).
func TestNewTableMetadataJava(t *testing.T) {
	t.Parallel()
	jar := javarefJar(t)
	schema := NewSchema(3,
		NestedField{ID: 10, Name: "id", Type: LongType{}, Required: true},
		NestedField{ID: 11, Name: "s", Type: &StructType{Fields: []NestedField{
			{ID: 20, Name: "c", Type: IntType{}, Doc: "a doc"},
			{ID: 21, Name: "l", Type: &ListType{ElementID: 22, Element: &StructType{Fields: []NestedField{{ID: 23, Name: "x", Type: FloatType{}}}}, ElementRequired: true}},
		}}},
		NestedField{ID: 12, Name: "m", Type: &MapType{KeyID: 30, Key: StringType{}, ValueID: 31, Value: &MapType{KeyID: 32, Key: IntType{}, ValueID: 33, Value: DecimalType{10, 2}}}},
		NestedField{ID: 13, Name: "ts", Type: TimestampTzType{}, Required: true},
		NestedField{ID: 14, Name: "u", Type: UUIDType{}},
	)
	schema.IdentifierFieldIDs = []int{10, 13}
	spec := PartitionSpec{Fields: []PartitionField{
		{SourceID: 13, Name: "ts_hour", Transform: HourTransform{}},
		{SourceID: 20, Name: "c_trunc", Transform: TruncateTransform{4}},
		{SourceID: 10, Name: "id_bucket", Transform: BucketTransform{16}},
	}}
	order := SortOrder{Fields: []SortField{
		{SourceID: 13, Transform: "day", Direction: "desc", NullOrder: "nulls-last"},
		{SourceID: 20, Transform: "identity", Direction: "asc", NullOrder: "nulls-first"},
	}}
	cases := []struct {
		name  string
		spec  PartitionSpec
		order SortOrder
		props map[string]string
	}{
		{"v1", spec, order, map[string]string{"format-version": "1", "owner": "me"}},
		{"v2", spec, order, map[string]string{"write.parquet.compression-codec": "snappy"}},
		{"v3", spec, order, map[string]string{"format-version": "3"}},
		{"unpartitioned unsorted", PartitionSpec{}, SortOrder{}, nil},
	}
	dir := t.TempDir()
	var files []string
	var ours []*TableMetadata
	for i, tc := range cases {
		fields := make([]map[string]any, len(tc.spec.Fields))
		for j, f := range tc.spec.Fields {
			fields[j] = map[string]any{"name": f.Name, "transform": f.Transform.String(), "source-id": f.SourceID}
		}
		in, err := json.Marshal(map[string]any{
			"schema": schema, "spec": map[string]any{"spec-id": 0, "fields": fields},
			"sort-order": SortOrder{OrderID: min(len(tc.order.Fields), 1), Fields: orEmpty(tc.order.Fields)},
			"location":   "s3://b/db/t", "properties": orEmptyMap(tc.props),
		})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Join(dir, fmt.Sprintf("new%d.json", i)))
		if err := os.WriteFile(files[i], in, 0o644); err != nil {
			t.Fatal(err)
		}
		md, err := NewTableMetadata(schema, tc.spec, tc.order, "s3://b/db/t", tc.props)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ours = append(ours, md)
	}
	cmd := exec.Command("java", append([]string{"-jar", jar, "metacheck", "--new"}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref metacheck --new: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("Java built %d tables, want %d", len(lines), len(cases))
	}
	for i, tc := range cases {
		var java, our map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &java); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(ours[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &our); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"table-uuid", "last-updated-ms"} {
			delete(java, k)
			delete(our, k)
		}
		if d := jsonDiff(java, our, ""); d != "" {
			t.Errorf("%s: NewTableMetadata differs from Java's: %s", tc.name, d)
		}
	}
}

func orEmptyMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// TestApplyUpdatesJava applies the same REST updates with ApplyUpdates and
// with Iceberg Java's TableMetadata.Builder (javaref metacheck --apply)
// and compares the results, refusals included. last-updated-ms is left
// out: Java takes it from the clock or an added snapshot.
func TestApplyUpdatesJava(t *testing.T) {
	t.Parallel()
	jar := javarefJar(t)
	snap := func(id, parent, seq int64, extra string) string {
		return fmt.Sprintf(`{"snapshot-id":%d,"parent-snapshot-id":%d,"sequence-number":%d,"timestamp-ms":%d,"manifest-list":"s3://b/t/metadata/snap-%d.avro","summary":{"operation":"append"},"schema-id":1%s}`, id, parent, seq, 3000+id, id, extra)
	}
	mainTo := func(id int64) string {
		return fmt.Sprintf(`{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":%d}`, id)
	}
	cases := []struct{ name, updates string }{
		{"append", `[{"action":"add-snapshot","snapshot":` + snap(30, 20, 3, "") + `},` + mainTo(30) + `]`},
		{"add snapshot only", `[{"action":"add-snapshot","snapshot":` + snap(30, 20, 3, "") + `}]`},
		{"two appends", `[{"action":"add-snapshot","snapshot":` + snap(30, 20, 3, "") + `},` + mainTo(30) + `,{"action":"add-snapshot","snapshot":` + snap(31, 30, 4, "") + `},` + mainTo(31) + `]`},
		{"expire the tagged snapshot", `[{"action":"remove-snapshots","snapshot-ids":[10]}]`},
		{"expire the current snapshot", `[{"action":"remove-snapshots","snapshot-ids":[20]}]`},
		{"remove main", `[{"action":"remove-snapshot-ref","ref-name":"main"}]`},
		{"tag", `[{"action":"set-snapshot-ref","ref-name":"t2","type":"tag","snapshot-id":10,"max-ref-age-ms":1000}]`},
		{"branch with retention", `[{"action":"set-snapshot-ref","ref-name":"b","type":"branch","snapshot-id":10,"min-snapshots-to-keep":2,"max-snapshot-age-ms":5}]`},
		{"same schema again", `[{"action":"add-schema","schema":{"type":"struct","schema-id":5,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}},{"action":"set-current-schema","schema-id":-1}]`},
		{"new schema", `[{"action":"add-schema","schema":{"type":"struct","schema-id":0,"identifier-field-ids":[1],"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":6,"name":"n","required":false,"type":"decimal(9,2)"}]},"last-column-id":6},{"action":"set-current-schema","schema-id":-1}]`},
		{"existing spec", `[{"action":"add-spec","spec":{"spec-id":7,"fields":[{"name":"b","transform":"bucket[16]","source-id":1,"field-id":1000}]}},{"action":"set-default-spec","spec-id":-1}]`},
		{"new spec", `[{"action":"add-spec","spec":{"spec-id":2,"fields":[{"name":"id_trunc","transform":"truncate[10]","source-id":1,"field-id":1002}]}},{"action":"set-default-spec","spec-id":-1}]`},
		{"default spec 0", `[{"action":"set-default-spec","spec-id":0}]`},
		{"new sort order", `[{"action":"add-sort-order","sort-order":{"order-id":4,"fields":[{"source-id":1,"transform":"identity","direction":"desc","null-order":"nulls-last"}]}},{"action":"set-default-sort-order","sort-order-id":-1}]`},
		{"unsorted order", `[{"action":"add-sort-order","sort-order":{"order-id":0,"fields":[]}},{"action":"set-default-sort-order","sort-order-id":-1}]`},
		{"properties", `[{"action":"set-properties","updates":{"a":"1","b":"2"}},{"action":"remove-properties","removals":["a"]}]`},
		{"metadata log trimmed", `[{"action":"set-properties","updates":{"write.metadata.previous-versions-max":"1"}}]`},
		{"location", `[{"action":"set-location","location":"s3://other/t"}]`},
		{"upgrade to v3 and append", `[{"action":"upgrade-format-version","format-version":3},{"action":"add-snapshot","snapshot":` + snap(30, 20, 3, `,"first-row-id":0,"added-rows":7`) + `},` + mainTo(30) + `]`},
		{"v3 snapshot ahead of next-row-id", `[{"action":"upgrade-format-version","format-version":3},{"action":"add-snapshot","snapshot":` + snap(30, 20, 3, `,"first-row-id":5,"added-rows":7`) + `},` + mainTo(30) + `]`},
		{"parentless snapshot with an old sequence number", `[{"action":"add-snapshot","snapshot":{"snapshot-id":30,"sequence-number":1,"timestamp-ms":3030,"manifest-list":"s3://b/t/metadata/snap-30.avro","summary":{"operation":"append"}}}]`},
		{"main to where it is", `[` + mainTo(20) + `]`},
		{"roll main back", `[` + mainTo(10) + `]`},
		{"remove unknown snapshot and ref", `[{"action":"remove-snapshots","snapshot-ids":[77]},{"action":"remove-snapshot-ref","ref-name":"nope"}]`},
		{"same format version", `[{"action":"upgrade-format-version","format-version":2}]`},
		{"same uuid", `[{"action":"assign-uuid","uuid":"u"}]`},
		{"older current schema", `[{"action":"set-current-schema","schema-id":0}]`},
		{"last-column-id above the schema's", `[{"action":"add-schema","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":6,"name":"z","required":false,"type":"int"}]},"last-column-id":9}]`},
		{"last-column-id below", `[{"action":"add-schema","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"z","required":false,"type":"int"}]},"last-column-id":2}]`},
		{"remove an old schema", `[{"action":"remove-schemas","schema-ids":[0]}]`},
		{"remove unknown schemas", `[{"action":"remove-schemas","schema-ids":[7,8]}]`},
		{"remove no schema", `[{"action":"remove-schemas","schema-ids":[]}]`},
		{"remove the schema current before this commit", `[{"action":"add-schema","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":6,"name":"z","required":false,"type":"int"}]}},{"action":"set-current-schema","schema-id":-1},{"action":"remove-schemas","schema-ids":[1]}]`},
		{"remove an old spec and an unknown one", `[{"action":"remove-partition-specs","spec-ids":[0,9]}]`},
		{"remove the spec default before this commit", `[{"action":"set-default-spec","spec-id":0},{"action":"remove-partition-specs","spec-ids":[1]}]`},
		{"refused: remove the current schema", `[{"action":"remove-schemas","schema-ids":[0,1]}]`},
		{"refused: remove the default spec", `[{"action":"remove-partition-specs","spec-ids":[1]}]`},
		{"refused: spec on a missing column", `[{"action":"add-spec","spec":{"spec-id":2,"fields":[{"name":"x","transform":"identity","source-id":42,"field-id":1002}]}}]`},
		{"refused: unknown default spec", `[{"action":"set-default-spec","spec-id":9}]`},
		{"refused: old sequence number", `[{"action":"add-snapshot","snapshot":` + snap(30, 20, 2, "") + `}]`},
		{"refused: snapshot exists", `[{"action":"add-snapshot","snapshot":` + snap(20, 10, 9, "") + `}]`},
		{"refused: ref to unknown snapshot", `[` + mainTo(99) + `]`},
		{"refused: downgrade", `[{"action":"upgrade-format-version","format-version":1}]`},
		{"refused: unknown schema", `[{"action":"set-current-schema","schema-id":8}]`},
		{"refused: v3 snapshot behind next-row-id", `[{"action":"upgrade-format-version","format-version":3},{"action":"add-snapshot","snapshot":` + snap(30, 20, 3, `,"first-row-id":0,"added-rows":7`) + `},{"action":"add-snapshot","snapshot":` + snap(31, 30, 4, `,"first-row-id":3,"added-rows":1`) + `}]`},
	}
	base := baseV2(t)
	base.MetadataLog = []MetadataLogEntry{{TimestampMs: 0, MetadataFile: "s3://b/t/metadata/v0.json"}, {TimestampMs: 1, MetadataFile: "s3://b/t/metadata/v1.json"}}
	compareApplyWithJava(t, jar, base, cases, map[string]bool{"roll main back": true})
}

// TestApplyUpdatesJavaV1 is TestApplyUpdatesJava on a v1 table.
func TestApplyUpdatesJavaV1(t *testing.T) {
	t.Parallel()
	jar := javarefJar(t)
	base, err := ParseMetadata([]byte(v1Metadata))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, updates string }{
		{"append", `[{"action":"add-snapshot","snapshot":{"snapshot-id":11,"parent-snapshot-id":10,"timestamp-ms":200,"manifest-list":"/w/t/metadata/snap-11.avro","summary":{"operation":"append"}}},{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":11}]`},
		{"new spec", `[{"action":"add-spec","spec":{"spec-id":1,"fields":[{"name":"id_b","transform":"bucket[4]","source-id":1}]}},{"action":"set-default-spec","spec-id":-1}]`},
		{"new schema", `[{"action":"add-schema","schema":{"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"d","required":false,"type":"date"},{"id":3,"name":"s","required":false,"type":"string"}]}},{"action":"set-current-schema","schema-id":-1}]`},
		{"upgrade to v2", `[{"action":"upgrade-format-version","format-version":2}]`},
		{"expire", `[{"action":"remove-snapshots","snapshot-ids":[10]}]`},
		{"refused: v3 type", `[{"action":"add-schema","schema":{"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":3,"name":"t","required":false,"type":"timestamp_ns"}]}}]`},
	}
	compareApplyWithJava(t, jar, base, cases, nil)
}

// compareApplyWithJava applies each case's updates to base with
// ApplyUpdates and with Java's builder and compares the results.
func compareApplyWithJava(t *testing.T, jar string, base *TableMetadata, cases []struct{ name, updates string }, clockStamped map[string]bool) {
	t.Helper()
	dir := t.TempDir()
	basePath := filepath.Join(dir, "base.metadata.json")
	text, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(basePath, text, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-jar", jar, "metacheck", "--apply"}
	for i, tc := range cases {
		// Java reads the updates as we write them (the REST form of
		// MarshalJSON), parsed from the hand-written text.
		updates, err := ParseUpdates([]byte(tc.updates))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ours, err := json.Marshal(updates)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		p := filepath.Join(dir, fmt.Sprintf("updates%d.json", i))
		if err := os.WriteFile(p, ours, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, basePath, p)
	}
	cmd := exec.Command("java", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref metacheck --apply: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("Java answered %d cases, want %d", len(lines), len(cases))
	}
	for i, tc := range cases {
		var java map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &java); err != nil {
			t.Fatal(err)
		}
		updates, err := ParseUpdates([]byte(tc.updates))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		md, err := ApplyUpdates(base, basePath, updates)
		javaErr, refused := java["error"]
		switch {
		case refused && err == nil:
			t.Errorf("%s: Java refuses (%v), ApplyUpdates does not", tc.name, javaErr)
			continue
		case refused:
			continue
		case err != nil:
			t.Errorf("%s: ApplyUpdates refuses (%v), Java does not", tc.name, err)
			continue
		}
		b, err := json.Marshal(md)
		if err != nil {
			t.Fatal(err)
		}
		var our map[string]any
		if err := json.Unmarshal(b, &our); err != nil {
			t.Fatal(err)
		}
		delete(java, "last-updated-ms")
		delete(our, "last-updated-ms")
		if clockStamped[tc.name] {
			// The entry is stamped with the time of the commit: Java's
			// clock is not our test clock.
			for _, m := range []map[string]any{java, our} {
				log := m["snapshot-log"].([]any)
				delete(log[len(log)-1].(map[string]any), "timestamp-ms")
			}
		}
		if d := jsonDiff(java, our, ""); d != "" {
			t.Errorf("%s: ApplyUpdates differs from Java's builder: %s", tc.name, d)
		}
	}
}

// writtenMetadata is what the writer produces, for the readers of other
// implementations to check: every conformance and testdata metadata file
// as we rewrite it, new v1-v3 tables, the same after an append and a
// schema change, and a table built by a create transaction.
func writtenMetadata(t *testing.T) (mds []*TableMetadata, names []string) {
	t.Helper()
	for _, path := range metadataFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		md, err := ParseMetadata(data)
		if err != nil {
			continue
		}
		mds, names = append(mds, md), append(names, path)
	}
	for _, v := range []string{"1", "2", "3"} {
		schema := NewSchema(0, NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true}, NestedField{ID: 2, Name: "d", Type: DateType{}},
			NestedField{ID: 3, Name: "m", Type: &MapType{KeyID: 4, Key: StringType{}, ValueID: 5, Value: &ListType{ElementID: 6, Element: IntType{}}}})
		spec := PartitionSpec{Fields: []PartitionField{{SourceID: 2, Name: "d_month", Transform: MonthTransform{}}}}
		order := SortOrder{Fields: []SortField{{SourceID: 1, Transform: "identity", Direction: "asc", NullOrder: "nulls-first"}}}
		md, err := NewTableMetadata(schema, spec, order, "s3://b/t", map[string]string{"format-version": v})
		if err != nil {
			t.Fatal(err)
		}
		mds, names = append(mds, md), append(names, "new v"+v)
		snap := Snapshot{SnapshotID: 42, SequenceNumber: 1, TimestampMs: 1000, ManifestList: "s3://b/t/metadata/snap-42.avro",
			Summary: NewSummary(map[string]string{"operation": "append", "added-records": "5"}), SchemaID: ptr(0)}
		if v == "1" {
			snap.SequenceNumber = 0
		}
		if v == "3" {
			snap.FirstRowID, snap.AddedRows = ptr(int64(0)), ptr(int64(5))
		}
		next, err := ApplyUpdates(md, "s3://b/t/metadata/00000.metadata.json", []Update{
			AddSnapshot{snap}, SetSnapshotRef{"main", SnapshotRef{SnapshotID: 42, Type: RefBranch}},
			AddSchema{Schema: NewSchema(0, append(schema.Fields, NestedField{ID: 7, Name: "n", Type: StringType{}})...)}, SetCurrentSchema{-1},
			SetProperties{map[string]string{"k": "v"}},
		})
		if err != nil {
			t.Fatalf("v%s: %v", v, err)
		}
		mds, names = append(mds, next), append(names, "updated v"+v)
	}
	created, err := ApplyUpdates(nil, "", []Update{
		UpgradeFormatVersion{2},
		AddSchema{Schema: NewSchema(0, NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true}, NestedField{ID: 2, Name: "amount", Type: DecimalType{12, 2}})}, SetCurrentSchema{-1},
		AddSpec{PartitionSpec{Fields: []PartitionField{{SourceID: 1, Name: "id_bucket", Transform: BucketTransform{4}}}}}, SetDefaultSpec{-1},
		AddSortOrder{SortOrder{}}, SetDefaultSortOrder{-1}, SetLocation{"/w/t"},
	})
	if err != nil {
		t.Fatal(err)
	}
	mds, names = append(mds, created), append(names, "created v2")
	return mds, names
}

// pyicebergCheck parses each file with PyIceberg's TableMetadataUtil (its
// pydantic model checks the spec's required fields and types) and prints
// the error, or "ok", one line per file.
const pyicebergCheck = `
import sys
from pyiceberg.table.metadata import TableMetadataUtil
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            TableMetadataUtil.parse_raw(f.read())
        print("ok")
    except Exception as e:
        print(repr(e).replace("\n", " "))
`

// TestMarshalMetadataPyIceberg has PyIceberg read every metadata file we
// write (PYICEBERG_PYTHON; skipped without it unless
// ICEFLIGHT_REQUIRE_SERVERS=1).
func TestMarshalMetadataPyIceberg(t *testing.T) {
	t.Parallel()
	python := os.Getenv("PYICEBERG_PYTHON")
	if python == "" {
		if os.Getenv("ICEFLIGHT_REQUIRE_SERVERS") == "1" {
			t.Fatal("PYICEBERG_PYTHON is not set and ICEFLIGHT_REQUIRE_SERVERS=1")
		}
		t.Skip("PYICEBERG_PYTHON not set: skipping the check by PyIceberg")
	}
	mds, names := writtenMetadata(t)
	dir := t.TempDir()
	files := make([]string, len(mds))
	for i, md := range mds {
		out, err := json.Marshal(md)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		files[i] = filepath.Join(dir, fmt.Sprintf("%d.metadata.json", i))
		if err := os.WriteFile(files[i], out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The files we rewrote are checked as they were too: PyIceberg does
	// not read every table (0.12 knows no variant type).
	var originals []string
	for _, n := range names {
		if _, err := os.Stat(n); err == nil {
			originals = append(originals, n)
		}
	}
	cmd := exec.Command(python, append(append([]string{"-c", pyicebergCheck}, files...), originals...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyiceberg: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	if len(lines) != len(mds)+len(originals) {
		t.Fatalf("PyIceberg answered for %d files, want %d", len(lines), len(mds)+len(originals))
	}
	refusedOriginal := map[string]bool{}
	for i, n := range originals {
		refusedOriginal[n] = lines[len(mds)+i] != "ok"
	}
	checked := 0
	for i, l := range lines[:len(mds)] {
		if refusedOriginal[names[i]] {
			continue
		}
		checked++
		if l != "ok" {
			t.Errorf("%s: PyIceberg refuses what we wrote: %s", names[i], l)
		}
	}
	t.Logf("PyIceberg read %d files we wrote (%d originals it refuses itself)", checked, len(mds)-checked)
}

// TestRequirementsJava validates the same requirements, in the REST form
// we write, with Iceberg Java's UpdateRequirement and with Validate.
func TestRequirementsJava(t *testing.T) {
	t.Parallel()
	jar := javarefJar(t)
	reqs := []Requirement{
		AssertCreate{}, AssertTableUUID{"u"}, AssertTableUUID{"x"},
		AssertRefSnapshotID{"main", ptr(int64(20))}, AssertRefSnapshotID{"main", ptr(int64(10))}, AssertRefSnapshotID{"main", nil},
		AssertRefSnapshotID{"v1", ptr(int64(10))}, AssertRefSnapshotID{"new", nil}, AssertRefSnapshotID{"new", ptr(int64(10))},
		AssertLastAssignedFieldID{3}, AssertLastAssignedFieldID{4}, AssertCurrentSchemaID{1}, AssertCurrentSchemaID{0},
		AssertLastAssignedPartitionID{1001}, AssertLastAssignedPartitionID{999}, AssertDefaultSpecID{1}, AssertDefaultSpecID{0},
		AssertDefaultSortOrderID{0}, AssertDefaultSortOrderID{1},
	}
	base := baseV2(t)
	dir := t.TempDir()
	basePath, reqPath := filepath.Join(dir, "base.metadata.json"), filepath.Join(dir, "requirements.json")
	text, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := json.Marshal(reqs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(basePath, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reqPath, rt, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", "-jar", jar, "metacheck", "--requirements", basePath, reqPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref metacheck --requirements: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	if len(lines) != len(reqs) {
		t.Fatalf("Java answered %d requirements, want %d", len(lines), len(reqs))
	}
	for i, r := range reqs {
		err := r.Validate(base)
		if javaOK := lines[i] == "ok"; javaOK != (err == nil) {
			t.Errorf("%s %+v: Java says %s, Validate says %v", r.Type(), r, lines[i], err)
		}
	}
}
