package changelog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// samplesWritten is where the sample tables were written, as their
// metadata records it.
const samplesWritten = "/work/main/testdata/warehouse/samples"

// sampleIndex is the Java oracle's index of a sample table
// (testdata/conformance/README.md).
type sampleIndex struct {
	MetadataFile string `json:"metadata_file"`
	Scans        []struct {
		Name       string          `json:"name"`
		SnapshotID int64           `json:"snapshot_id"`
		Schema     json.RawMessage `json:"schema"`
		File       string          `json:"file"`
	} `json:"scans"`
}

// The sample tables Iceberg Java wrote (testdata/warehouse/samples:
// equality deletes across partition specs, deletion vectors, position
// deletes, v3 row lineage, overwrites): for each snapshot of the current
// ancestry whose rows Java read, the changes from its parent applied to
// Java's rows at the parent give Java's rows at the snapshot, and the
// changes of the whole range give the rows at its end. Spark cannot be the
// oracle of equality deletes (it writes none, and its changelog refuses
// delete files), so Java's reads of the snapshots are.
func TestChangesTakeJavaRowsAcrossSnapshots(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../testdata/warehouse/samples")
	if err != nil {
		t.Fatal(err)
	}
	names, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	tables, ranges, skipped := 0, 0, 0
	for _, e := range names {
		name := e.Name()
		var idx sampleIndex
		testutil.ReadJSON(t, filepath.Join("../testdata/expected", "samples."+name, "index.json"), &idx)
		b, err := os.ReadFile(filepath.Join(root, name, idx.MetadataFile))
		if err != nil {
			t.Fatal(err)
		}
		md, err := iceberg.ParseMetadata(b)
		if err != nil {
			t.Fatal(err)
		}
		current, _ := json.Marshal(md.CurrentSchema())
		rowsAt := map[int64]multiset{}
		for _, s := range idx.Scans {
			var schema iceberg.Schema
			if err := json.Unmarshal(s.Schema, &schema); err != nil {
				t.Fatal(err)
			}
			mine, _ := json.Marshal(&schema)
			if string(mine) != string(current) {
				// Java reads an old snapshot with its own schema; the
				// changes have the current one.
				continue
			}
			rows, err := testutil.OracleFile(&schema, filepath.Join("../testdata/expected", "samples."+name, s.File))
			if err != nil {
				t.Fatal(err)
			}
			set := multiset{}
			for _, r := range rows {
				set[r]++
			}
			rowsAt[s.SnapshotID] = set
		}
		tb := Table{Name: "samples." + name, Metadata: md,
			IO: fileio.Remap(fileio.NewResolver(), fileio.Rule{From: samplesWritten, To: root})}
		check := func(from *int64, to int64) bool {
			t.Helper()
			start := multiset{}
			if from != nil {
				start = rowsAt[*from]
			}
			_, changes, err := canonicalChanges(t, tb, Request{FromSnapshotID: from, ToSnapshotID: to})
			if err != nil {
				t.Errorf("%s (%v, %d]: %v", name, deref(from), to, err)
				return false
			}
			got, err := apply(start, changes)
			if err != nil {
				t.Errorf("%s (%v, %d]: %v", name, deref(from), to, err)
				return false
			}
			if d := diffSets(got, rowsAt[to]); d != "" {
				t.Errorf("%s (%v, %d]: Java's rows at the start plus the changes differ from Java's rows at the end:\n%s", name, deref(from), to, d)
				return false
			}
			ranges++
			return true
		}
		var first *int64
		checked := 0
		for s := md.CurrentSnapshot(); s != nil; {
			if _, ok := rowsAt[s.SnapshotID]; ok {
				parent := s.ParentSnapshotID
				_, known := rowsAt[deref64(parent)]
				if parent == nil || known {
					check(parent, s.SnapshotID)
					checked++
					id := s.SnapshotID
					first = &id
				}
			}
			if s.ParentSnapshotID == nil {
				break
			}
			next, ok := md.SnapshotByID(*s.ParentSnapshotID)
			if !ok {
				break
			}
			s = next
		}
		if cur := md.CurrentSnapshot(); first != nil && cur != nil && *first != cur.SnapshotID {
			if p, _ := md.SnapshotByID(*first); p.ParentSnapshotID == nil || rowsAt[*p.ParentSnapshotID] != nil {
				check(p.ParentSnapshotID, cur.SnapshotID)
			}
		}
		if checked == 0 {
			skipped++
			continue
		}
		t.Logf("%s: %d snapshots checked against their parents", name, checked)
		tables++
	}
	if tables == 0 {
		t.Fatal("no sample table was checked")
	}
	fmt.Printf("changelog vs Java's snapshot reads: %d sample tables, %d ranges equal, %d tables without two comparable snapshots\n", tables, ranges, skipped)
}

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
