package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/iceberg"
)

// The corpus tests in this file walk the conformance corpus from snapshots
// through manifest lists to manifests: real tables written by Spark, Flink,
// Trino, Impala and Hive (../../../shared/conformance, see its README.md). They
// skip where the corpus is absent. Hand-built manifest lists are tested in
// list_read_test.go, hand-built manifests in read_test.go.

// conformanceCorpus returns the corpus folder, or skips the test.
func conformanceCorpus(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "conformance")
	if _, err := os.Stat(filepath.Join(dir, "INDEX.md")); err != nil {
		t.Skipf("conformance corpus not found at %s: %v", dir, err)
	}
	return dir
}

// handEdited names corpus tables whose manifests were edited by hand after
// writing, so that counts in the manifest list and the snapshot summary no
// longer describe the manifests. Such tables must still decode.
var handEdited = map[string]string{
	"apache-impala__iceberg_v2_null_delete_record": "Impala's test data adds data and delete files to the manifests without updating the manifest list counts or the snapshot summary",
}

// corpusTable is one table of the corpus with its latest metadata.
type corpusTable struct {
	name, dir string
	md        *iceberg.TableMetadata
}

// corpusTableNames lists the tables of INDEX.md with their latest metadata
// file.
func corpusTableNames(t testing.TB) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(conformanceCorpus(t), "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	nameCol, metaCol := -1, -1
	for _, line := range strings.Split(string(raw), "\n") {
		cols := strings.Split(line, "|")
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		if nameCol < 0 {
			for i, c := range cols {
				switch c {
				case "table":
					nameCol = i
				case "latest metadata":
					metaCol = i
				}
			}
			continue
		}
		if len(cols) > metaCol && strings.Contains(cols[nameCol], "__") {
			out[cols[nameCol]] = cols[metaCol]
		}
	}
	if len(out) == 0 {
		t.Fatal("INDEX.md lists no tables")
	}
	return out
}

func loadCorpusTable(t testing.TB, name string) corpusTable {
	t.Helper()
	latest, ok := corpusTableNames(t)[name]
	if !ok {
		t.Fatalf("table %s is not in INDEX.md", name)
	}
	dir := filepath.Join(conformanceCorpus(t), "tables", name)
	raw, err := os.ReadFile(filepath.Join(dir, "metadata", latest))
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return corpusTable{name: name, dir: dir, md: md}
}

// local maps a location written in the metadata to the copy under the
// table's metadata folder.
func (ct corpusTable) local(location string) string {
	return filepath.Join(ct.dir, "metadata", filepath.Base(location))
}

func (ct corpusTable) manifestList(t testing.TB, s *iceberg.Snapshot) []iceberg.ManifestFile {
	t.Helper()
	f, err := os.Open(ct.local(s.ManifestList))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mfs, err := ReadList(f, ct.md.FormatVersion, s)
	if err != nil {
		t.Fatalf("%s: manifest list %s: %v", ct.name, s.ManifestList, err)
	}
	return mfs
}

func (ct corpusTable) entries(t *testing.T, mf iceberg.ManifestFile) []iceberg.ManifestEntry {
	t.Helper()
	spec, ok := ct.md.SpecByID(mf.SpecID)
	if !ok {
		t.Fatalf("%s: manifest %s has unknown spec %d", ct.name, mf.Path, mf.SpecID)
	}
	f, err := os.Open(ct.local(mf.Path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	es, err := Read(f, mf, spec.PartitionType(ct.md.CurrentSchema()))
	if err != nil {
		t.Fatalf("%s: %v", ct.name, err)
	}
	return es
}

// liveEntries reads every manifest of the current snapshot and returns its
// ADDED and EXISTING entries.
func (ct corpusTable) liveEntries(t *testing.T) []iceberg.ManifestEntry {
	t.Helper()
	s := ct.md.CurrentSnapshot()
	if s == nil {
		t.Fatalf("%s has no current snapshot", ct.name)
	}
	var live []iceberg.ManifestEntry
	for _, mf := range ct.manifestList(t, s) {
		for _, e := range ct.entries(t, mf) {
			if e.Status != iceberg.EntryDeleted {
				live = append(live, e)
			}
		}
	}
	return live
}

func TestCorpusEveryManifestDecodes(t *testing.T) {
	t.Parallel()
	for name := range corpusTableNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ct := loadCorpusTable(t, name)
			seen := map[string]bool{}
			for i := range ct.md.Snapshots {
				s := &ct.md.Snapshots[i]
				seen[filepath.Base(s.ManifestList)] = true
				for _, mf := range ct.manifestList(t, s) {
					seen[filepath.Base(mf.Path)] = true
					checkManifestAgainstList(t, ct, mf, ct.entries(t, mf))
				}
			}
			// Files no snapshot of the latest metadata reaches (expired
			// snapshots) must decode too, standalone.
			files, _ := filepath.Glob(filepath.Join(ct.dir, "metadata", "*.avro"))
			for _, path := range files {
				if !seen[filepath.Base(path)] {
					decodeStandalone(t, path)
				}
			}
		})
	}
}

// checkManifestAgainstList checks a manifest's entries against the summary
// its manifest list keeps for it.
func checkManifestAgainstList(t *testing.T, ct corpusTable, mf iceberg.ManifestFile, es []iceberg.ManifestEntry) {
	t.Helper()
	spec, _ := ct.md.SpecByID(mf.SpecID)
	var files, rows [3]int64
	for _, e := range es {
		files[e.Status]++
		rows[e.Status] += e.DataFile.RecordCount
		if isDelete := e.DataFile.Content != iceberg.FileContentData; isDelete != (mf.Content == iceberg.ManifestContentDeletes) {
			t.Errorf("%s: %s manifest %s holds a %v file", ct.name, mf.Content, filepath.Base(mf.Path), e.DataFile.Content)
		}
		if len(e.DataFile.Partition) != len(spec.Fields) || e.DataFile.SpecID != mf.SpecID {
			t.Errorf("%s: %s: partition %v for spec %d with %d fields", ct.name, e.DataFile.Path, e.DataFile.Partition, mf.SpecID, len(spec.Fields))
		}
		if e.SequenceNumber > mf.SequenceNumber || e.FileSequenceNumber > mf.SequenceNumber {
			t.Errorf("%s: %s: sequence numbers %d/%d after the manifest's %d", ct.name, e.DataFile.Path, e.SequenceNumber, e.FileSequenceNumber, mf.SequenceNumber)
		}
	}
	if reason, ok := handEdited[ct.name]; ok {
		t.Logf("counts not checked: %s", reason)
		return
	}
	for i, want := range [][2]int64{
		{mf.ExistingFilesCount, files[iceberg.EntryExisting]}, {mf.AddedFilesCount, files[iceberg.EntryAdded]},
		{mf.DeletedFilesCount, files[iceberg.EntryDeleted]}, {mf.ExistingRowsCount, rows[iceberg.EntryExisting]},
		{mf.AddedRowsCount, rows[iceberg.EntryAdded]}, {mf.DeletedRowsCount, rows[iceberg.EntryDeleted]},
	} {
		if want[0] >= 0 && want[0] != want[1] {
			t.Errorf("%s: manifest %s: count %d: list says %d, entries give %d", ct.name, filepath.Base(mf.Path), i, want[0], want[1])
		}
	}
}

// decodeStandalone decodes a manifest or manifest list without a table
// around it: a manifest takes its spec and schema from its own header.
func decodeStandalone(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readStandalone(raw); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}

// readStandalone decodes a manifest list, or a manifest with the partition
// type its header's schema and spec give, and returns its entry count.
func readStandalone(raw []byte) (int, error) {
	meta, err := Metadata(bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	if _, isManifest := meta["partition-spec"]; !isManifest {
		fv, _ := strconv.Atoi(meta["format-version"])
		files, err := ReadList(bytes.NewReader(raw), fv, &iceberg.Snapshot{})
		return len(files), err
	}
	var pt *iceberg.StructType
	if s, ok := meta["schema"]; ok {
		schema := new(iceberg.Schema)
		var spec iceberg.PartitionSpec
		if err := schema.UnmarshalJSON([]byte(s)); err != nil {
			return 0, fmt.Errorf("%w: schema: %v", iceberg.ErrInvalidMetadata, err)
		}
		if err := json.Unmarshal([]byte(`{"fields":`+meta["partition-spec"]+`}`), &spec); err != nil {
			return 0, fmt.Errorf("%w: partition-spec: %v", iceberg.ErrInvalidMetadata, err)
		}
		pt = spec.PartitionType(schema)
	}
	entries, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{}, pt)
	return len(entries), err
}

// Spec (Appendix F): total-data-files, total-delete-files, total-records,
// total-position-deletes and total-equality-deletes summarize the live files
// of a snapshot.
func TestCorpusCurrentSnapshotMatchesSummary(t *testing.T) {
	t.Parallel()
	for name := range corpusTableNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ct := loadCorpusTable(t, name)
			s := ct.md.CurrentSnapshot()
			if s == nil {
				t.Skip("no current snapshot")
			}
			if reason, ok := handEdited[name]; ok {
				t.Skip(reason)
			}
			got := map[string]int64{}
			for _, e := range ct.liveEntries(t) {
				switch e.DataFile.Content {
				case iceberg.FileContentData:
					got["total-data-files"]++
					got["total-records"] += e.DataFile.RecordCount
				case iceberg.FileContentPositionDeletes:
					got["total-delete-files"]++
					got["total-position-deletes"] += e.DataFile.RecordCount
				case iceberg.FileContentEqualityDeletes:
					got["total-delete-files"]++
					got["total-equality-deletes"] += e.DataFile.RecordCount
				}
			}
			checked := 0
			for key, n := range got {
				want, ok := s.Summary.Get(key)
				if !ok {
					continue
				}
				checked++
				if strconv.FormatInt(n, 10) != want {
					t.Errorf("%s: manifests give %d, summary says %s", key, n, want)
				}
			}
			if checked == 0 && len(got) > 0 {
				t.Errorf("summary %v has none of %v", s.Summary.Map(), got)
			}
		})
	}
}

// A v1 table (Spark): the manifest list has no sequence numbers and uses
// the old added_data_files_count names; entries carry their snapshot id.
func TestCorpusV1Table(t *testing.T) {
	t.Parallel()
	ct := loadCorpusTable(t, "apache-impala__iceberg_partitioned")
	s := ct.md.CurrentSnapshot()
	mfs := ct.manifestList(t, s)
	if len(mfs) != 1 {
		t.Fatalf("got %d manifests, want 1", len(mfs))
	}
	mf := mfs[0]
	if mf.Content != iceberg.ManifestContentData || mf.SequenceNumber != 0 || mf.MinSequenceNumber != 0 ||
		mf.AddedSnapshotID != s.SnapshotID || mf.AddedFilesCount != 20 || mf.AddedRowsCount != 20 || len(mf.Partitions) != 2 {
		t.Errorf("manifest file %+v", mf)
	}
	es := ct.entries(t, mf)
	for _, e := range es {
		if e.Status != iceberg.EntryAdded || e.SnapshotID != s.SnapshotID || e.SequenceNumber != 0 || e.FileSequenceNumber != 0 ||
			e.DataFile.Format != "PARQUET" || e.DataFile.Content != iceberg.FileContentData {
			t.Errorf("entry %+v", e)
		}
		// Partition folders name the values: event_time_hour=2020-01-01-08/action=view.
		hour, action := pathFolderValue(t, e.DataFile.Path, "event_time_hour"), pathFolderValue(t, e.DataFile.Path, "action")
		ts, err := time.Parse("2006-01-02-15", hour)
		if err != nil {
			t.Fatal(err)
		}
		if want := []any{int32(ts.Unix() / 3600), action}; !reflect.DeepEqual(e.DataFile.Partition, want) {
			t.Errorf("%s: partition %#v, want %#v", e.DataFile.Path, e.DataFile.Partition, want)
		}
	}
}

// pathFolderValue returns the value of a name=value folder in a path.
func pathFolderValue(t *testing.T, path, name string) string {
	t.Helper()
	for _, seg := range strings.Split(path, "/") {
		if v, ok := strings.CutPrefix(seg, name+"="); ok {
			return v
		}
	}
	t.Fatalf("%s has no %s= folder", path, name)
	return ""
}

// A v2 table with delete manifests (Flink equality deletes, then an Impala
// position delete): contents, equality ids and inherited sequence numbers.
func TestCorpusV2DeleteManifests(t *testing.T) {
	t.Parallel()
	ct := loadCorpusTable(t, "apache-impala__iceberg_v2_delete_both_eq_and_pos")
	var kinds []string
	for _, mf := range ct.manifestList(t, ct.md.CurrentSnapshot()) {
		for _, e := range ct.entries(t, mf) {
			f := e.DataFile
			if e.SequenceNumber != mf.SequenceNumber || e.FileSequenceNumber != mf.SequenceNumber || e.SnapshotID != mf.AddedSnapshotID {
				t.Errorf("%s: seq %d/%d snapshot %d, manifest seq %d snapshot %d", f.Path, e.SequenceNumber, e.FileSequenceNumber, e.SnapshotID, mf.SequenceNumber, mf.AddedSnapshotID)
			}
			switch f.Content {
			case iceberg.FileContentEqualityDeletes:
				if !reflect.DeepEqual(f.EqualityIDs, []int{1, 3}) {
					t.Errorf("%s: equality ids %v, want [1 3]", f.Path, f.EqualityIDs)
				}
			case iceberg.FileContentPositionDeletes, iceberg.FileContentData:
				if f.EqualityIDs != nil {
					t.Errorf("%s: equality ids %v on a %v file", f.Path, f.EqualityIDs, f.Content)
				}
			}
			kinds = append(kinds, mf.Content.String()+"/"+f.Content.String()+"@"+strconv.FormatInt(e.SequenceNumber, 10))
		}
	}
	want := "data/DATA@2 data/DATA@1 deletes/POSITION_DELETES@3 deletes/EQUALITY_DELETES@2 deletes/EQUALITY_DELETES@1"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("entries %s, want %s", got, want)
	}
}

// v3 row lineage: data files written with a null first_row_id inherit the
// manifest's first_row_id plus the rows of the files before them; deletion
// vectors reference their data file and blob.
func TestCorpusV3FirstRowID(t *testing.T) {
	t.Parallel()
	ct := loadCorpusTable(t, "apache-impala__iceberg_v3_deletion_vectors")
	var dvs int
	for _, mf := range ct.manifestList(t, ct.md.CurrentSnapshot()) {
		es := ct.entries(t, mf)
		if mf.Content == iceberg.ManifestContentData {
			if mf.FirstRowID == nil || *mf.FirstRowID != 0 || len(es) != 5 {
				t.Fatalf("data manifest first_row_id %v with %d entries", mf.FirstRowID, len(es))
			}
			next := *mf.FirstRowID
			for _, e := range es {
				if e.DataFile.FirstRowID == nil || *e.DataFile.FirstRowID != next {
					t.Errorf("%s: first_row_id %v, want %d", e.DataFile.Path, e.DataFile.FirstRowID, next)
				}
				next += e.DataFile.RecordCount
			}
			// Read without the manifest's first_row_id, the files show the
			// nulls they were written with.
			raw := mf
			raw.FirstRowID = nil
			f, _ := os.Open(ct.local(mf.Path))
			plain, err := Read(f, raw, nil)
			f.Close()
			if err != nil || plain[0].DataFile.FirstRowID != nil {
				t.Errorf("without inheritance: %v, %v", err, plain[0].DataFile.FirstRowID)
			}
			continue
		}
		for _, e := range es {
			f := e.DataFile
			if f.Content != iceberg.FileContentPositionDeletes || f.Format != "PUFFIN" || f.FirstRowID != nil ||
				!strings.HasSuffix(f.ReferencedDataFile, ".parquet") || f.ContentOffset == nil || f.ContentSizeInBytes == nil || *f.ContentSizeInBytes <= 0 {
				t.Errorf("deletion vector %+v", f)
			}
			dvs++
		}
	}
	if dvs != 2 {
		t.Errorf("got %d deletion vectors, want 2", dvs)
	}
}
