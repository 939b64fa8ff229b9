package manifest

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

func manifestFile(path string, content iceberg.ManifestContent, snap, seq int64, added, existing int64, first *int64) iceberg.ManifestFile {
	f := false
	return iceberg.ManifestFile{
		Path: path, Length: 4000, SpecID: 1, Content: content, SequenceNumber: seq, MinSequenceNumber: seq,
		AddedSnapshotID: snap, AddedFilesCount: 1, ExistingFilesCount: 2, DeletedFilesCount: 0,
		AddedRowsCount: added, ExistingRowsCount: existing, DeletedRowsCount: 0,
		Partitions: []iceberg.FieldSummary{{ContainsNull: true, ContainsNaN: &f, LowerBound: []byte{1, 0, 0, 0}, UpperBound: []byte{7, 0, 0, 0}}},
		FirstRowID: first,
	}
}

// TestWriteListFirstRowIDs follows the spec's example (Row Lineage: First
// Row ID Assignment): with the snapshot's first-row-id 1000, an existing
// manifest keeps its first_row_id, added1 (100 added, 25 existing rows) is
// assigned 1000, added2 (0, 100) 1125 and added3 (125, 25) 1225; 375 rows
// are assigned and the table's next-row-id becomes 1375. Delete manifests
// get no first_row_id.
func TestWriteListFirstRowIDs(t *testing.T) {
	t.Parallel()
	const snap, seq = int64(9), int64(4)
	parent := int64(8)
	in := []iceberg.ManifestFile{
		manifestFile("existing", iceberg.ManifestContentData, 3, 2, 0, 800, i64(0)),
		manifestFile("added1", iceberg.ManifestContentData, snap, 0, 100, 25, nil),
		manifestFile("added2", iceberg.ManifestContentData, snap, 0, 0, 100, nil),
		manifestFile("deletes", iceberg.ManifestContentDeletes, snap, 0, 7, 0, nil),
		manifestFile("added3", iceberg.ManifestContentData, snap, 0, 125, 25, nil),
	}
	in[1].MinSequenceNumber = 0 // all its entries inherit
	in[2].MinSequenceNumber = 3 // it has an existing entry of sequence number 3
	var buf bytes.Buffer
	assigned, err := WriteList(&buf, WriteListOptions{FormatVersion: 3, SnapshotID: snap, ParentID: &parent, SequenceNumber: seq, FirstRowID: 1000}, in)
	if err != nil {
		t.Fatal(err)
	}
	if assigned != 375 {
		t.Errorf("assigned %d rows, want 375", assigned)
	}
	got, err := ReadList(bytes.NewReader(buf.Bytes()), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []iceberg.ManifestFile{in[0], in[1], in[2], in[3], in[4]}
	want[1].FirstRowID, want[2].FirstRowID, want[4].FirstRowID = i64(1000), i64(1125), i64(1225)
	for _, i := range []int{1, 2, 3, 4} {
		want[i].SequenceNumber = seq
	}
	want[1].MinSequenceNumber = seq
	want[3].MinSequenceNumber, want[4].MinSequenceNumber = seq, seq
	if !reflect.DeepEqual(got, want) {
		t.Errorf("manifest list:\n got %+v\nwant %+v", got, want)
	}
	md, err := Metadata(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"snapshot-id": "9", "parent-snapshot-id": "8", "sequence-number": "4", "format-version": "3", "first-row-id": "1000", "avro.codec": "deflate"} {
		if md[k] != v {
			t.Errorf("%s = %q, want %q", k, md[k], v)
		}
	}
}

// TestWriteListVersions round-trips manifest lists of each version through
// ReadList: v1 has no content or sequence numbers (read as
// 0) and may leave counts absent (-1); a parentless snapshot's
// parent-snapshot-id is "null", as Java writes it.
func TestWriteListVersions(t *testing.T) {
	t.Parallel()
	for _, version := range []int{1, 2, 3} {
		mf := manifestFile("m", iceberg.ManifestContentData, 5, 0, 10, 0, nil)
		var buf bytes.Buffer
		if _, err := WriteList(&buf, WriteListOptions{FormatVersion: version, SnapshotID: 5, SequenceNumber: 1}, []iceberg.ManifestFile{mf}); err != nil {
			t.Fatal(err)
		}
		got, err := ReadList(bytes.NewReader(buf.Bytes()), version, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := mf
		switch version {
		case 1:
			want.SequenceNumber, want.MinSequenceNumber = 0, 0
		case 2:
			want.SequenceNumber, want.MinSequenceNumber = 1, 1
		case 3:
			want.SequenceNumber, want.MinSequenceNumber, want.FirstRowID = 1, 1, i64(0)
		}
		if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
			t.Errorf("v%d:\n got %+v\nwant %+v", version, got, want)
		}
		recs := goavroRecords(t, buf.Bytes())
		if len(recs) != 1 || recs[0]["manifest_path"] != "m" || recs[0]["manifest_length"] != int64(4000) ||
			recs[0]["added_snapshot_id"] != int64(5) {
			t.Errorf("v%d: goavro reads %v", version, recs)
		}
		md, _ := Metadata(bytes.NewReader(buf.Bytes()))
		if md["parent-snapshot-id"] != "null" || md["format-version"] != string(rune('0'+version)) {
			t.Errorf("v%d metadata %v", version, md)
		}
	}

	absent := manifestFile("m", iceberg.ManifestContentData, 5, 0, 10, 0, nil)
	absent.AddedFilesCount, absent.ExistingRowsCount = -1, -1
	var buf bytes.Buffer
	if _, err := WriteList(&buf, WriteListOptions{FormatVersion: 1, SnapshotID: 5}, []iceberg.ManifestFile{absent}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadList(bytes.NewReader(buf.Bytes()), 1, nil)
	if err != nil || len(got) != 1 || got[0].AddedFilesCount != -1 || got[0].ExistingRowsCount != -1 || got[0].AddedRowsCount != 10 {
		t.Errorf("v1 absent counts: %+v, %v", got, err)
	}
	if _, err := WriteList(&buf, WriteListOptions{FormatVersion: 2, SnapshotID: 5}, []iceberg.ManifestFile{absent}); err == nil {
		t.Errorf("v2 list with an absent count: no error")
	}
}
