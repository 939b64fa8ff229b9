package changelog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// With v3 row lineage, a change stream asked for _row_id (and
// _last_updated_sequence_number) carries them: the changes from the
// table's start to a snapshot, applied to no rows, give the rows with the
// lineage Iceberg Java reads at that snapshot, for each of Java's queries
// of the v3 lineage sample that reads _row_id.
func TestChangesCarryRowLineage(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../testdata/warehouse/samples")
	if err != nil {
		t.Fatal(err)
	}
	var idx sampleIndex
	testutil.ReadJSON(t, "../testdata/expected/samples.v3_lineage/index.json", &idx)
	md := readMetadata(t, filepath.Join(root, "v3_lineage", idx.MetadataFile))
	tb := Table{Name: "samples.v3_lineage", Metadata: md,
		IO: fileio.Remap(fileio.NewResolver(), fileio.Rule{From: samplesWritten, To: root})}
	var index struct {
		Queries []struct {
			Name      string          `json:"name"`
			Table     string          `json:"table"`
			Columns   []string        `json:"columns"`
			Filter    json.RawMessage `json:"filter"`
			Scanned   int64           `json:"scanned_snapshot_id"`
			Schema    iceberg.Schema  `json:"schema"`
			Sensitive bool            `json:"case_sensitive"`
		} `json:"queries"`
	}
	testutil.ReadJSON(t, "../testdata/expected-queries/index.json", &index)
	checked := 0
	for _, q := range index.Queries {
		if q.Table != "samples.v3_lineage" || !strings.Contains(strings.Join(q.Columns, ","), "_row_id") {
			continue
		}
		r := Request{ToSnapshotID: q.Scanned, Columns: q.Columns, CaseSensitive: q.Sensitive}
		if len(q.Filter) > 0 {
			if r.Filter, err = expr.ParseJSON(q.Filter); err != nil {
				t.Fatal(err)
			}
		}
		_, changes, err := canonicalChanges(t, tb, r)
		if err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		for i := range changes {
			changes[i].row = sortedKeys(t, changes[i].row)
		}
		got, err := apply(multiset{}, changes)
		if err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		rows, err := testutil.OracleFile(&q.Schema, filepath.Join("../testdata/expected-queries", q.Name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		want := multiset{}
		for _, row := range rows {
			want[sortedKeys(t, row)]++
		}
		if d := diffSets(got, want); d != "" {
			t.Errorf("%s: the changes from the start differ from Java's rows:\n%s", q.Name, d)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no lineage query of the v3 sample")
	}
	fmt.Printf("changelog row lineage: %d of Java's _row_id queries equal\n", checked)
}

// sortedKeys spells a canonical row with its columns by name: the
// projection's order is not what is compared here.
func sortedKeys(t *testing.T, row string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(row))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", row, err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readMetadata(t *testing.T, path string) *iceberg.TableMetadata {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return md
}
