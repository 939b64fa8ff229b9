package restcatalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/planner"
)

var corpus = filepath.Join("..", "..", "shared", "conformance", "tables")

// sample names a table: a sample table of testdata's warehouse, or a
// table of the conformance corpus beside the checkout.
type sample struct {
	name   string
	corpus bool
}

// dir is the table's folder.
func (s sample) dir() string {
	if s.corpus {
		return filepath.Join(corpus, s.name)
	}
	return filepath.Join(warehouse, "samples", s.name)
}

// load opens the table, or skips the test when the corpus is absent.
func (s sample) load(t *testing.T) planner.Table {
	t.Helper()
	root, id := warehouse, catalog.Identifier{"samples", s.name}
	if s.corpus {
		if _, err := os.Stat(corpus); errors.Is(err, os.ErrNotExist) {
			t.Skipf("conformance corpus not found at %s: skipping", corpus)
		}
		root, id = corpus, catalog.Identifier{s.name}
	}
	cat, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return planner.Table{Name: id.String(), MetadataLocation: tbl.MetadataLocation, Metadata: tbl.Metadata, IO: tbl.IO}
}

// scan is one scan of a table, as the REST catalog's PlanTableScanRequest
// asks for it: a snapshot (nil for the current one) or an incremental
// range (to set), a filter in the REST expression JSON, stats fields.
type scan struct {
	snapshot *int64
	from, to *int64
	filter   string
	stats    []string
}

// request is the planner request the REST front end makes of s.
func (s scan) request(t *testing.T) planner.Request {
	t.Helper()
	req := planner.Request{KeepFiles: true, StatsFields: s.stats, CaseSensitive: true, Selection: planner.Selection{SnapshotID: s.snapshot}}
	if s.to != nil {
		req.Incremental = &planner.Incremental{FromSnapshotID: s.from, ToSnapshotID: *s.to}
	}
	if s.filter != "" {
		f, err := planner.ParseFilter(s.filter)
		if err != nil {
			t.Fatal(err)
		}
		req.Filter = f
	}
	return req
}

// scanTasksJSON plans s of tbl and writes its ScanTasks object to a file
// under dir; the error is the planner's.
func scanTasksJSON(t *testing.T, tbl planner.Table, s scan, dir string) (string, []*scantask.Task, error) {
	t.Helper()
	plan, err := planner.New().Plan(context.Background(), tbl, s.request(t))
	if err != nil {
		return "", nil, err
	}
	var tasks []*scantask.Task
	for _, ep := range plan.Endpoints {
		tasks = append(tasks, ep.Tasks...)
	}
	st, err := newScanTasks(tbl.Metadata, tasks, plan.StatsFields)
	if err != nil {
		t.Fatalf("newScanTasks: %v", err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(dir, "scantasks-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	return f.Name(), tasks, nil
}

// javaCheck is one check of javaref's resttaskcheck.
type javaCheck struct {
	Tasks    string          `json:"tasks,omitempty"`
	Snapshot *int64          `json:"snapshot,omitempty"`
	From     *int64          `json:"from,omitempty"`
	To       *int64          `json:"to,omitempty"`
	Filter   json.RawMessage `json:"filter,omitempty"`
	Stats    []string        `json:"stats,omitempty"`
}

// javaResult is what resttaskcheck prints for a check: the tasks Iceberg
// Java parsed from our JSON and those it planned itself, or its planning
// error.
type javaResult struct {
	PlanError string     `json:"plan_error"`
	Parsed    []javaTask `json:"parsed"`
	Planned   []javaTask `json:"planned"`
}

type javaTask struct {
	DataFile           map[string]any   `json:"data_file"`
	Deletes            []map[string]any `json:"deletes"`
	Residual           json.RawMessage  `json:"residual"`
	ResidualError      string           `json:"residual_error"`
	ResidualEquivalent *bool            `json:"residual_equivalent"`
}

// javaref runs javaref's resttaskcheck on a table's checks, or skips the
// test when JAVAREF_JAR does not name the jar.
func javaref(t *testing.T, table string, checks []javaCheck) []javaResult {
	t.Helper()
	jar := os.Getenv("JAVAREF_JAR")
	if jar == "" {
		t.Skip("JAVAREF_JAR is not set: skipping the check against Iceberg Java")
	}
	if _, err := os.Stat(jar); err != nil {
		t.Skipf("JAVAREF_JAR %s: %v: skipping the check against Iceberg Java", jar, err)
	}
	b, err := json.Marshal(checks)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "checks.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var results []javaResult
	runJSON(t, &results, "java", "-jar", jar, "resttaskcheck", "--table", table, "--checks", file)
	if len(results) != len(checks) {
		t.Fatalf("javaref answered %d checks of %d", len(results), len(checks))
	}
	return results
}

// runJSON runs a reference tool and decodes the JSON it prints into out.
func runJSON(t *testing.T, out any, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s printed %.500s: %v", name, b, err)
	}
}

// A ScanTasks object of every snapshot, and of filtered scans with stats
// fields, reads in Iceberg Java's own parser as the scan Iceberg Java
// plans itself: the same data files with every field, partition values
// of every transform and type, key metadata, metrics of the stats fields
// (bounds of every type), the same delete files of every kind (deletion
// vectors sharing a Puffin file among them) on the same data files, and
// residuals equivalent to Java's.
func TestScanTasksReadByIcebergJava(t *testing.T) {
	t.Parallel()
	cases := []struct {
		table   sample
		filters []string
	}{
		{sample{name: "trips"}, []string{
			`{"type":"lt","term":"id","value":3000}`,
			`{"type":"and","left":{"type":"gt","term":"fare","value":50.5},"right":{"type":"not-null","term":"vendor"}}`}},
		{sample{name: "events_by_day"}, []string{`{"type":"lt","term":"ts","value":"2024-03-02T12:00:00"}`}},
		{sample{name: "events_by_kind"}, []string{`{"type":"not-eq","term":"kind","value":"click"}`, `{"type":"gt","term":"value","value":10.0}`}},
		{sample{name: "all_types"}, []string{`{"type":"gt-eq","term":"c_int","value":0}`}},
		{sample{name: "truncated"}, []string{`{"type":"starts-with","term":"name","value":"日本"}`, `{"type":"lt","term":"price","value":"5.00"}`}},
		{sample{name: "eq_deletes_evolved"}, []string{`{"type":"eq","term":"region","value":"us"}`}},
		{sample{name: "dv_many_files"}, []string{`{"type":"eq","term":"grp","value":1}`}},
		{sample{name: "pos_deletes_rowgroups"}, []string{`{"type":"gt","term":"v","value":0.5}`}},
		{sample{name: "v3_lineage"}, nil},
		{sample{name: "evolved"}, nil},
		{sample{name: "apache-impala__iceberg_v2_delete_both_eq_and_pos", corpus: true}, nil},
		{sample{name: "apache-impala__iceberg_v2_partitioned_position_deletes", corpus: true}, nil},
		{sample{name: "apache-impala__iceberg_v2_delete_equality_partition_evolution", corpus: true}, nil},
		{sample{name: "apache-impala__iceberg_v3_deletion_vectors", corpus: true}, nil},
		{sample{name: "apache-impala__iceberg_v3_row_lineage", corpus: true}, nil},
		{sample{name: "apache-impala__iceberg_partitioned", corpus: true}, nil},
		{sample{name: "apache-impala__iceberg_alltypes_part", corpus: true}, nil},
		{sample{name: "apache-impala__iceberg_with_key_metadata", corpus: true}, nil},
		{sample{name: "iceberg-cxx__deletion_vectors", corpus: true}, nil},
		{sample{name: "iceberg-cxx__dangling_deletes", corpus: true}, nil},
		{sample{name: "iceberg-cxx__partition_evolution", corpus: true}, nil},
		{sample{name: "iceberg-cxx__bucket_partitioning", corpus: true}, nil},
		{sample{name: "iceberg-cxx__decimal_partitioning", corpus: true}, nil},
		{sample{name: "iceberg-cxx__partitioning_with_null_value", corpus: true}, nil},
		{sample{name: "iceberg-cxx__year_timestamptz_partitioning", corpus: true}, nil},
		{sample{name: "iceberg-cxx__types_all_spark_types", corpus: true}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.table.name, func(t *testing.T) {
			t.Parallel()
			tbl := tc.table.load(t)
			md := tbl.Metadata
			var scans []scan
			for i := range md.Snapshots {
				scans = append(scans, scan{snapshot: &md.Snapshots[i].SnapshotID})
			}
			if md.CurrentSnapshot() != nil {
				stats := primitiveColumns(md.CurrentSchema())
				scans = append(scans, scan{stats: stats})
				for _, f := range tc.filters {
					scans = append(scans, scan{filter: f, stats: stats})
				}
			}
			compareWithJava(t, tc.table, tbl, scans)
		})
	}
}

// primitiveColumns names the table's top-level primitive columns and, of
// its nested ones, one of each kind of name: a struct member, a list
// element, a map key and value, a member of a list's struct by its short
// name.
func primitiveColumns(schema *iceberg.Schema) []string {
	var names []string
	for _, f := range schema.Fields {
		switch t := f.Type.(type) {
		case *iceberg.StructType:
			names = append(names, f.Name+"."+t.Fields[0].Name)
		case *iceberg.ListType:
			if st, ok := t.Element.(*iceberg.StructType); ok {
				names = append(names, f.Name+"."+st.Fields[0].Name)
			} else {
				names = append(names, f.Name+".element")
			}
		case *iceberg.MapType:
			names = append(names, f.Name+".key", f.Name+".value")
		default:
			names = append(names, f.Name)
		}
	}
	return names
}

// compareWithJava plans scans of tbl, has Iceberg Java read each plan's
// ScanTasks object and plan the scan itself, and reports where the two
// differ. A scan the planner refuses as invalid must be one Java refuses.
func compareWithJava(t *testing.T, s sample, tbl planner.Table, scans []scan) {
	t.Helper()
	dir := t.TempDir()
	checks := make([]javaCheck, len(scans))
	ours := make([][]*scantask.Task, len(scans))
	errs := make([]error, len(scans))
	for i, sc := range scans {
		file, tasks, err := scanTasksJSON(t, tbl, sc, dir)
		if err != nil && !errors.Is(err, planner.ErrInvalidRequest) {
			t.Fatalf("%s: %v", sc, err)
		}
		ours[i], errs[i] = tasks, err
		checks[i] = javaCheck{Tasks: file, Snapshot: sc.snapshot, From: sc.from, To: sc.to, Stats: sc.stats}
		if sc.filter != "" {
			checks[i].Filter = json.RawMessage(sc.filter)
		}
	}
	tasks, compared := 0, 0
	for i, res := range javaref(t, s.dir(), checks) {
		sc := scans[i]
		if (errs[i] != nil) != (res.PlanError != "") {
			t.Errorf("%s: planner error %v, Iceberg Java's %q", sc, errs[i], res.PlanError)
			continue
		}
		if errs[i] != nil {
			continue
		}
		if len(res.Parsed) != len(res.Planned) {
			t.Errorf("%s: Java parsed %d tasks, planned %d", sc, len(res.Parsed), len(res.Planned))
			continue
		}
		residuals := map[string]bool{}
		for _, task := range ours[i] {
			residuals[task.File.Path] = task.Residual != nil
		}
		for k, got := range res.Parsed {
			want := res.Planned[k]
			path := want.DataFile["path"]
			if !reflect.DeepEqual(got.DataFile, want.DataFile) {
				t.Errorf("%s: data file as Java parses it:\n%v\nas Java plans it:\n%v", sc, got.DataFile, want.DataFile)
			}
			compareDeletes(t, fmt.Sprintf("%s: %v", sc, path), got.Deletes, want.Deletes)
			if got.ResidualError != "" {
				t.Errorf("%s: %v: Java cannot read the residual: %s", sc, path, got.ResidualError)
			}
			// A task whose every row matches by its partition or its
			// metrics has the residual true, which Java's need not be.
			p, _ := path.(string)
			switch {
			case !residuals[p] && string(got.Residual) != "true":
				t.Errorf("%s: %v: residual %s, want true", sc, path, got.Residual)
			case residuals[p] && (got.ResidualEquivalent == nil || !*got.ResidualEquivalent):
				t.Errorf("%s: %v: residual %s, Java's %s", sc, path, got.Residual, want.Residual)
			case residuals[p]:
				compared++
			}
		}
		tasks += len(res.Parsed)
	}
	t.Logf("%d scans, %d tasks, %d residuals compared with Java's", len(scans), tasks, compared)
}

// compareDeletes reports where the delete files Java parsed for a data
// file differ from those Java planned for it. Java also rules out an
// equality delete file whose bounds of the equality columns miss the data
// file's, which the planner does not: such a delete deletes none of the
// file's rows, so it may be sent, and is only counted.
func compareDeletes(t *testing.T, what string, got, want []map[string]any) {
	t.Helper()
	key := func(d map[string]any) string { return fmt.Sprint(d["path"], "@", d["content_offset"]) }
	planned := map[string]map[string]any{}
	for _, d := range want {
		planned[key(d)] = d
	}
	extra := 0
	for _, d := range got {
		w, ok := planned[key(d)]
		switch {
		case !ok && d["content"] == "EQUALITY_DELETES":
			extra++
		case !ok:
			t.Errorf("%s: Java does not apply delete file %v", what, d)
		case !reflect.DeepEqual(d, w):
			t.Errorf("%s: delete file as Java parses it:\n%v\nas Java plans it:\n%v", what, d, w)
		}
		delete(planned, key(d))
	}
	for _, d := range planned {
		t.Errorf("%s: delete file missing: %v", what, d)
	}
	if extra > 0 {
		t.Logf("%s: %d equality delete files whose bounds Java finds apart from the file's", what, extra)
	}
}

// String describes the scan in messages.
func (s scan) String() string {
	what := "current snapshot"
	switch {
	case s.to != nil && s.from != nil:
		what = fmt.Sprintf("appends (%d, %d]", *s.from, *s.to)
	case s.to != nil:
		what = fmt.Sprintf("appends up to %d", *s.to)
	case s.snapshot != nil:
		what = fmt.Sprintf("snapshot %d", *s.snapshot)
	}
	return fmt.Sprintf("%s, filter %s, stats %v", what, s.filter, s.stats)
}

// Incremental scans read as Iceberg Java's IncrementalAppendScan plans
// them, over every pair of snapshots of tables whose history mixes appends
// with deletes and overwrites: both plan the ranges whose start is an
// ancestor of their end, and refuse the others.
func TestIncrementalScanTasksReadByIcebergJava(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		table sample
		// column is an integer column, which a filter tests and whose
		// metrics the scan keeps.
		column string
	}{
		{sample{name: "eq_deletes_evolved"}, "id"},
		{sample{name: "history"}, "id"},
		{sample{name: "iceberg-cxx__gperov_test", corpus: true}, "a"},
		{sample{name: "iceberg-cxx__deletion_vectors", corpus: true}, "c1"},
		{sample{name: "apache-impala__iceberg_v2_positional_not_all_data_files_have_delete_files", corpus: true}, "i"},
	} {
		t.Run(tc.table.name, func(t *testing.T) {
			t.Parallel()
			tbl := tc.table.load(t)
			snaps := tbl.Metadata.Snapshots
			filter := fmt.Sprintf(`{"type":"gt-eq","term":%q,"value":2}`, tc.column)
			var scans []scan
			for j := range snaps {
				to := &snaps[j].SnapshotID
				scans = append(scans, scan{to: to}, scan{to: to, stats: []string{tc.column}, filter: filter})
				for i := range snaps {
					scans = append(scans, scan{from: &snaps[i].SnapshotID, to: to})
				}
			}
			compareWithJava(t, tc.table, tbl, scans)
		})
	}
}

// Tasks planned without their files cannot be described.
func TestScanTasksNeedKeptFiles(t *testing.T) {
	t.Parallel()
	tbl := sample{name: "dv_many_files"}.load(t)
	for _, keep := range []bool{false, true} {
		plan, err := planner.New().Plan(context.Background(), tbl, planner.Request{KeepFiles: keep})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := newScanTasks(tbl.Metadata, plan.Endpoints[0].Tasks, nil); errors.Is(err, errFilesNotKept) == keep {
			t.Errorf("KeepFiles %v: newScanTasks: %v", keep, err)
		}
	}
}

// pyScanTasks reads a ScanTasks object with PyIceberg's REST models, as
// its scan planning client does, and prints each task as PyIceberg reads
// it: the data file (converted to PyIceberg's DataFile, as its client
// does, when no equality delete applies; PyIceberg 0.12 refuses those),
// the delete files it references and the residual.
const pyScanTasks = `
import json, sys
from pyiceberg.catalog.rest.scan_planning import ScanTasks, RESTEqualityDeleteFile
from pyiceberg.table import FileScanTask

with open(sys.argv[1]) as f:
    tasks = ScanTasks.model_validate_json(f.read())
out = []
for t in tasks.file_scan_tasks:
    refs = [tasks.delete_files[i] for i in (t.delete_file_references or [])]
    task = {
        "path": t.data_file.file_path,
        "record_count": t.data_file.record_count,
        "partition_size": len(t.data_file.partition),
        "deletes": sorted(d.file_path + "@" + str(getattr(d, "content_offset", None)) for d in refs),
        "residual": None if t.residual_filter is None else repr(t.residual_filter),
    }
    if not any(isinstance(d, RESTEqualityDeleteFile) for d in refs):
        converted = FileScanTask.from_rest_response(t, tasks.delete_files)
        task["converted"] = {
            "content": converted.file.content.name,
            "format": converted.file.file_format.name,
            "deletes": len(converted.delete_files),
        }
    out.append(task)
print(json.dumps(out))
`

// pyTask is a task as pyScanTasks prints it.
type pyTask struct {
	Path          string   `json:"path"`
	RecordCount   int64    `json:"record_count"`
	PartitionSize int      `json:"partition_size"`
	Deletes       []string `json:"deletes"`
	Residual      *string  `json:"residual"`
	Converted     *struct {
		Content string `json:"content"`
		Format  string `json:"format"`
		Deletes int    `json:"deletes"`
	} `json:"converted"`
}

// PyIceberg 0.12's REST scan planning models read our ScanTasks objects:
// every task, the delete files it references by index (deletion vectors
// of one Puffin file apart), the residual, and its client's conversion to
// PyIceberg's own data files.
func TestScanTasksReadByPyIceberg(t *testing.T) {
	t.Parallel()
	python := os.Getenv("PYICEBERG_PYTHON")
	if python == "" {
		t.Skip("PYICEBERG_PYTHON is not set: skipping the check against PyIceberg")
	}
	for _, tc := range []struct {
		table  sample
		filter string
	}{
		{sample{name: "trips"}, `{"type":"gt","term":"fare","value":50.5}`},
		{sample{name: "all_types"}, ""},
		{sample{name: "truncated"}, `{"type":"starts-with","term":"name","value":"日本"}`},
		{sample{name: "events_by_day"}, `{"type":"lt","term":"ts","value":"2024-03-02T12:00:00"}`},
		// Not eq_deletes_evolved nor partitioning_with_null_value:
		// PyIceberg 0.12's models refuse a null partition value (as the
		// OpenAPI document's PrimitiveTypeValue has no null), which Java
		// writes and reads.
		{sample{name: "dv_many_files"}, ""},
		{sample{name: "pos_deletes_rowgroups"}, ""},
		{sample{name: "v3_lineage"}, ""},
		{sample{name: "apache-impala__iceberg_v2_delete_both_eq_and_pos", corpus: true}, ""},
		{sample{name: "apache-impala__iceberg_with_key_metadata", corpus: true}, ""},
		{sample{name: "iceberg-cxx__bucket_partitioning", corpus: true}, ""},
	} {
		t.Run(tc.table.name, func(t *testing.T) {
			t.Parallel()
			tbl := tc.table.load(t)
			sc := scan{filter: tc.filter, stats: primitiveColumns(tbl.Metadata.CurrentSchema())}
			file, tasks, err := scanTasksJSON(t, tbl, sc, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			var got []pyTask
			runJSON(t, &got, python, "-c", pyScanTasks, file)
			if len(got) != len(tasks) {
				t.Fatalf("PyIceberg read %d tasks, we wrote %d", len(got), len(tasks))
			}
			for i, task := range tasks {
				checkPyTask(t, got[i], task, tbl.Metadata)
			}
		})
	}
}

// checkPyTask reports where PyIceberg's reading of a task differs from the
// task written.
func checkPyTask(t *testing.T, got pyTask, task *scantask.Task, md *iceberg.TableMetadata) {
	t.Helper()
	df := task.File
	spec, _ := md.SpecByID(int(task.SpecID))
	if got.Path != df.Path || got.RecordCount != df.RecordCount || got.PartitionSize != len(spec.Fields) {
		t.Errorf("PyIceberg reads %s with %d records and %d partition values, want %s, %d, %d",
			got.Path, got.RecordCount, got.PartitionSize, df.Path, df.RecordCount, len(spec.Fields))
	}
	var deletes []string
	equality := false
	for _, d := range task.Deletes {
		offset := "None"
		if d.File.ContentOffset != nil {
			offset = fmt.Sprint(*d.File.ContentOffset)
		}
		deletes = append(deletes, d.File.Path+"@"+offset)
		equality = equality || d.Kind == scantask.EqualityDeletes
	}
	slices.Sort(deletes)
	if !slices.Equal(got.Deletes, deletes) {
		t.Errorf("%s: PyIceberg reads delete files %v, want %v", df.Path, got.Deletes, deletes)
	}
	if got.Residual == nil {
		t.Errorf("%s: PyIceberg reads no residual", df.Path)
	}
	switch c := got.Converted; {
	case equality && c != nil:
		t.Errorf("%s: PyIceberg 0.12 converted a task with equality deletes", df.Path)
	case !equality && c == nil:
		t.Errorf("%s: PyIceberg did not convert the task", df.Path)
	case c != nil && (c.Content != "DATA" || c.Format != strings.ToUpper(df.Format) || c.Deletes != len(deletes)):
		t.Errorf("%s: PyIceberg converts it to %+v", df.Path, *c)
	}
}
