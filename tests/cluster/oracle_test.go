package cluster_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// oracleScan is one scan the Apache Iceberg Java oracle recorded for a
// sample table (testdata/conformance/README.md): its snapshot, schema and
// the file of its rows.
type oracleScan struct {
	Table      string
	Name       string // "current" or "snapshot-ID"
	SnapshotID *int64
	Schema     *iceberg.Schema
	File       string
}

// oracleScans lists every scan under testdata/expected that the oracle
// could read, table by table.
func oracleScans(expectedDir string) ([]oracleScan, error) {
	entries, err := os.ReadDir(expectedDir)
	if err != nil {
		return nil, fmt.Errorf("oracle output: %w", err)
	}
	var scans []oracleScan
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(expectedDir, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, "index.json"))
		if err != nil {
			return nil, fmt.Errorf("oracle output: %w", err)
		}
		var idx struct {
			Table string `json:"table"`
			Scans []struct {
				Name       string          `json:"name"`
				SnapshotID *int64          `json:"snapshot_id"`
				Schema     json.RawMessage `json:"schema"`
				File       string          `json:"file"`
				Error      string          `json:"error"`
			} `json:"scans"`
		}
		if err := json.Unmarshal(data, &idx); err != nil {
			return nil, fmt.Errorf("oracle index of %s: %w", dir, err)
		}
		for _, sc := range idx.Scans {
			if sc.Error != "" {
				continue // the oracle itself could not read it
			}
			var schema iceberg.Schema
			if err := json.Unmarshal(sc.Schema, &schema); err != nil {
				return nil, fmt.Errorf("oracle schema of %s %s: %w", idx.Table, sc.Name, err)
			}
			scans = append(scans, oracleScan{Table: idx.Table, Name: sc.Name, SnapshotID: sc.SnapshotID,
				Schema: &schema, File: filepath.Join(dir, sc.File)})
		}
	}
	return scans, nil
}

// rows reads the oracle's rows of the scan in canonical form.
func (s oracleScan) rows() ([]string, error) {
	return testutil.OracleFile(s.Schema, s.File)
}
