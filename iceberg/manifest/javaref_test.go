package manifest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// javaManifest is what `javaref manifestcheck` prints of one manifest:
// Iceberg Java's ManifestFile and, through ManifestFiles.read, its entries
// with the inheritance Java applies.
type javaManifest struct {
	Path              string
	Length            int64
	SpecID            int    `json:"spec_id"`
	Content           int    `json:"content"`
	SequenceNumber    int64  `json:"sequence_number"`
	MinSequenceNumber int64  `json:"min_sequence_number"`
	AddedSnapshotID   int64  `json:"added_snapshot_id"`
	AddedFiles        int64  `json:"added_files_count"`
	ExistingFiles     int64  `json:"existing_files_count"`
	DeletedFiles      int64  `json:"deleted_files_count"`
	AddedRows         int64  `json:"added_rows_count"`
	ExistingRows      int64  `json:"existing_rows_count"`
	DeletedRows       int64  `json:"deleted_rows_count"`
	FirstRowID        *int64 `json:"first_row_id"`
	Partitions        []javaSummary
	Entries           []javaEntry
}

type javaSummary struct {
	ContainsNull bool    `json:"contains_null"`
	ContainsNaN  *bool   `json:"contains_nan"`
	LowerBound   *string `json:"lower_bound"`
	UpperBound   *string `json:"upper_bound"`
}

type javaEntry struct {
	Status             int               `json:"status"`
	SnapshotID         int64             `json:"snapshot_id"`
	SequenceNumber     int64             `json:"sequence_number"`
	FileSequenceNumber int64             `json:"file_sequence_number"`
	Content            int               `json:"content"`
	FilePath           string            `json:"file_path"`
	FileFormat         string            `json:"file_format"`
	SpecID             int               `json:"spec_id"`
	RecordCount        int64             `json:"record_count"`
	FileSize           int64             `json:"file_size_in_bytes"`
	FirstRowID         *int64            `json:"first_row_id"`
	Partition          []*string         `json:"partition"`
	ColumnSizes        map[string]int64  `json:"column_sizes"`
	ValueCounts        map[string]int64  `json:"value_counts"`
	NullValueCounts    map[string]int64  `json:"null_value_counts"`
	NaNValueCounts     map[string]int64  `json:"nan_value_counts"`
	LowerBounds        map[string]string `json:"lower_bounds"`
	UpperBounds        map[string]string `json:"upper_bounds"`
	SplitOffsets       []int64           `json:"split_offsets"`
	EqualityIDs        []int             `json:"equality_ids"`
	ReferencedDataFile *string           `json:"referenced_data_file"`
	ContentOffset      *int64            `json:"content_offset"`
	ContentSize        *int64            `json:"content_size_in_bytes"`
}

// javaRead runs Iceberg Java's readers over a manifest list, or skips the
// test when the javaref jar (JAVAREF_JAR) is not at hand.
func javaRead(t *testing.T, list string) []javaManifest {
	t.Helper()
	jar := os.Getenv("JAVAREF_JAR")
	if jar == "" {
		t.Skip("JAVAREF_JAR is not set")
	}
	cmd := exec.Command("java", "-jar", jar, "manifestcheck", "--list", list)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref manifestcheck: %v\n%s", err, stderr.String())
	}
	var res struct{ Manifests []javaManifest }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("javaref output: %v\n%s", err, out)
	}
	return res.Manifests
}

func hexOf(b []byte) *string {
	if b == nil {
		return nil
	}
	s := hex.EncodeToString(b)
	return &s
}

func countMapOf(c iceberg.ColumnCounts) map[string]int64 {
	if c == nil {
		return nil
	}
	m := map[string]int64{}
	for _, e := range c {
		m[strconv.Itoa(e.ID)] = e.Count
	}
	return m
}

func boundMapOf(b iceberg.ColumnBounds) map[string]string {
	if b == nil {
		return nil
	}
	m := map[string]string{}
	for _, e := range b {
		m[strconv.Itoa(e.ID)] = hex.EncodeToString(e.Value)
	}
	return m
}

// TestJavaReadsManifests writes a snapshot's manifests and manifest list
// for each format version and has Iceberg Java read them: every value
// Java sees must be the one written, with the spec's inheritance of
// snapshot ids, sequence numbers and first row ids applied by Java.
func TestJavaReadsManifests(t *testing.T) {
	t.Parallel()
	for _, version := range []int{1, 2, 3} {
		t.Run("v"+strconv.Itoa(version), func(t *testing.T) {
			t.Parallel()
			list, mfs, all := writeSnapshot(t, version, isFixed)
			java := javaRead(t, list)
			if len(java) != len(mfs) {
				t.Fatalf("Java read %d manifests, want %d", len(java), len(mfs))
			}
			nextRow := firstRow
			for i, jm := range java {
				mf, w := mfs[i], all[i]
				wantSeq, wantMin := seq, mf.MinSequenceNumber
				if wantMin == 0 {
					wantMin = seq
				}
				if version == 1 {
					wantSeq, wantMin = 0, 0
				}
				var wantFirst *int64
				if version == 3 && mf.Content == iceberg.ManifestContentData {
					wantFirst = i64(nextRow)
					nextRow += mf.AddedRowsCount + mf.ExistingRowsCount
				}
				if jm.AddedFiles != mf.AddedFilesCount || jm.ExistingFiles != mf.ExistingFilesCount || jm.DeletedFiles != mf.DeletedFilesCount ||
					jm.AddedRows != mf.AddedRowsCount || jm.ExistingRows != mf.ExistingRowsCount || jm.DeletedRows != mf.DeletedRowsCount {
					t.Errorf("manifest %d: Java's counts %+v, wrote %+v", i, jm, mf)
				}
				if jm.Path != mf.Path || jm.Length != mf.Length || jm.SpecID != mf.SpecID || jm.Content != int(mf.Content) ||
					jm.SequenceNumber != wantSeq || jm.MinSequenceNumber != wantMin || jm.AddedSnapshotID != snap ||
					!eqPtr(jm.FirstRowID, wantFirst) {
					t.Errorf("manifest %d: Java read %+v, wrote %+v", i, jm, mf)
				}
				if len(jm.Partitions) != len(mf.Partitions) {
					t.Fatalf("manifest %d: Java read %d summaries, wrote %d", i, len(jm.Partitions), len(mf.Partitions))
				}
				for k, s := range mf.Partitions {
					js := jm.Partitions[k]
					if js.ContainsNull != s.ContainsNull || !eqPtr(js.ContainsNaN, s.ContainsNaN) ||
						!eqPtr(js.LowerBound, hexOf(s.LowerBound)) || !eqPtr(js.UpperBound, hexOf(s.UpperBound)) {
						t.Errorf("manifest %d summary %d: Java read %+v, wrote %+v", i, k, js, s)
					}
				}
				if len(jm.Entries) != len(w.entries) {
					t.Fatalf("manifest %d: Java read %d entries, wrote %d", i, len(jm.Entries), len(w.entries))
				}
				part := w.spec.PartitionType(testSchema)
				rowID := int64(0)
				if wantFirst != nil {
					rowID = *wantFirst
				}
				for k, e := range w.entries {
					je := jm.Entries[k]
					df := e.DataFile
					wantSnap, wantDataSeq, wantFileSeq := e.SnapshotID, e.SequenceNumber, e.FileSequenceNumber
					if e.Status != iceberg.EntryExisting {
						wantSnap = snap
					}
					if e.Status == iceberg.EntryAdded {
						wantDataSeq, wantFileSeq = seq, seq
					}
					if version == 1 {
						wantDataSeq, wantFileSeq = 0, 0
					}
					var wantRow *int64
					if version == 3 && df.Content == iceberg.FileContentData {
						if e.Status == iceberg.EntryAdded {
							// Spec: null first_row_ids inherit the manifest's
							// plus the record counts of those before.
							wantRow = i64(rowID)
							rowID += df.RecordCount
						} else {
							wantRow = df.FirstRowID
						}
					}
					if je.Status != int(e.Status) || je.SnapshotID != wantSnap || je.SequenceNumber != wantDataSeq ||
						je.FileSequenceNumber != wantFileSeq || je.FilePath != df.Path || je.FileFormat != df.Format ||
						je.RecordCount != df.RecordCount || je.FileSize != df.FileSize || je.SpecID != w.spec.ID ||
						je.Content != int(df.Content) {
						t.Errorf("manifest %d entry %d: Java read %+v, wrote %+v", i, k, je, e)
					}
					if e.Status != iceberg.EntryDeleted && !eqPtr(je.FirstRowID, wantRow) {
						t.Errorf("manifest %d entry %d: Java's first_row_id %v, want %v", i, k, deref(je.FirstRowID), deref(wantRow))
					}
					for p, v := range df.Partition {
						var want *string
						if v != nil {
							b, err := iceberg.EncodeValue(part.Fields[p].Type, v)
							if err != nil {
								t.Fatal(err)
							}
							h := hex.EncodeToString(b) // an empty binary is a value, not null
							want = &h
						}
						if !eqPtr(je.Partition[p], want) {
							t.Errorf("manifest %d entry %d partition %s: Java read %v, wrote %v", i, k, part.Fields[p].Name, deref(je.Partition[p]), deref(want))
						}
					}
					if !jsonEq(je.ColumnSizes, countMapOf(df.ColumnSizes)) || !jsonEq(je.ValueCounts, countMapOf(df.ValueCounts)) ||
						!jsonEq(je.NullValueCounts, countMapOf(df.NullValueCounts)) || !jsonEq(je.NaNValueCounts, countMapOf(df.NaNValueCounts)) ||
						!jsonEq(je.LowerBounds, boundMapOf(df.LowerBounds)) || !jsonEq(je.UpperBounds, boundMapOf(df.UpperBounds)) ||
						!jsonEq(je.SplitOffsets, df.SplitOffsets) {
						t.Errorf("manifest %d entry %d metrics: Java read %+v, wrote %+v", i, k, je, df)
					}
					if version >= 2 && !jsonEq(je.EqualityIDs, df.EqualityIDs) {
						t.Errorf("manifest %d entry %d: Java's equality ids %v, wrote %v", i, k, je.EqualityIDs, df.EqualityIDs)
					}
					if df.Content == iceberg.FileContentPositionDeletes {
						if !eqPtr(je.ReferencedDataFile, &df.ReferencedDataFile) || !eqPtr(je.ContentOffset, df.ContentOffset) || !eqPtr(je.ContentSize, df.ContentSizeInBytes) {
							t.Errorf("manifest %d entry %d: Java read DV fields %v %v %v", i, k, deref(je.ReferencedDataFile), deref(je.ContentOffset), deref(je.ContentSize))
						}
					}
				}
			}
		})
	}
}

// without returns a partition case without the fields whose partition type
// skip names.
func without(pc int, skip func(iceberg.Type) bool) (iceberg.PartitionSpec, [2][]any) {
	c := partitionCases[pc]
	part := c.spec.PartitionType(testSchema)
	sp := iceberg.PartitionSpec{ID: c.spec.ID}
	var vals [2][]any
	for i, f := range c.spec.Fields {
		if skip(part.Fields[i].Type) {
			continue
		}
		sp.Fields = append(sp.Fields, f)
		vals[0] = append(vals[0], c.values[0][i])
		vals[1] = append(vals[1], c.values[1][i])
	}
	return sp, vals
}

// isFixed tells the fixed type, left out of what Java reads: Iceberg Java
// 1.12 writes a fixed partition value as Avro bytes (with a length prefix) although its schema declares a fixed, and reads it the
// same way (InternalReader maps FIXED to byteBuffers), so it cannot read
// the fixed value the Avro spec prescribes, which this writer, goavro and
// the iceberg package's reader agree on.
func isFixed(t iceberg.Type) bool {
	_, ok := t.(iceberg.FixedType)
	return ok
}

// The snapshot writeSnapshot writes: its id, the id of the snapshot its
// EXISTING entries come from, its sequence number and first row id.
const snap, oldSnap, seq, firstRow = int64(77), int64(55), int64(9), int64(1000)

// written is a manifest's entries as given to the Writer, and its spec.
type written struct {
	entries []iceberg.ManifestEntry
	spec    iceberg.PartitionSpec
}

// writeSnapshot writes, in a temporary folder, the manifests of a snapshot
// (data partitioned by identity of most types and by time transforms, and
// from v2 on deletes partitioned by truncate: ADDED, EXISTING and DELETED
// entries) and their manifest list.
func writeSnapshot(t *testing.T, version int, skip func(iceberg.Type) bool) (string, []iceberg.ManifestFile, []written) {
	t.Helper()
	dir := t.TempDir()
	var mfs []iceberg.ManifestFile
	var all []written
	write := func(name string, content iceberg.ManifestContent, fc iceberg.FileContent, pc int) {
		sp, vals := without(pc, skip)
		existing := dataFile(fc, "/data/"+name+"-old.parquet", vals[1], 30)
		if version == 3 && fc == iceberg.FileContentData {
			existing.FirstRowID = i64(500)
		}
		entries := []iceberg.ManifestEntry{
			{Status: iceberg.EntryAdded, DataFile: dataFile(fc, "/data/"+name+"-new.parquet", vals[0], 10)},
			{Status: iceberg.EntryExisting, SnapshotID: oldSnap, SequenceNumber: 3, FileSequenceNumber: 4, DataFile: existing},
			{Status: iceberg.EntryDeleted, SnapshotID: oldSnap, SequenceNumber: 2, FileSequenceNumber: 2,
				DataFile: dataFile(fc, "/data/"+name+"-gone.parquet", vals[1], 5)},
			{Status: iceberg.EntryAdded, DataFile: dataFile(fc, "/data/"+name+"-new2.parquet", vals[1], 7)},
		}
		if version == 1 {
			entries[1].SequenceNumber, entries[1].FileSequenceNumber = 0, 0
			entries[2].SequenceNumber, entries[2].FileSequenceNumber = 0, 0
		}
		loc := filepath.Join(dir, name+".avro")
		f, err := os.Create(loc)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWriter(f, WriterOptions{FormatVersion: version, Content: content, Schema: testSchema, Spec: sp, SnapshotID: snap})
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
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		mf.Path = loc
		mfs = append(mfs, mf)
		all = append(all, written{entries, sp})
	}
	write("data-identity", iceberg.ManifestContentData, iceberg.FileContentData, 1)
	if version >= 2 {
		fc := iceberg.FileContentEqualityDeletes
		if version == 3 {
			fc = iceberg.FileContentPositionDeletes
		}
		write("deletes-truncate", iceberg.ManifestContentDeletes, fc, 3)
	}
	write("data-time", iceberg.ManifestContentData, iceberg.FileContentData, 4)

	list := filepath.Join(dir, "snap.avro")
	f, err := os.Create(list)
	if err != nil {
		t.Fatal(err)
	}
	parent := oldSnap
	if _, err := WriteList(f, WriteListOptions{FormatVersion: version, SnapshotID: snap, ParentID: &parent, SequenceNumber: seq, FirstRowID: firstRow}, mfs); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	return list, mfs, all
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// jsonEq compares two values by their JSON, so that nil and empty agree
// only when both are absent.
func jsonEq(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
