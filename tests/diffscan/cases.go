package diffscan

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Scan is one generated request: what flightd is asked (the JSON command
// fields) plus the server's batch size, which the command cannot carry.
type Scan struct {
	Name  string `json:"name"`
	Table string `json:"table"`
	// Columns nil selects every column; empty selects none.
	Columns []string        `json:"columns"`
	Filter  json.RawMessage `json:"filter,omitempty"`
	// FilterText is the same filter in the string syntax, sent to flightd
	// instead of Filter when set (the oracle reads JSON only).
	FilterText       string `json:"filter_text,omitempty"`
	SnapshotID       *int64 `json:"snapshot_id,omitempty"`
	Ref              string `json:"ref,omitempty"`
	AsOfTimestampMs  *int64 `json:"as_of_timestamp_ms,omitempty"`
	Limit            *int64 `json:"limit,omitempty"`
	MaxEndpoints     int32  `json:"max_endpoints,omitempty"`
	TargetSplitBytes int64  `json:"target_split_bytes,omitempty"`
	// BatchRows is the --batch-rows of the flightd that serves the scan; 0
	// is the default.
	BatchRows int `json:"batch_rows,omitempty"`
}

// Command is the scan as flightd's JSON command.
func (s *Scan) Command() ([]byte, error) {
	cmd := s.oracleQuery()
	delete(cmd, "name")
	if s.FilterText != "" {
		cmd["filter"] = s.FilterText
	}
	if s.Limit != nil {
		cmd["limit"] = *s.Limit
	}
	if s.MaxEndpoints != 0 {
		cmd["max_endpoints"] = s.MaxEndpoints
	}
	if s.TargetSplitBytes != 0 {
		cmd["target_split_bytes"] = s.TargetSplitBytes
	}
	return json.Marshal(cmd)
}

// oracleQuery is the scan as an entry of the Java oracle's query file
// (testdata/conformance/README.md, "Query outputs"): the limit, split and
// batch settings do not change which rows are in the answer, so the oracle
// is not told them.
func (s *Scan) oracleQuery() map[string]any {
	q := map[string]any{"name": s.Name, "table": s.Table}
	if s.Columns != nil {
		q["columns"] = s.Columns
	}
	if len(s.Filter) > 0 {
		q["filter"] = s.Filter
	}
	if s.SnapshotID != nil {
		q["snapshot_id"] = *s.SnapshotID
	}
	if s.Ref != "" {
		q["ref"] = s.Ref
	}
	if s.AsOfTimestampMs != nil {
		q["as_of_timestamp_ms"] = *s.AsOfTimestampMs
	}
	return q
}

// Answer is what the Java oracle answered for a scan.
type Answer struct {
	// Error is the oracle's failure (exception class and message); then
	// there are no rows.
	Error             string          `json:"error,omitempty"`
	ScannedSnapshotID *int64          `json:"scanned_snapshot_id,omitempty"`
	Schema            json.RawMessage `json:"schema,omitempty"`
	// Rows are the oracle's JSON rows of the whole answer (a limit ignored).
	Rows []json.RawMessage `json:"rows"`
	// UnprunedRows is set when Java's answer without file pruning differs
	// (its pruning and its row evaluator disagree); that answer is right.
	UnprunedRows      []json.RawMessage `json:"unpruned_rows,omitempty"`
	NullOrNaNCompared int               `json:"null_or_nan_compared_rows,omitempty"`
}

// Case is a scan with the oracle's answer: one line of a seed file, or one
// regression file.
type Case struct {
	Scan   Scan   `json:"scan"`
	Oracle Answer `json:"oracle"`
}

// SeedFile is the checked-in seed set of a warehouse, under dir.
func SeedFile(dir, set string) string { return filepath.Join(dir, set+".jsonl.gz") }

// RegressionDir holds the saved differences of a warehouse, one file each.
func RegressionDir(dir, set string) string { return filepath.Join(dir, "regressions", set) }

// WriteSeeds writes cases as gzip'd JSON lines. The gzip header carries no
// name or time, so the same cases give the same bytes.
func WriteSeeds(path string, cases []Case) error {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	for i := range cases {
		line, err := json.Marshal(&cases[i])
		if err != nil {
			return fmt.Errorf("case %s: %w", cases[i].Scan.Name, err)
		}
		zw.Write(line)
		zw.Write([]byte{'\n'})
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// ReadSeeds reads a file written by WriteSeeds.
func ReadSeeds(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var cases []Case
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, len(cases)+1, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cases, nil
}

// WriteRegression saves c as dir/<scan name>.json.
func WriteRegression(dir string, c *Case) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, c.Scan.Name+".json"), append(b, '\n'), 0o644)
}

// ReadRegressions reads every case saved under dir, by file name; a missing
// dir has none.
func ReadRegressions(dir string) ([]Case, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	cases := make([]Case, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		var c Case
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		cases = append(cases, c)
	}
	return cases, nil
}
