package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/planner"
)

// summaryOf returns the summary of the current snapshot of the sample
// table ns.name as its writer (Iceberg Java) recorded it.
func summaryOf(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "warehouse", ns, name, "metadata")
	hint, err := os.ReadFile(filepath.Join(dir, "version-hint.text"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "v"+strings.TrimSpace(string(hint))+".metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Current   int64 `json:"current-snapshot-id"`
		Snapshots []struct {
			ID      int64             `json:"snapshot-id"`
			Summary map[string]string `json:"summary"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal(b, &md); err != nil {
		t.Fatal(err)
	}
	for _, s := range md.Snapshots {
		if s.ID == md.Current {
			return s.Summary
		}
	}
	t.Fatalf("%s.%s: no current snapshot", ns, name)
	return nil
}

// TestManifestLevelFlightInfo checks what a FlightInfo planned at the
// manifest level tells: endpoints that name manifests and no file, an
// exact total_records where the manifest list's counts give it (the count
// Iceberg Java recorded in the snapshot summary), -1 where a filter or
// deletes leave it open; and that a limited scan, and every scan under the
// default threshold, stays file-level.
func TestManifestLevelFlightInfo(t *testing.T) {
	t.Parallel()
	wh := filepath.Join("..", "..", "testdata", "warehouse")
	forced := startFlightd(t, wh, manifestLevel...)
	plain := startFlightd(t, wh)
	trips, err := strconv.ParseInt(summaryOf(t, "samples", "trips")["total-records"], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		client   flight.Client
		command  map[string]any
		manifest bool
		records  int64
	}{
		{"no filter: the summary's row count", forced, map[string]any{"table": "samples.trips"}, true, trips},
		{"a filter leaves the count open", forced, map[string]any{"table": "samples.trips", "filter": "fare > 10"}, true, -1},
		{"deletes leave the count open", forced, map[string]any{"table": "samples.pos_deletes_rowgroups"}, true, -1},
		{"a limited scan stays file-level", forced, map[string]any{"table": "samples.trips", "limit": 5}, false, 5},
		{"under the default threshold", plain, map[string]any{"table": "samples.trips"}, false, trips},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, _ := json.Marshal(tc.command)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			info, err := tc.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
			if err != nil {
				t.Fatal(err)
			}
			var stats planner.Stats
			if err := json.Unmarshal(info.AppMetadata, &stats); err != nil {
				t.Fatal(err)
			}
			if stats.ManifestTickets != tc.manifest {
				t.Errorf("manifest_tickets %v, want %v", stats.ManifestTickets, tc.manifest)
			}
			if tc.records >= 0 && tc.manifest && info.TotalRecords != tc.records || tc.records < 0 && info.TotalRecords != -1 {
				t.Errorf("total_records %d, want %d", info.TotalRecords, tc.records)
			}
			if len(info.Endpoint) == 0 {
				t.Fatal("no endpoint")
			}
			for _, ep := range info.Endpoint {
				var md engine.EndpointMetadata
				if err := json.Unmarshal(ep.AppMetadata, &md); err != nil {
					t.Fatal(err)
				}
				if tc.manifest && (md.Manifests == 0 || len(md.Files) != 0) || !tc.manifest && (md.Manifests != 0 || len(md.Files) == 0) {
					t.Errorf("endpoint names %d manifests and %d files", md.Manifests, len(md.Files))
				}
			}
		})
	}
}
