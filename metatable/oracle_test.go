package metatable

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/iceflight/iceflight/testkit/metacheck"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// corpusDir is the shared corpus of tables written by other engines, and
// oracleDir the Java oracle's record of it, which names the metadata file
// the oracle reads of each table.
var (
	corpusDir = filepath.Join("..", "..", "shared", "conformance", "tables")
	oracleDir = filepath.Join("..", "testdata", "conformance")
)

// check is one read of a metadata table, by us and by Iceberg Java.
type check struct {
	table string
	what  string // "current", "older" or "query"
	tb    Table
	req   Request
	q     metacheck.Query
}

func (c check) String() string {
	s := c.table + "." + c.req.Kind.String()
	if c.req.SnapshotID != nil {
		s += fmt.Sprintf("@%d", *c.req.SnapshotID)
	}
	if c.q.Filter != nil {
		s += " where " + string(c.q.Filter)
	}
	if c.req.Columns != nil {
		s += " columns " + strings.Join(c.req.Columns, ",")
	}
	return s
}

// tally counts what agreed with Java, by table and by kind of check.
type tally struct {
	mu               sync.Mutex
	tables, tablesEq int
	checks, checksEq map[string]int
	bothRefuse       []string
	javaFails        []string // compared without readable_metrics
	rows             int      // Java's rows that ours matched
	differ           map[string]bool
}

func newTally() *tally {
	return &tally{checks: map[string]int{}, checksEq: map[string]int{}, differ: map[string]bool{}}
}

func (tl *tally) String() string {
	s := fmt.Sprintf("%d/%d tables, %d/%d kind×table equal; at an older snapshot %d/%d; filtered or projected %d/%d; %d rows",
		tl.tablesEq, tl.tables, tl.checksEq["current"], tl.checks["current"], tl.checksEq["older"], tl.checks["older"],
		tl.checksEq["query"], tl.checks["query"], tl.rows)
	if len(tl.javaFails) > 0 {
		s += fmt.Sprintf("; %d compared without readable_metrics, which Java fails to compute", len(tl.javaFails))
	}
	if len(tl.bothRefuse) > 0 {
		s += fmt.Sprintf("; refused by both: %s", strings.Join(tl.bothRefuse, ", "))
	}
	return s
}

// compareChecks asks Java every check at once and compares our reads with
// its answers.
func compareChecks(t *testing.T, checks []check) *tally {
	t.Helper()
	answers := metacheck.Ask(t, queriesOf(checks))
	// Java computes readable metrics for every field, and fails on a
	// bound recorded for a map or list (Impala's migrated tables have
	// them), although it shows none for such fields: those reads are
	// compared again without readable_metrics.
	var retried []check
	retry := map[int]int{}
	for i, c := range checks {
		if r, ok := withoutReadableMetrics(c, answers[i]); ok {
			retry[i] = len(retried)
			retried = append(retried, r)
		}
	}
	var again []metacheck.Answer
	if len(retried) > 0 {
		again = metacheck.Ask(t, queriesOf(retried))
	}
	tl := newTally()
	tables := map[string]bool{}
	for i, c := range checks {
		tables[c.table] = true
		var ok bool
		if j, found := retry[i]; found {
			ok = compareCheck(t, retried[j], again[j], tl)
			tl.javaFails = append(tl.javaFails, c.String())
		} else {
			ok = compareCheck(t, c, answers[i], tl)
		}
		tl.checks[c.what]++
		if ok {
			tl.checksEq[c.what]++
		} else {
			tl.differ[c.table] = true
		}
	}
	for name := range tables {
		tl.tables++
		if !tl.differ[name] {
			tl.tablesEq++
		}
	}
	return tl
}

func queriesOf(checks []check) []metacheck.Query {
	queries := make([]metacheck.Query, len(checks))
	for i, c := range checks {
		queries[i] = c.q
	}
	return queries
}

// withoutReadableMetrics returns a files or entries check that Java failed
// for the bound of a field it has no type of metrics for ("Cannot
// deserialize type: map<...>") as the same check without readable_metrics;
// false for any other check.
func withoutReadableMetrics(c check, a metacheck.Answer) (check, bool) {
	if !c.req.Kind.fileKind() || !strings.Contains(a.Error, "Cannot deserialize type") {
		return c, false
	}
	if c.req.Filter != nil && strings.Contains(c.req.Filter.String(), readableMetricsName) {
		return c, false
	}
	full, err := Schema(c.req.Kind, c.tb.Metadata)
	if err != nil {
		return c, false
	}
	cols := c.req.Columns
	if cols == nil {
		cols = full.ColumnNames()
	}
	cols = slices.DeleteFunc(slices.Clone(cols), func(n string) bool { return strings.HasPrefix(n, readableMetricsName) })
	c.req.Columns, c.q.Columns = cols, cols
	return c, true
}

// compareCheck compares one read with Java's answer, reporting what
// differs.
func compareCheck(t *testing.T, c check, a metacheck.Answer, tl *tally) bool {
	t.Helper()
	got := readAll(t, c.tb, c.req)
	switch {
	case a.Error != "" && got.err != nil:
		tl.bothRefuse = append(tl.bothRefuse, c.String())
		t.Logf("%s: both refuse: Java %s; iceflight %v", c, a.Error, got.err)
		return true
	case a.Error != "":
		t.Errorf("%s: Java refuses (%s), iceflight read %d rows", c, a.Error, len(got.rows))
		return false
	case got.err != nil:
		t.Errorf("%s: %v (Java read %d rows)", c, got.err, len(a.Rows))
		return false
	}
	full, err := Schema(c.req.Kind, c.tb.Metadata)
	if err != nil {
		t.Errorf("%s: %v", c, err)
		return false
	}
	if d := schemaDiff(full, a.Schema); d != "" {
		t.Errorf("%s: schema differs from Java's:\n%s", c, d)
		return false
	}
	if d := schemaDiff(got.schema, a.Projected); d != "" {
		t.Errorf("%s: projected schema differs from Java's:\n%s", c, d)
		return false
	}
	want, err := metacheck.Rows(a)
	if err != nil {
		t.Errorf("%s: Java's rows: %v", c, err)
		return false
	}
	if d := testutil.DiffRows(got.rows, want); d != "" {
		t.Errorf("%s: rows differ from Java's: %s", c, d)
		return false
	}
	if c.req.Kind.fileKind() && got.manifests != a.Tasks {
		t.Errorf("%s: units read %d manifests, Java planned %d", c, got.manifests, a.Tasks)
		return false
	}
	tl.mu.Lock()
	tl.rows += len(want)
	tl.mu.Unlock()
	return true
}

// tableChecks returns the checks of one table: every metadata table at
// the current snapshot, those that time-travel at the current snapshot's
// parent, and a few filters and projections of each kind.
func tableChecks(t *testing.T, name string, tb Table, dir string) []check {
	t.Helper()
	var checks []check
	add := func(what string, req Request) {
		q := metacheck.Query{TableDir: dir, MetadataFile: tb.MetadataLocation, Kind: req.Kind.String(), SnapshotID: req.SnapshotID, Columns: req.Columns}
		if req.Filter != nil {
			full, err := Schema(req.Kind, tb.Metadata)
			if err != nil {
				t.Fatal(err)
			}
			q.Filter = filterJSON(t, full, req.Filter.String())
		}
		req.CaseSensitive = true
		checks = append(checks, check{table: name, what: what, tb: tb, req: req, q: q})
	}
	md := tb.Metadata
	var older *int64
	if cur := md.CurrentSnapshot(); cur != nil && cur.ParentSnapshotID != nil {
		if _, ok := md.SnapshotByID(*cur.ParentSnapshotID); ok {
			older = cur.ParentSnapshotID
		}
	}
	for _, k := range Kinds() {
		add("current", Request{Kind: k})
		if k.TimeTravel() && older != nil {
			add("older", Request{Kind: k, SnapshotID: older})
		}
	}
	for _, q := range tableQueries(t, md) {
		add("query", q)
	}
	return checks
}

// tableQueries are filters and projections over a table's metadata
// tables: ones that prune (partition summaries, manifest content,
// reference snapshots) and ones that only test rows. Comparisons that a
// null could meet are left out, as Java's Evaluator orders nulls first.
func tableQueries(t *testing.T, md *iceberg.TableMetadata) []Request {
	t.Helper()
	parse := func(s string) expr.Expr {
		e, err := expr.Parse(s)
		if err != nil {
			t.Fatalf("filter %q: %v", s, err)
		}
		return e
	}
	qs := []Request{
		{Kind: Files, Filter: parse("content = 0 and record_count > 1")},
		{Kind: Entries, Filter: parse("status = 1 and data_file.content = 1")},
		{Kind: AllEntries, Filter: parse("data_file.content in (1, 2) or sequence_number > 1")},
		{Kind: Snapshots, Filter: parse("operation = 'append'")},
		{Kind: History, Filter: parse("is_current_ancestor = true")},
		{Kind: Refs, Filter: parse("type = 'BRANCH'")},
		{Kind: MetadataLogEntries, Filter: parse("latest_snapshot_id is not null")},
		{Kind: Files, Columns: []string{"file_path", "record_count", "readable_metrics"}},
		{Kind: Entries, Columns: []string{"data_file.file_path", "status", "data_file.record_count"}},
		{Kind: Manifests, Columns: []string{"path", "partition_summaries"}},
	}
	if cur := md.CurrentSnapshot(); cur != nil {
		qs = append(qs, Request{Kind: AllManifests, Filter: parse(fmt.Sprintf("reference_snapshot_id = %d", cur.SnapshotID))})
	}
	pt, err := partitionType(md)
	if err == nil && len(pt.Fields) > 0 {
		f := quote("partition") + "." + quote(pt.Fields[0].Name)
		qs = append(qs,
			Request{Kind: DataFiles, Filter: parse(f + " is not null")},
			Request{Kind: AllFiles, Filter: parse(f + " is null")},
			Request{Kind: Partitions, Filter: parse(f + " is not null and record_count > 0")},
			Request{Kind: Entries, Filter: parse(quote("data_file") + "." + f + " is null")},
			Request{Kind: AllEntries, Columns: []string{"data_file.partition", "status"}})
	} else {
		qs = append(qs, Request{Kind: Partitions, Filter: parse("file_count > 1")})
	}
	if i := slices.IndexFunc(md.CurrentSchema().Fields, func(f iceberg.NestedField) bool {
		return isMetricColumn(f.Type) && !strings.Contains(f.Name, ".")
	}); i >= 0 {
		col := md.CurrentSchema().Fields[i].Name
		qs = append(qs,
			Request{Kind: Files, Filter: parse(quote(readableMetricsName) + "." + quote(col) + ".value_count > 0"),
				Columns: []string{"file_path", readableMetricsName + "." + col}})
	}
	return qs
}

// quote writes a name as the filter syntax quotes it.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// oracleMetadataFile is the metadata file the Java oracle read of a table
// (its index.json under dir), as a path below the table's folder.
func oracleMetadataFile(t *testing.T, dir, name string) string {
	t.Helper()
	var idx struct {
		MetadataFile string `json:"metadata_file"`
	}
	testutil.ReadJSON(t, filepath.Join(dir, name, "index.json"), &idx)
	if idx.MetadataFile == "" {
		t.Fatalf("the oracle's index of %s names no metadata file", name)
	}
	return idx.MetadataFile
}

// warehouseChecks returns the checks of every table of a warehouse whose
// oracle index is under indexDir.
func warehouseChecks(t *testing.T, root, indexDir string, names []string) []check {
	t.Helper()
	var checks []check
	for _, name := range names {
		dir, err := filepath.Abs(filepath.Join(root, strings.ReplaceAll(name, ".", string(filepath.Separator))))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); err != nil {
			dir, _ = filepath.Abs(filepath.Join(root, name))
		}
		tb := localTable(t, name, dir, filepath.Join(dir, oracleMetadataFile(t, indexDir, name)))
		checks = append(checks, tableChecks(t, name, tb, dir)...)
	}
	return checks
}

func TestCorpusMatchesJava(t *testing.T) {
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		fmt.Printf("metadata tables: SKIPPED: the conformance corpus is not at %s\n", corpusDir)
		t.Skipf("conformance corpus not found at %s: %v", corpusDir, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	tl := compareChecks(t, warehouseChecks(t, corpusDir, oracleDir, names))
	fmt.Printf("metadata tables: %s\n", tl)
}

func TestSampleWarehouseMatchesJava(t *testing.T) {
	root := filepath.Join("..", "testdata", "warehouse")
	index := filepath.Join("..", "testdata", "expected")
	entries, err := os.ReadDir(index)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	tl := compareChecks(t, warehouseChecks(t, root, index, names))
	fmt.Printf("metadata tables of the sample warehouse: %s\n", tl)
}
