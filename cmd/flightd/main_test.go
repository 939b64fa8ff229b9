package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

var sampleWarehouse = filepath.Join("..", "..", "testdata", "warehouse")

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"no command", nil, 2},
		{"unknown command", []string{"frobnicate"}, 2},
		{"serve without a warehouse", []string{"serve"}, 2},
		{"plan without a table", []string{"plan", "--warehouse", sampleWarehouse}, 2},
		{"plan with a bad identifier", []string{"plan", "--warehouse", sampleWarehouse, "../x"}, 1},
		{"inspect without a file", []string{"inspect"}, 2},
		{"help", []string{"help"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if code, _, stderr := runCmd(t, tc.args...); code != tc.code {
				t.Fatalf("exit %d, want %d (%s)", code, tc.code, stderr)
			}
		})
	}
}

func TestPlanPrintsJSON(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCmd(t, "plan", "samples.trips", "--warehouse", sampleWarehouse, "--max-endpoints", "2", "--columns", "id,fare")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var plan struct {
		SnapshotID *int64 `json:"snapshot_id"`
		Stats      struct {
			DataFiles int   `json:"data_files"`
			Records   int64 `json:"records"`
		} `json:"stats"`
		Endpoints []struct {
			Tasks []map[string]any `json:"tasks"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("plan output is not JSON: %v\n%s", err, out)
	}
	if plan.SnapshotID == nil || plan.Stats.DataFiles != 4 || len(plan.Endpoints) != 2 {
		t.Fatalf("plan: %+v", plan)
	}
	if p, _ := plan.Endpoints[0].Tasks[0]["path"].(string); !strings.HasSuffix(p, ".parquet") {
		t.Fatalf("task path %q", p)
	}
}

func TestInspect(t *testing.T) {
	t.Parallel()
	meta, _ := filepath.Glob(filepath.Join(sampleWarehouse, "samples", "trips", "metadata", "*.metadata.json"))
	lists, _ := filepath.Glob(filepath.Join(sampleWarehouse, "samples", "trips", "metadata", "snap-*.avro"))
	if len(meta) == 0 || len(lists) == 0 {
		t.Fatal("sample table metadata missing")
	}
	code, out, stderr := runCmd(t, "inspect", meta[0])
	if code != 0 || !strings.Contains(out, `"format-version": 2`) {
		t.Fatalf("inspect metadata: exit %d %s\n%s", code, stderr, out)
	}
	code, out, stderr = runCmd(t, "inspect", lists[0])
	if code != 0 {
		t.Fatalf("inspect manifest list: exit %d %s", code, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line is not JSON: %v: %s", err, line)
		}
		if _, ok := rec["manifest_path"]; !ok {
			t.Fatalf("manifest list record without manifest_path: %s", line)
		}
	}
}
