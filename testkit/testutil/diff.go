package testutil

import (
	"bytes"
	"fmt"
	"os"
	"sort"

	"github.com/iceflight/iceflight/iceberg"
)

// DiffRows compares two multisets of canonical rows. It returns "" when
// they are equal, else the counts and the first few rows missing from got
// and unexpected in it.
func DiffRows(got, want []string) string {
	count := make(map[string]int, len(want))
	for _, r := range want {
		count[r]++
	}
	for _, r := range got {
		count[r]--
	}
	var missing, extra []string
	for r, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, r)
		}
		for ; n < 0; n++ {
			extra = append(extra, r)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return fmt.Sprintf("got %d rows, want %d; missing %d e.g. %v; unexpected %d e.g. %v",
		len(got), len(want), len(missing), firstRows(missing), len(extra), firstRows(extra))
}

func firstRows(rows []string) []string { return rows[:min(3, len(rows))] }

// OracleFile reads a file of the oracle's JSON lines (one row a line) in
// canonical form.
func OracleFile(schema *iceberg.Schema, path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r, err := OracleRow(schema, line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}
