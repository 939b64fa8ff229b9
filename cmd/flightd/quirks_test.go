package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// quirksFile lists the metadata quirks seen in the wild (issue 11), each a
// copy of a sample table with its metadata files renamed.
var quirksFile = filepath.Join("..", "..", "testdata", "quirks", "layouts.json")

// quirkWarehouse builds a warehouse holding a table quirks.<name> per layout
// of quirksFile, and beside it the oracle's folder for each: the scans the
// oracle made of the source table's snapshots that the served metadata file
// holds, the one current there as "current". It returns both folders and
// the layouts.
func quirkWarehouse(t *testing.T) (warehouse, expected string, q testutil.QuirkLayouts) {
	t.Helper()
	q = testutil.LoadQuirks(t, quirksFile)
	ns, name, _ := strings.Cut(q.Table, ".")
	src := filepath.Join("..", "..", "testdata", "warehouse", ns, name)
	srcExpected := filepath.Join("..", "..", "testdata", "expected", q.Table)
	var idx oracleIndex
	testutil.ReadJSON(t, filepath.Join(srcExpected, "index.json"), &idx)
	warehouse, expected = filepath.Join(t.TempDir(), "quirks"), t.TempDir()
	for _, qk := range q.Quirks {
		testutil.WriteFiles(t, filepath.Join(warehouse, "quirks", qk.Table), testutil.QuirkFiles(t, src, qk.Metadata, qk.Hint))
		var served struct {
			Current   *int64 `json:"current-snapshot-id"`
			Snapshots []struct {
				ID int64 `json:"snapshot-id"`
			} `json:"snapshots"`
		}
		testutil.ReadJSON(t, filepath.Join(src, "metadata", "v"+strconv.Itoa(qk.Serves)+".metadata.json"), &served)
		out := oracleIndex{Table: "quirks." + qk.Table, FormatVersion: idx.FormatVersion, CurrentSnapshotID: served.Current}
		held := map[int64]bool{}
		for _, s := range served.Snapshots {
			held[s.ID] = true
		}
		for _, sc := range idx.Scans {
			if sc.SnapshotID == nil || sc.Name == "current" || !held[*sc.SnapshotID] {
				continue
			}
			if served.Current != nil && *sc.SnapshotID == *served.Current {
				cur := sc
				cur.Name = "current"
				out.Scans = append(out.Scans, cur)
			}
			out.Scans = append(out.Scans, sc)
		}
		if len(out.Scans) == 0 {
			t.Fatalf("%s serves v%d, which has no snapshot the oracle read", qk.Table, qk.Serves)
		}
		dir := filepath.Join(expected, out.Table)
		files := map[string][]byte{}
		for _, sc := range out.Scans {
			b, err := os.ReadFile(filepath.Join(srcExpected, sc.File))
			if err != nil {
				t.Fatal(err)
			}
			files[sc.File] = b
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		files["index.json"] = b
		testutil.WriteFiles(t, dir, files)
	}
	return warehouse, expected, q
}

// Every metadata quirk of the wild reads through a real flightd as the Java
// oracle read the table it was made from: its current snapshot is the one
// the newest metadata file says, and each of its snapshots reads the same.
func TestConformanceMetadataQuirksMatchJavaOracle(t *testing.T) {
	warehouse, expected, q := quirkWarehouse(t)
	tl := compareWithOracle(t, warehouse, expected)
	printTally("conformance metadata quirks", tl)
	if tl.tables != len(q.Quirks) || tl.tablesEqual != tl.tables || tl.scansEqual != tl.scans {
		var why []string
		for _, qk := range q.Quirks {
			why = append(why, fmt.Sprintf("%s (%s)", qk.Table, qk.Why))
		}
		t.Errorf("every quirk must read back equal: %s; the quirks: %s", tl, strings.Join(why, "; "))
	}
}
