package orc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// The corpus (../shared/conformance, see its README.md) holds real Iceberg
// tables whose ORC files were written by Hive, Impala, Spark and Iceberg
// Java; testdata/conformance holds what Iceberg Java 1.12 reads from them.

// corpusRoot returns the corpus folder, or skips the test.
func corpusRoot(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "conformance")
	if _, err := os.Stat(filepath.Join(dir, "tables")); err != nil {
		t.Skipf("conformance corpus not found at %s: %v", dir, err)
	}
	return dir
}

// oracleDir is where the Java oracle's rows are.
const oracleDir = "../../testdata/conformance"

// corpusORCFiles lists, by table, every file outside metadata/ folders that
// starts with the ORC magic (migrated Hive tables name theirs 000000_0).
func corpusORCFiles(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join(corpusRoot(t), "tables")
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if err == nil && d.Name() == "metadata" {
				return filepath.SkipDir
			}
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		head := make([]byte, 3)
		_, _ = io.ReadFull(f, head)
		f.Close()
		if string(head) == magic {
			rel, _ := filepath.Rel(root, p)
			table := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
			out[table] = append(out[table], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decoded is a whole ORC file read into Arrow batches.
type decoded struct {
	file      *File
	schema    *arrow.Schema
	recs      []arrow.RecordBatch
	positions []int64
	rows      int64
}

// decodeFile reads every row of the ORC file at path with the given options;
// the batches are released when the test ends.
func decodeFile(t *testing.T, mem memory.Allocator, path string, opts ReadOptions) (*decoded, error) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	return decodeAt(t, mem, fh, st.Size(), opts)
}

// decodeRaw is decodeFile for a file held in memory.
func decodeRaw(t *testing.T, mem memory.Allocator, b []byte, opts ReadOptions) (*decoded, error) {
	t.Helper()
	return decodeAt(t, mem, bytes.NewReader(b), int64(len(b)), opts)
}

func decodeAt(t *testing.T, mem memory.Allocator, r io.ReaderAt, size int64, opts ReadOptions) (*decoded, error) {
	t.Helper()
	f, err := Open(r, size)
	if err != nil {
		return nil, err
	}
	rr, err := f.NewRecordReader(context.Background(), mem, opts)
	if err != nil {
		return nil, err
	}
	defer rr.Close()
	d := &decoded{file: f, schema: rr.Schema()}
	t.Cleanup(func() {
		for _, r := range d.recs {
			r.Release()
		}
	})
	for {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return d, nil
		}
		if err != nil {
			return nil, err
		}
		d.recs = append(d.recs, rec)
		d.positions = append(d.positions, rr.Position())
		d.rows += rec.NumRows()
	}
}

func checkedAlloc(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// corpusTable is one corpus table with the metadata and scans the oracle
// used.
type corpusTable struct {
	name, dir string
	md        *iceberg.TableMetadata
	scans     []oracleScan
	files     []string // every file of the table outside metadata/
}

type oracleScan struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Rows   *int            `json:"rows"`
	File   string          `json:"file"`
	Error  string          `json:"error"`
}

func loadCorpusTable(t *testing.T, name string) *corpusTable {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(oracleDir, name, "index.json"))
	if err != nil {
		t.Fatalf("oracle index of %s: %v", name, err)
	}
	var index struct {
		MetadataFile string       `json:"metadata_file"`
		Scans        []oracleScan `json:"scans"`
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatal(err)
	}
	ct := &corpusTable{name: name, dir: filepath.Join(corpusRoot(t), "tables", name), scans: index.Scans}
	if raw, err = os.ReadFile(filepath.Join(ct.dir, index.MetadataFile)); err != nil {
		t.Fatal(err)
	}
	if ct.md, err = iceberg.ParseMetadata(raw); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	err = filepath.WalkDir(ct.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "metadata" {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() {
			ct.files = append(ct.files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ct
}

// snapshot returns the snapshot scan i of the oracle read: the current one
// first, then the metadata's snapshots in order.
func (ct *corpusTable) snapshot(i int) *iceberg.Snapshot {
	if i == 0 {
		return ct.md.CurrentSnapshot()
	}
	return &ct.md.Snapshots[i-1]
}

// local maps a path recorded in the metadata to the table's copy: the file
// whose path inside the table folder ends the recorded path.
func (ct *corpusTable) local(t *testing.T, recorded string) string {
	t.Helper()
	best := ""
	for _, p := range ct.files {
		rel, _ := filepath.Rel(ct.dir, p)
		rel = "/" + filepath.ToSlash(rel)
		if strings.HasSuffix(recorded, rel) && len(p) > len(best) {
			best = p
		}
	}
	if best == "" {
		t.Fatalf("%s: no local copy of %s", ct.name, recorded)
	}
	return best
}

// liveFiles returns the data and delete files of snapshot s, sorted by
// recorded path, as the oracle reads them.
func (ct *corpusTable) liveFiles(t *testing.T, s *iceberg.Snapshot) []iceberg.DataFile {
	t.Helper()
	open := func(p string) (io.ReadCloser, error) {
		return os.Open(filepath.Join(ct.dir, "metadata", filepath.Base(p)))
	}
	var mfs []iceberg.ManifestFile
	var err error
	if s.ManifestList != "" {
		var f io.ReadCloser
		if f, err = open(s.ManifestList); err != nil {
			t.Fatal(err)
		}
		mfs, err = manifest.ReadList(f, ct.md.FormatVersion, s)
		f.Close()
	} else {
		mfs, err = manifest.FromPaths(s, open)
	}
	if err != nil {
		t.Fatalf("%s: manifests of snapshot %d: %v", ct.name, s.SnapshotID, err)
	}
	var out []iceberg.DataFile
	for _, mf := range mfs {
		spec, ok := ct.md.SpecByID(mf.SpecID)
		if !ok {
			t.Fatalf("%s: manifest %s has unknown spec %d", ct.name, mf.Path, mf.SpecID)
		}
		f, err := open(mf.Path)
		if err != nil {
			t.Fatal(err)
		}
		es, err := manifest.Read(f, mf, spec.PartitionType(ct.md.CurrentSchema()))
		f.Close()
		if err != nil {
			t.Fatalf("%s: manifest %s: %v", ct.name, mf.Path, err)
		}
		for _, e := range es {
			if e.Status != iceberg.EntryDeleted {
				out = append(out, e.DataFile)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// oracleLines reads a scan's row file.
func oracleLines(t *testing.T, table, file string) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join(oracleDir, table, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}
