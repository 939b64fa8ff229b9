package manifest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/iceflight/iceflight/iceberg"
)

// pyManifest is what testdata/pyiceberg_read.py prints of one manifest.
type pyManifest struct {
	Path              string
	Length            int64
	SpecID            int   `json:"spec_id"`
	Content           int   `json:"content"`
	SequenceNumber    int64 `json:"sequence_number"`
	MinSequenceNumber int64 `json:"min_sequence_number"`
	AddedSnapshotID   int64 `json:"added_snapshot_id"`
	Counts            []int64
	Partitions        []struct {
		ContainsNull bool            `json:"contains_null"`
		ContainsNaN  *bool           `json:"contains_nan"`
		LowerBound   json.RawMessage `json:"lower_bound"`
		UpperBound   json.RawMessage `json:"upper_bound"`
	}
	Entries []struct {
		Status             int
		SnapshotID         int64 `json:"snapshot_id"`
		SequenceNumber     int64 `json:"sequence_number"`
		FileSequenceNumber int64 `json:"file_sequence_number"`
		Content            int
		FilePath           string `json:"file_path"`
		FileFormat         string `json:"file_format"`
		RecordCount        int64  `json:"record_count"`
		FileSize           int64  `json:"file_size_in_bytes"`
		Partition          []json.RawMessage
		ColumnSizes        map[string]int64           `json:"column_sizes"`
		LowerBounds        map[string]json.RawMessage `json:"lower_bounds"`
		EqualityIDs        []int                      `json:"equality_ids"`
	}
}

// pyRead reads a manifest list and its manifests with PyIceberg, or skips
// the test when PYICEBERG_PYTHON (a Python with pyiceberg) is not set.
func pyRead(t *testing.T, list string) []pyManifest {
	t.Helper()
	py := os.Getenv("PYICEBERG_PYTHON")
	if py == "" {
		t.Skip("PYICEBERG_PYTHON is not set")
	}
	cmd := exec.Command(py, "testdata/pyiceberg_read.py", list)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyiceberg: %v\n%s", err, stderr.String())
	}
	var res struct{ Manifests []pyManifest }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("pyiceberg output: %v\n%s", err, out)
	}
	return res.Manifests
}

// pyValue is a literal as pyiceberg_read.py prints PyIceberg's value of it.
func pyValue(t iceberg.Type, v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case []byte:
		return map[string]any{"hex": hex.EncodeToString(v)}
	case [16]byte:
		return map[string]any{"hex": hex.EncodeToString(v[:])}
	case decimal128.Num:
		return map[string]any{"decimal": v.ToString(int32(t.(iceberg.DecimalType).Scale))}
	case int32:
		return float64(v)
	case int64:
		return float64(v)
	case float32:
		return float64(v)
	}
	return v
}

// noNanos leaves out nanosecond timestamps, whose Avro logical type
// (timestamp-nanos, as Iceberg Java writes it) PyIceberg 0.12 does not
// know.
func noNanos(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return true
	}
	return false
}

// TestPyIcebergReadsManifests has PyIceberg read the manifests and list
// of writeSnapshot: the counts, sequence numbers with inheritance, and
// each entry's fields and partition values.
func TestPyIcebergReadsManifests(t *testing.T) {
	t.Parallel()
	for _, version := range []int{1, 2, 3} {
		t.Run("v"+strconv.Itoa(version), func(t *testing.T) {
			t.Parallel()
			list, mfs, all := writeSnapshot(t, version, noNanos)
			py := pyRead(t, list)
			if len(py) != len(mfs) {
				t.Fatalf("PyIceberg read %d manifests, want %d", len(py), len(mfs))
			}
			for i, pm := range py {
				mf, w := mfs[i], all[i]
				wantSeq, wantMin := seq, mf.MinSequenceNumber
				if wantMin == 0 {
					wantMin = seq
				}
				if version == 1 {
					wantSeq, wantMin = 0, 0
				}
				counts := []int64{mf.AddedFilesCount, mf.ExistingFilesCount, mf.DeletedFilesCount, mf.AddedRowsCount, mf.ExistingRowsCount, mf.DeletedRowsCount}
				if pm.Path != mf.Path || pm.Length != mf.Length || pm.SpecID != mf.SpecID || pm.Content != int(mf.Content) ||
					pm.SequenceNumber != wantSeq || pm.MinSequenceNumber != wantMin || pm.AddedSnapshotID != snap ||
					!reflect.DeepEqual(pm.Counts, counts) || len(pm.Partitions) != len(mf.Partitions) {
					t.Errorf("manifest %d: PyIceberg read %+v, wrote %+v", i, pm, mf)
				}
				if len(pm.Entries) != len(w.entries) {
					t.Fatalf("manifest %d: PyIceberg read %d entries, wrote %d", i, len(pm.Entries), len(w.entries))
				}
				part := w.spec.PartitionType(testSchema)
				for k, e := range w.entries {
					pe, df := pm.Entries[k], e.DataFile
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
					if pe.Status != int(e.Status) || pe.SnapshotID != wantSnap || pe.SequenceNumber != wantDataSeq ||
						pe.FileSequenceNumber != wantFileSeq || pe.FilePath != df.Path || pe.FileFormat != df.Format ||
						pe.RecordCount != df.RecordCount || pe.FileSize != df.FileSize || pe.Content != int(df.Content) ||
						!reflect.DeepEqual(pe.ColumnSizes, countMapOf(df.ColumnSizes)) || len(pe.LowerBounds) != len(df.LowerBounds) {
						t.Errorf("manifest %d entry %d: PyIceberg read %+v, wrote %+v", i, k, pe, e)
					}
					for p, v := range df.Partition {
						var got any
						if err := json.Unmarshal(pe.Partition[p], &got); err != nil {
							t.Fatal(err)
						}
						if want := pyValue(part.Fields[p].Type, v); !reflect.DeepEqual(got, want) {
							t.Errorf("manifest %d entry %d partition %s: PyIceberg read %s, wrote %v", i, k, part.Fields[p].Name, pe.Partition[p], want)
						}
					}
				}
			}
		})
	}
}
