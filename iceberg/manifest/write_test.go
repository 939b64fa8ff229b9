package manifest

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/linkedin/goavro/v2"

	"github.com/iceflight/iceflight/iceberg"
)

// testSchema has a column of every primitive type a partition can use.
var testSchema = iceberg.NewSchema(3,
	iceberg.NestedField{ID: 1, Name: "b", Type: iceberg.BooleanType{}},
	iceberg.NestedField{ID: 2, Name: "i", Type: iceberg.IntType{}, Required: true},
	iceberg.NestedField{ID: 3, Name: "l", Type: iceberg.LongType{}},
	iceberg.NestedField{ID: 4, Name: "f", Type: iceberg.FloatType{}},
	iceberg.NestedField{ID: 5, Name: "d", Type: iceberg.DoubleType{}},
	iceberg.NestedField{ID: 6, Name: "dec", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
	iceberg.NestedField{ID: 7, Name: "date", Type: iceberg.DateType{}},
	iceberg.NestedField{ID: 8, Name: "time", Type: iceberg.TimeType{}},
	iceberg.NestedField{ID: 9, Name: "ts", Type: iceberg.TimestampType{}},
	iceberg.NestedField{ID: 10, Name: "tstz", Type: iceberg.TimestampTzType{}},
	iceberg.NestedField{ID: 11, Name: "tsns", Type: iceberg.TimestampNsType{}},
	iceberg.NestedField{ID: 12, Name: "s", Type: iceberg.StringType{}},
	iceberg.NestedField{ID: 13, Name: "u", Type: iceberg.UUIDType{}},
	iceberg.NestedField{ID: 14, Name: "fx", Type: iceberg.FixedType{Length: 3}},
	iceberg.NestedField{ID: 15, Name: "bin", Type: iceberg.BinaryType{}},
	iceberg.NestedField{ID: 16, Name: "dec2", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
	iceberg.NestedField{ID: 17, Name: "tstzns", Type: iceberg.TimestampTzNsType{}},
)

func spec(id int, fields ...iceberg.PartitionField) iceberg.PartitionSpec {
	for i := range fields {
		fields[i].FieldID = 1000 + i
	}
	return iceberg.PartitionSpec{ID: id, Fields: fields}
}

func pf(src int, name string, t iceberg.Transform) iceberg.PartitionField {
	return iceberg.PartitionField{SourceID: src, Name: name, Transform: t}
}

func i64(v int64) *int64 { return &v }

// partitionCases are partition specs by transform and type, each with two
// tuples of values in literal.go's representation.
var partitionCases = []struct {
	name   string
	spec   iceberg.PartitionSpec
	values [2][]any
}{
	{"unpartitioned", spec(0), [2][]any{{}, {}}},
	{"identity of every primitive type", spec(1,
		pf(1, "b", iceberg.IdentityTransform{}), pf(2, "i", iceberg.IdentityTransform{}),
		pf(3, "l", iceberg.IdentityTransform{}), pf(4, "f", iceberg.IdentityTransform{}),
		pf(5, "d", iceberg.IdentityTransform{}), pf(6, "dec", iceberg.IdentityTransform{}),
		pf(7, "date", iceberg.IdentityTransform{}), pf(8, "time", iceberg.IdentityTransform{}),
		pf(9, "ts", iceberg.IdentityTransform{}), pf(10, "tstz", iceberg.IdentityTransform{}),
		pf(11, "tsns", iceberg.IdentityTransform{}), pf(12, "s", iceberg.IdentityTransform{}),
		pf(13, "u", iceberg.IdentityTransform{}), pf(14, "fx", iceberg.IdentityTransform{}),
		pf(15, "bin", iceberg.IdentityTransform{}), pf(16, "dec2", iceberg.IdentityTransform{}),
		pf(17, "tstzns", iceberg.IdentityTransform{}),
	), [2][]any{
		{true, int32(-7), int64(1) << 40, float32(1.5), -2.25, decimal128.FromI64(-12345), int32(19000),
			int64(3_600_000_000), int64(1_700_000_000_000_000), int64(-5), int64(1_700_000_000_000_000_123),
			"héllo", [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, []byte{1, 2, 3},
			[]byte{0, 0xff}, decimal128.FromI64(99999999), int64(7)},
		{nil, int32(8), nil, float32(0), nil, decimal128.FromI64(0), nil, nil, nil, nil, nil, "", nil, nil, []byte{}, nil, nil},
	}},
	{"bucket", spec(2, pf(3, "l_bucket", iceberg.BucketTransform{N: 16}), pf(12, "s_bucket", iceberg.BucketTransform{N: 3})),
		[2][]any{{int32(15), int32(0)}, {nil, int32(2)}}},
	{"truncate", spec(3, pf(2, "i_trunc", iceberg.TruncateTransform{Width: 10}), pf(12, "s_trunc", iceberg.TruncateTransform{Width: 2}),
		pf(6, "dec_trunc", iceberg.TruncateTransform{Width: 50})),
		[2][]any{{int32(-10), "ab", decimal128.FromI64(1050)}, {int32(20), "zz", decimal128.FromI64(-50)}}},
	{"year month day hour", spec(4, pf(7, "date_year", iceberg.YearTransform{}), pf(9, "ts_month", iceberg.MonthTransform{}),
		pf(10, "tstz_day", iceberg.DayTransform{}), pf(11, "tsns_hour", iceberg.HourTransform{})),
		[2][]any{{int32(54), int32(650), int32(19000), int32(472222)}, {int32(-1), nil, int32(0), int32(1)}}},
	{"void", spec(5, pf(12, "s_void", iceberg.VoidTransform{})), [2][]any{{nil}, {nil}}},
}

func dataFile(content iceberg.FileContent, path string, part []any, records int64) iceberg.DataFile {
	f := iceberg.DataFile{
		Content: content, Path: path, Format: "PARQUET", Partition: slices.Clone(part), RecordCount: records, FileSize: 1000 + records,
		ColumnSizes:     iceberg.ColumnCounts{{ID: 2, Count: 40}, {ID: 12, Count: 99}},
		ValueCounts:     iceberg.ColumnCounts{{ID: 2, Count: records}},
		NullValueCounts: iceberg.ColumnCounts{{ID: 2, Count: 0}},
		NaNValueCounts:  iceberg.ColumnCounts{{ID: 4, Count: 1}},
		LowerBounds:     iceberg.ColumnBounds{{ID: 2, Value: []byte{1, 0, 0, 0}}},
		UpperBounds:     iceberg.ColumnBounds{{ID: 2, Value: []byte{9, 0, 0, 0}}},
		SplitOffsets:    []int64{4},
	}
	if content == iceberg.FileContentEqualityDeletes {
		f.EqualityIDs = []int{2}
	}
	if content == iceberg.FileContentPositionDeletes {
		f.ReferencedDataFile = "s3://b/t/data/a.parquet"
		f.Format = "PUFFIN"
		f.ContentOffset, f.ContentSizeInBytes = i64(4), i64(40)
	}
	return f
}

// TestManifestRoundTrip writes manifests of every version, content and
// partition transform, and reads them back with the reader's
// Read, applying the spec's inheritance from the manifest
// list entry.
func TestManifestRoundTrip(t *testing.T) {
	t.Parallel()
	const snap, oldSnap, seq = int64(77), int64(55), int64(9)
	for _, version := range []int{1, 2, 3} {
		for _, content := range []iceberg.ManifestContent{iceberg.ManifestContentData, iceberg.ManifestContentDeletes} {
			if version == 1 && content == iceberg.ManifestContentDeletes {
				continue
			}
			for _, pc := range partitionCases {
				name := "v" + string(rune('0'+version)) + " " + content.String() + " " + pc.name
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					fc := iceberg.FileContentData
					if content == iceberg.ManifestContentDeletes {
						fc = iceberg.FileContentEqualityDeletes
						if version == 3 {
							fc = iceberg.FileContentPositionDeletes
						}
					}
					existing := dataFile(fc, "s3://b/t/data/old.parquet", pc.values[1], 30)
					if version == 3 && fc == iceberg.FileContentData {
						existing.FirstRowID = i64(500)
					}
					entries := []iceberg.ManifestEntry{
						{Status: iceberg.EntryAdded, DataFile: dataFile(fc, "s3://b/t/data/new.parquet", pc.values[0], 10)},
						{Status: iceberg.EntryExisting, SnapshotID: oldSnap, SequenceNumber: 3, FileSequenceNumber: 4, DataFile: existing},
						{Status: iceberg.EntryDeleted, SnapshotID: oldSnap, SequenceNumber: 2, FileSequenceNumber: 2,
							DataFile: dataFile(fc, "s3://b/t/data/gone.parquet", pc.values[1], 5)},
					}
					var buf bytes.Buffer
					w, err := NewWriter(&buf, WriterOptions{FormatVersion: version, Content: content, Schema: testSchema, Spec: pc.spec, SnapshotID: snap})
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range entries {
						if err := w.Add(e); err != nil {
							t.Fatal(err)
						}
					}
					mf, err := w.Close()
					if err != nil {
						t.Fatal(err)
					}
					if mf.Length != int64(buf.Len()) {
						t.Errorf("Length = %d, wrote %d bytes", mf.Length, buf.Len())
					}
					wantCounts := [6]int64{1, 1, 1, 10, 30, 5}
					gotCounts := [6]int64{mf.AddedFilesCount, mf.ExistingFilesCount, mf.DeletedFilesCount, mf.AddedRowsCount, mf.ExistingRowsCount, mf.DeletedRowsCount}
					if gotCounts != wantCounts {
						t.Errorf("counts = %v, want %v", gotCounts, wantCounts)
					}
					wantMin := int64(3) // the EXISTING entry's; the DELETED one is not live
					if version == 1 {
						wantMin = 0
					}
					if mf.MinSequenceNumber != wantMin || mf.AddedSnapshotID != snap || mf.SpecID != pc.spec.ID || mf.Content != content {
						t.Errorf("summary = %+v", mf)
					}
					if len(mf.Partitions) != len(pc.spec.Fields) {
						t.Fatalf("%d partition summaries, want %d", len(mf.Partitions), len(pc.spec.Fields))
					}

					// goavro, an independent reader, decodes every record.
					recs := goavroRecords(t, buf.Bytes())
					if len(recs) != len(entries) {
						t.Fatalf("goavro read %d records, want %d", len(recs), len(entries))
					}
					for i, rec := range recs {
						df := rec["data_file"].(map[string]any)
						if df["file_path"] != entries[i].DataFile.Path || df["record_count"] != entries[i].DataFile.RecordCount ||
							rec["status"] != int32(entries[i].Status) {
							t.Errorf("goavro reads record %d as %v", i, rec)
						}
					}

					mf.Path, mf.SequenceNumber = "m.avro", seq
					if version == 3 && content == iceberg.ManifestContentData {
						mf.FirstRowID = i64(1000)
					}
					part := pc.spec.PartitionType(testSchema)
					got, err := Read(bytes.NewReader(buf.Bytes()), mf, part)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(entries) {
						t.Fatalf("read %d entries, want %d", len(got), len(entries))
					}
					for i, want := range entries {
						want.DataFile.SpecID = pc.spec.ID
						switch {
						case version == 1:
							want.SequenceNumber, want.FileSequenceNumber = 0, 0
						case want.Status == iceberg.EntryAdded:
							want.SequenceNumber, want.FileSequenceNumber = seq, seq
						}
						if want.Status != iceberg.EntryExisting {
							want.SnapshotID = snap
						}
						if version < 3 {
							want.DataFile.ContentOffset, want.DataFile.ContentSizeInBytes = nil, nil
						}
						if version == 1 {
							want.DataFile.EqualityIDs, want.DataFile.ReferencedDataFile = nil, ""
						}
						if version == 3 && want.Status == iceberg.EntryAdded && fc == iceberg.FileContentData {
							want.DataFile.FirstRowID = i64(1000) // inherited from the manifest
						}
						normalize(&want.DataFile)
						normalize(&got[i].DataFile)
						if !reflect.DeepEqual(got[i], want) {
							t.Errorf("entry %d:\n got %+v\nwant %+v", i, got[i], want)
						}
					}
				})
			}
		}
	}
}

// goavroRecords reads every record of a container file with goavro's OCF
// reader: an independent reader of what we write.
func goavroRecords(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	r, err := goavro.NewOCFReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("goavro: %v", err)
	}
	var out []map[string]any
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			t.Fatalf("goavro record %d: %v", len(out), err)
		}
		out = append(out, v.(map[string]any))
	}
	if r.Err() != nil {
		t.Fatalf("goavro: %v", r.Err())
	}
	return out
}

// normalize makes empty and nil byte slices of partition values compare
// equal (Avro does not tell them apart).
func normalize(f *iceberg.DataFile) {
	for i, v := range f.Partition {
		if b, ok := v.([]byte); ok && len(b) == 0 {
			f.Partition[i] = []byte{}
		}
	}
}

// TestPartitionSummaries checks field summaries against the spec's
// single-value serialization (Appendix D): little-endian ints, UTF-8
// strings, and contains_nan for floating fields.
func TestPartitionSummaries(t *testing.T) {
	t.Parallel()
	s := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "i", Type: iceberg.IntType{}},
		iceberg.NestedField{ID: 2, Name: "s", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 3, Name: "d", Type: iceberg.DoubleType{}},
	)
	sp := spec(0, pf(1, "i", iceberg.IdentityTransform{}), pf(2, "s", iceberg.IdentityTransform{}), pf(3, "d", iceberg.IdentityTransform{}))
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{FormatVersion: 2, Schema: s, Spec: sp, SnapshotID: 1})
	if err != nil {
		t.Fatal(err)
	}
	negZero := math.Copysign(0, -1)
	for _, p := range [][]any{{int32(5), "b", 0.0}, {int32(-2), "ab", nil}, {nil, "c", negZero}, {int32(300), nil, math.NaN()}} {
		if err := w.Add(iceberg.ManifestEntry{Status: iceberg.EntryAdded, DataFile: iceberg.DataFile{Path: "f", Format: "PARQUET", Partition: p, RecordCount: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	mf, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, tr := false, true
	want := []iceberg.FieldSummary{
		{ContainsNull: true, ContainsNaN: &f, LowerBound: []byte{0xfe, 0xff, 0xff, 0xff}, UpperBound: []byte{0x2c, 0x01, 0, 0}},
		{ContainsNull: true, ContainsNaN: &f, LowerBound: []byte("ab"), UpperBound: []byte("c")},
		// Spec: -0.0 precedes +0.0, so the lower bound is -0.0.
		{ContainsNull: true, ContainsNaN: &tr, LowerBound: []byte{0, 0, 0, 0, 0, 0, 0, 0x80}, UpperBound: []byte{0, 0, 0, 0, 0, 0, 0, 0}},
	}
	if !reflect.DeepEqual(mf.Partitions, want) {
		t.Errorf("summaries:\n got %+v\nwant %+v", mf.Partitions, want)
	}
}

// TestManifestMetadata checks the Avro header keys the spec requires
// (Manifest Metadata) and that goavro reads the file.
func TestManifestMetadata(t *testing.T) {
	t.Parallel()
	sp := spec(4, pf(7, "date_year", iceberg.YearTransform{}))
	for _, tc := range []struct {
		version int
		content iceberg.ManifestContent
		want    map[string]string
	}{
		{1, iceberg.ManifestContentData, map[string]string{"format-version": "1", "partition-spec-id": "4", "schema-id": "3"}},
		{2, iceberg.ManifestContentDeletes, map[string]string{"format-version": "2", "partition-spec-id": "4", "schema-id": "3", "content": "deletes"}},
		{3, iceberg.ManifestContentData, map[string]string{"format-version": "3", "partition-spec-id": "4", "schema-id": "3", "content": "data"}},
	} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, WriterOptions{FormatVersion: tc.version, Content: tc.content, Schema: testSchema, Spec: sp, SnapshotID: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		md, err := Metadata(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.want {
			if md[k] != v {
				t.Errorf("v%d %s = %q, want %q", tc.version, k, md[k], v)
			}
		}
		if _, ok := md["content"]; tc.version == 1 && ok {
			t.Errorf("v1 manifest has a content key")
		}
		if md["partition-spec"] != `[{"source-id":7,"field-id":1000,"name":"date_year","transform":"year"}]` {
			t.Errorf("partition-spec = %s", md["partition-spec"])
		}
		var schema iceberg.Schema
		if err := json.Unmarshal([]byte(md["schema"]), &schema); err != nil || schema.ID != 3 || len(schema.Fields) != len(testSchema.Fields) {
			t.Errorf("schema = %s (%v)", md["schema"], err)
		}
		if md["avro.codec"] != "deflate" {
			t.Errorf("codec %q", md["avro.codec"])
		}
		r, err := goavro.NewOCFReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("goavro: %v", err)
		}
		if r.Scan() {
			t.Errorf("an empty manifest has a record")
		}
	}
}
