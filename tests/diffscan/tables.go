package diffscan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// maxValues bounds the distinct values kept per column: enough to draw
// literals that hit rows, small enough for the largest corpus table.
const maxValues = 256

// Table is what the generator knows of one table: its snapshots and refs
// from the metadata, and for every snapshot the oracle could read its
// schema and the values of its columns (from the oracle's plain scans).
type Table struct {
	Name          string
	FormatVersion int
	// Current is the view of the current snapshot (or of the empty table).
	Current *View
	// Views holds a view per snapshot id the oracle read.
	Views map[int64]*View
	// Snapshots are the metadata's snapshot ids in metadata order.
	Snapshots []int64
	// Refs are the metadata's branches and tags, by name.
	Refs []Ref
	// Log is the snapshot log, oldest first: what as-of timestamps resolve by.
	Log []iceberg.SnapshotLogEntry
}

// Ref is a branch or tag.
type Ref struct {
	Name       string
	SnapshotID int64
	Branch     bool
}

// View is one snapshot's schema and values.
type View struct {
	Schema *iceberg.Schema
	Rows   int
	// Leaves are the primitive columns reachable through structs, by dotted
	// path: what a filter may name.
	Leaves []Leaf
	// Values holds up to maxValues distinct oracle row values (row JSON,
	// testdata/conformance/README.md) per leaf path, in first-seen order.
	Values map[string][]json.RawMessage
}

// Leaf is a primitive column a filter can name.
type Leaf struct {
	Path string
	Type iceberg.Type
	// Nullable is true when the column or a struct around it is optional.
	Nullable bool
}

// oracleIndex is the part of the plain oracle's index.json the generator
// reads (testdata/conformance/README.md).
type oracleIndex struct {
	Table        string       `json:"table"`
	MetadataFile string       `json:"metadata_file"`
	Error        string       `json:"error"`
	Scans        []oracleScan `json:"scans"`
}

// oracleScan is one scan of an oracle index: of the plain oracle's per
// table, or of oracle queries' (which adds the scanned snapshot and the
// unpruned answer).
type oracleScan struct {
	Name              string          `json:"name"`
	SnapshotID        *int64          `json:"snapshot_id"`
	ScannedSnapshotID *int64          `json:"scanned_snapshot_id"`
	Schema            json.RawMessage `json:"schema"`
	Rows              int             `json:"rows"`
	File              string          `json:"file"`
	Error             string          `json:"error"`
	UnprunedFile      string          `json:"file_without_pruning"`
	NullOrNaNCompared int             `json:"null_or_nan_compared_rows"`
}

// LoadTables reads every table of the warehouse root that the plain oracle
// output under expected (testdata/expected or testdata/conformance) covers,
// sorted by name. Tables the oracle could not read at all are left out.
func LoadTables(root, expected string) ([]*Table, error) {
	dirs, err := tableDirs(root)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(expected)
	if err != nil {
		return nil, err
	}
	var tables []*Table
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t, err := loadTable(filepath.Join(expected, e.Name()), dirs)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", e.Name(), err)
		}
		if t != nil {
			tables = append(tables, t)
		}
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	return tables, nil
}

func loadTable(dir string, dirs map[string]string) (*Table, error) {
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var idx oracleIndex
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, err
	}
	tableDir, ok := dirs[idx.Table]
	if idx.Error != "" || !ok {
		return nil, nil
	}
	mdBytes, err := os.ReadFile(filepath.Join(tableDir, filepath.FromSlash(idx.MetadataFile)))
	if err != nil {
		return nil, err
	}
	md, err := iceberg.ParseMetadata(mdBytes)
	if err != nil {
		return nil, fmt.Errorf("metadata %s: %w", idx.MetadataFile, err)
	}
	t := &Table{Name: idx.Table, FormatVersion: md.FormatVersion, Views: map[int64]*View{}, Log: md.SnapshotLog}
	for _, s := range md.Snapshots {
		t.Snapshots = append(t.Snapshots, s.SnapshotID)
	}
	for name, r := range md.Refs {
		t.Refs = append(t.Refs, Ref{Name: name, SnapshotID: r.SnapshotID, Branch: r.Type == "branch"})
	}
	sort.Slice(t.Refs, func(i, j int) bool { return t.Refs[i].Name < t.Refs[j].Name })
	for _, sc := range idx.Scans {
		if sc.Error != "" {
			continue
		}
		v, err := loadView(filepath.Join(dir, sc.File), sc.Schema, sc.Rows)
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", sc.Name, err)
		}
		if sc.Name == "current" {
			t.Current = v
		} else if sc.SnapshotID != nil {
			t.Views[*sc.SnapshotID] = v
		}
	}
	if t.Current == nil {
		return nil, nil
	}
	return t, nil
}

func loadView(rowsFile string, schemaJSON json.RawMessage, rows int) (*View, error) {
	var schema iceberg.Schema
	if err := json.Unmarshal(schemaJSON, &schema); err != nil {
		return nil, err
	}
	v := &View{Schema: &schema, Rows: rows, Values: map[string][]json.RawMessage{}}
	collectLeaves(&v.Leaves, "", schema.Fields, false)
	f, err := os.Open(rowsFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	seen := map[string]map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var row map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, err
		}
		for _, l := range v.Leaves {
			val := lookup(row, l.Path)
			if val == nil || bytes.Equal(val, []byte("null")) {
				continue
			}
			s := seen[l.Path]
			if s == nil {
				s = map[string]bool{}
				seen[l.Path] = s
			}
			if len(s) >= maxValues || s[string(val)] {
				continue
			}
			s[string(val)] = true
			v.Values[l.Path] = append(v.Values[l.Path], append(json.RawMessage(nil), val...))
		}
	}
	return v, sc.Err()
}

// collectLeaves appends the primitive fields under fields, descending into
// structs only: list elements and map entries cannot be filtered on.
func collectLeaves(out *[]Leaf, prefix string, fields []iceberg.NestedField, nullable bool) {
	for _, f := range fields {
		path := prefix + f.Name
		switch t := f.Type.(type) {
		case *iceberg.StructType:
			collectLeaves(out, path+".", t.Fields, nullable || !f.Required)
		case *iceberg.ListType, *iceberg.MapType:
		default:
			if filterable(t) {
				*out = append(*out, Leaf{Path: path, Type: t, Nullable: nullable || !f.Required})
			}
		}
	}
}

// lookup finds a dotted path in a row object, nil when absent or under a
// null struct.
func lookup(row map[string]json.RawMessage, path string) json.RawMessage {
	head, rest, nested := strings.Cut(path, ".")
	val, ok := row[head]
	if !ok || !nested {
		return val
	}
	var inner map[string]json.RawMessage
	if json.Unmarshal(val, &inner) != nil || inner == nil {
		return nil
	}
	return lookup(inner, rest)
}

// tableDirs maps the table names under root to their folders, named as the
// oracle and flightd name them: the path below root with "/" as "." and a
// ".db" suffix of a namespace folder dropped.
func tableDirs(root string) (map[string]string, error) {
	found := map[string]string{}
	if isDir(filepath.Join(root, "metadata")) {
		found[filepath.Base(root)] = root
		return found, nil
	}
	var walk func(dir string, segs []string) error
	walk = func(dir string, segs []string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			child := filepath.Join(dir, e.Name())
			next := append(append([]string(nil), segs...), strings.TrimSuffix(e.Name(), ".db"))
			if isDir(filepath.Join(child, "metadata")) {
				found[strings.Join(next, ".")] = child
			} else if len(next) < 8 {
				if err := walk(child, next); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return found, walk(root, nil)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
