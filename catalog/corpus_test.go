package catalog

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/iceflight/iceflight/fileio"
)

// corpusDir holds the conformance tables written by other engines.
const corpusDir = "../../shared/conformance"

// corpus opens the conformance warehouse, or skips the test when it is absent.
func corpus(t *testing.T) *Directory {
	t.Helper()
	root := filepath.Join(corpusDir, "tables")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("conformance corpus not found at %s: %v", root, err)
	}
	d, err := NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// latestMetadata reads INDEX.md: table name → its "latest metadata" column.
func latestMetadata(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	col := -1
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(strings.Trim(sc.Text(), "| "), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if col < 0 {
			for i, c := range cells {
				if c == "latest metadata" {
					col = i
				}
			}
			continue
		}
		if len(cells) > col && !strings.HasPrefix(cells[0], "---") {
			out[cells[0]] = cells[col]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if col < 0 {
		t.Fatal("INDEX.md has no \"latest metadata\" column")
	}
	return out
}

func TestCorpusListsEveryTable(t *testing.T) {
	t.Parallel()
	d := corpus(t)
	want := latestMetadata(t)
	ids, err := d.ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, id := range ids {
		listed[id.String()] = true
		if _, ok := want[id.String()]; !ok {
			t.Errorf("listed %s, which INDEX.md does not name", id)
		}
	}
	for name := range want {
		if !listed[name] {
			t.Errorf("%s is not listed", name)
		}
	}
	if len(ids) != len(want) {
		t.Errorf("listed %d tables, INDEX.md names %d", len(ids), len(want))
	}
}

func TestCorpusTables(t *testing.T) {
	t.Parallel()
	d := corpus(t)
	for name, latest := range latestMetadata(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			id, err := ParseIdentifier(name)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := d.LoadTable(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if got := filepath.Base(tbl.MetadataLocation); got != latest {
				t.Errorf("current metadata %s, INDEX.md says %s", got, latest)
			}
			checkPathsMap(t, tbl)
		})
	}
}

// checkPathsMap checks that every manifest list, manifest and data or
// delete file of every snapshot maps to a file that exists.
func checkPathsMap(t *testing.T, tbl *Table) {
	t.Helper()
	r := tbl.IO.(*fileio.Remapper)
	exists := func(kind, loc string) bool {
		mapped := r.Map(loc)
		if _, err := os.Stat(mapped); err != nil {
			t.Errorf("%s %s maps to %s: %v", kind, loc, mapped, err)
			return false
		}
		return true
	}
	seen := map[string]bool{}
	for _, s := range tbl.Metadata.Snapshots {
		manifests := s.Manifests
		if s.ManifestList != "" {
			if !exists("manifest list", s.ManifestList) {
				continue
			}
			paths, err := avroStrings(tbl, s.ManifestList, "manifest_path")
			if err != nil {
				t.Errorf("snapshot %d: %v", s.SnapshotID, err)
				continue
			}
			manifests = append(manifests, paths...)
		}
		for _, m := range manifests {
			if seen[m] {
				continue
			}
			seen[m] = true
			if !exists("manifest", m) {
				continue
			}
			files, err := avroStrings(tbl, m, "data_file", "file_path")
			if err != nil {
				t.Errorf("manifest %s: %v", m, err)
				continue
			}
			for _, f := range files {
				exists("data file", f)
			}
		}
	}
}

// avroStrings reads the Avro container at location through the table's IO
// and returns the string at the field path of every record.
func avroStrings(tbl *Table, location string, fields ...string) ([]string, error) {
	f, err := tbl.IO.Open(context.Background(), location)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ocf, err := goavro.NewOCFReader(io.NewSectionReader(f, 0, f.Size()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", location, err)
	}
	var out []string
	for ocf.Scan() {
		rec, err := ocf.Read()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", location, err)
		}
		v := rec
		for _, field := range fields {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: no field %s", location, field)
			}
			v = m[field]
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: field %v is %T", location, fields, v)
		}
		out = append(out, s)
	}
	return out, ocf.Err()
}
