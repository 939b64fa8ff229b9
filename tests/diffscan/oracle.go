package diffscan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Oracle runs the Java reference ("oracle queries" of tools/javaref) on the
// tables under Root.
type Oracle struct {
	// Jar is tools/javaref/target/javaref.jar.
	Jar string
	// Root is the warehouse the scans name tables of.
	Root string
}

// Answer has the oracle answer every scan and returns them as cases, in
// the order of scans. A scan the oracle fails on is a case whose answer
// holds the error.
func (o *Oracle) Answer(ctx context.Context, scans []Scan) ([]Case, error) {
	tmp, err := os.MkdirTemp("", "diffscan-oracle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	lines := make([]string, len(scans))
	for i := range scans {
		b, err := json.Marshal(scans[i].oracleQuery())
		if err != nil {
			return nil, err
		}
		lines[i] = string(b)
	}
	queries := filepath.Join(tmp, "queries.json")
	if err := os.WriteFile(queries, []byte("[\n"+strings.Join(lines, ",\n")+"\n]\n"), 0o644); err != nil {
		return nil, err
	}
	out := filepath.Join(tmp, "out")
	cmd := exec.CommandContext(ctx, "java", "-cp", o.Jar, "io.iceflight.javaref.Main",
		"oracle", "queries", "--root", o.Root, "--queries", queries, "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("java oracle queries on %s: %w: %s", o.Root, err, lastLines(stderr.String(), 10))
	}
	b, err := os.ReadFile(filepath.Join(out, "index.json"))
	if err != nil {
		return nil, err
	}
	var idx struct{ Queries []oracleScan }
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("oracle index: %w", err)
	}
	if len(idx.Queries) != len(scans) {
		return nil, fmt.Errorf("oracle answered %d of %d scans", len(idx.Queries), len(scans))
	}
	cases := make([]Case, len(scans))
	for i, q := range idx.Queries {
		if q.Name != scans[i].Name {
			return nil, fmt.Errorf("oracle answer %d is %s, want %s", i, q.Name, scans[i].Name)
		}
		a := Answer{Error: q.Error, ScannedSnapshotID: q.ScannedSnapshotID, NullOrNaNCompared: q.NullOrNaNCompared}
		if q.Error == "" {
			a.Schema = q.Schema
			if a.Rows, err = readLines(filepath.Join(out, q.File)); err != nil {
				return nil, err
			}
			if a.Rows == nil {
				a.Rows = []json.RawMessage{}
			}
			if q.UnprunedFile != "" {
				if a.UnprunedRows, err = readLines(filepath.Join(out, q.UnprunedFile)); err != nil {
					return nil, err
				}
			}
		}
		cases[i] = Case{Scan: scans[i], Oracle: a}
	}
	return cases, nil
}

func readLines(path string) ([]json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			rows = append(rows, append(json.RawMessage(nil), sc.Bytes()...))
		}
	}
	return rows, sc.Err()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
