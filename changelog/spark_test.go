package changelog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// sparkWarehouse is where tools/sparkgen/changelog.py wrote the tables, as
// their metadata records it.
const sparkWarehouse = "/tmp/iceflight-fixtures/changelog/warehouse"

// sparkExpected is what changelog.py recorded of one table.
type sparkExpected struct {
	Table     string `json:"table"`
	Snapshots []struct {
		ID        int64  `json:"id"`
		Operation string `json:"operation"`
	} `json:"snapshots"`
	Ranges []struct {
		From           *int64   `json:"from"`
		To             int64    `json:"to"`
		ComputeUpdates bool     `json:"compute_updates"`
		Rows           []string `json:"rows"`
		Error          string   `json:"error"`
	} `json:"ranges"`
	SnapshotRows map[string][]string `json:"snapshot_rows"`
}

// sparkTable opens a table changelog.py wrote, committed under
// testdata/changelog.
func sparkTable(t *testing.T, name string) (Table, sparkExpected) {
	t.Helper()
	root, err := filepath.Abs("../testdata/changelog")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "db", name, "metadata")
	hint, err := os.ReadFile(filepath.Join(dir, "version-hint.text"))
	if err != nil {
		t.Fatal(err)
	}
	mf := filepath.Join(dir, "v"+strings.TrimSpace(string(hint))+".metadata.json")
	b, err := os.ReadFile(mf)
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(b)
	if err != nil {
		t.Fatalf("%s: %v", mf, err)
	}
	var want sparkExpected
	testutil.ReadJSON(t, filepath.Join(root, "expected", name+".json"), &want)
	io := fileio.Remap(fileio.NewResolver(), fileio.Rule{From: sparkWarehouse, To: root})
	return Table{Name: "db." + name, MetadataLocation: mf, Metadata: md, IO: io}, want
}

// canonicalChanges reads a change stream into canonical rows (with the
// change columns), and into changes of canonical table rows.
func canonicalChanges(t *testing.T, tb Table, r Request) (rows []string, changes []change, err error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	scan, err := Plan(ctx, tb, r)
	if err != nil {
		return nil, nil, err
	}
	full := Schema(scan.Schema)
	for _, u := range scan.Units {
		err := Read(ctx, tb, viaJSON(t, u), func(b arrow.RecordBatch) error {
			defer b.Release()
			all, err := testutil.ArrowRows(full, b)
			if err != nil {
				return err
			}
			rows = append(rows, all...)
			n := len(scan.Schema.Fields)
			fields := b.Schema().Fields()[:n]
			data := array.NewRecordBatch(arrow.NewSchema(fields, nil), b.Columns()[:n], b.NumRows())
			defer data.Release()
			plain, err := testutil.ArrowRows(scan.Schema, data)
			if err != nil {
				return err
			}
			for i, row := range plain {
				changes = append(changes, change{row: row, kind: b.Column(n).ValueStr(i)})
			}
			return nil
		}, WithAllocator(mem))
		if err != nil {
			return nil, nil, err
		}
	}
	return rows, changes, nil
}

// canonicalSet renders Spark's JSON rows of schema as a multiset.
func canonicalSet(t *testing.T, schema *iceberg.Schema, lines []string) ([]string, multiset) {
	t.Helper()
	out := make([]string, len(lines))
	set := multiset{}
	for i, l := range lines {
		row, err := testutil.OracleRow(schema, []byte(l))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out[i] = row
		set[row]++
	}
	return out, set
}

// Every range of every table Spark wrote streams the rows of Spark's
// create_changelog_view, with and without compute_updates, as multisets
// with _change_type, _change_ordinal and _commit_snapshot_id. Where Spark
// refuses (Iceberg's changelog scan takes no delete files, so the
// merge-on-read tables), the stream applied to Spark's rows at the start
// gives Spark's rows at the end; that is checked on every range.
func TestChangesEqualSparkChangelogView(t *testing.T) {
	t.Parallel()
	views, refused, applied := 0, 0, 0
	for _, name := range []string{"cow_v2", "cow_v3", "mor_v2", "mor_v3"} {
		tb, want := sparkTable(t, name)
		for _, rg := range want.Ranges {
			label := fmt.Sprintf("%s (%v, %d] compute_updates=%v", name, deref(rg.From), rg.To, rg.ComputeUpdates)
			rows, changes, err := canonicalChanges(t, tb, Request{FromSnapshotID: rg.From, ToSnapshotID: rg.To, ComputeUpdates: rg.ComputeUpdates})
			if err != nil {
				t.Errorf("%s: %v", label, err)
				continue
			}
			if rg.Error != "" {
				refused++
			} else {
				wantRows, _ := canonicalSet(t, Schema(tb.Metadata.CurrentSchema()), rg.Rows)
				if d := testutil.DiffRows(rows, wantRows); d != "" {
					t.Errorf("%s: %s", label, d)
				} else {
					views++
				}
			}
			start := multiset{}
			if rg.From != nil {
				_, start = canonicalSet(t, tb.Metadata.CurrentSchema(), want.SnapshotRows[fmt.Sprint(*rg.From)])
			}
			_, end := canonicalSet(t, tb.Metadata.CurrentSchema(), want.SnapshotRows[fmt.Sprint(rg.To)])
			got, err := apply(start, changes)
			if err != nil {
				t.Errorf("%s: %v", label, err)
				continue
			}
			if d := diffSets(got, end); d != "" {
				t.Errorf("%s: Spark's rows at the start plus the changes differ from Spark's rows at the end:\n%s", label, d)
				continue
			}
			applied++
		}
	}
	fmt.Printf("changelog vs Spark: %d changelog views equal, %d ranges Spark refuses; %d ranges take Spark's start rows to its end rows\n", views, refused, applied)
}

func deref(p *int64) any {
	if p == nil {
		return "start"
	}
	return *p
}
