package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// locationsDir holds the tables of testdata/locations: written by Iceberg
// Java (tools/javaref locationgen), each recording one spelling of its
// location, and the Java oracle's rows of them.
var locationsDir = filepath.Join("..", "..", "testdata", "locations")

// spelledLocations is the location each fixture table records: every
// spelling a writer is known to leave behind.
var spelledLocations = map[string]string{
	"relative":              "data/some/dir/relative",
	"dot_relative":          "./warehouse/dot_relative",
	"file_colon":            "file:/wh/spellings/file_colon",
	"file_triple":           "file:///wh/spellings/file_triple",
	"file_localhost":        "file://localhost/wh/spellings/file_localhost",
	"hdfs":                  "hdfs://nn:8020/wh/spellings/hdfs",
	"s3a":                   "s3a://bucket/wh/spellings/s3a",
	"windows":               `C:\wh\spellings\windows`,
	"data_path_hdfs":        "hdfs://nn:8020/wh/spellings/data_path_hdfs",
	"data_path_relative":    "warehouse/data_path_relative",
	"missing_manifest_list": "./warehouse/missing_manifest_list",
}

// copyLocations copies the spelled-location tables into a warehouse of
// their own at a path they never recorded, and returns it.
func copyLocations(t *testing.T) string {
	t.Helper()
	wh := filepath.Join(t.TempDir(), "elsewhere")
	testutil.CopyTree(t, filepath.Join(locationsDir, "warehouse"), wh)
	return wh
}

// Every spelling of a table location, relative ones included, reads from a
// copy of the table in another folder as the Java oracle reads it; data
// under a write.data.path beside the table reads from _siblings.
func TestLocationSpellingsMatchJavaOracle(t *testing.T) {
	wh := copyLocations(t)
	cat, err := catalog.NewDirectory(wh)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range spelledLocations {
		tbl, err := cat.LoadTable(context.Background(), catalog.Identifier{"spellings", name})
		if err != nil {
			t.Fatal(err)
		}
		if got := tbl.Metadata.Location; got != want {
			t.Errorf("spellings.%s records location %q, want %q", name, got, want)
		}
	}
	tl := compareWithOracle(t, wh, filepath.Join(locationsDir, "expected"))
	printTally("location spellings", tl)
	if tl.tables != len(spelledLocations) || tl.tablesEqual != tl.tables || tl.scansEqual != tl.scans {
		t.Errorf("every table of every spelling must read back equal: %s", tl)
	}
}

// A snapshot whose manifest list is missing fails alone, as NotFound naming
// the manifest list as the metadata records it (never the server's path);
// the table's other snapshots are compared with the oracle above.
func TestMissingManifestListIsNotFoundForItsSnapshot(t *testing.T) {
	wh := copyLocations(t)
	cat, err := catalog.NewDirectory(wh)
	if err != nil {
		t.Fatal(err)
	}
	const table = "spellings.missing_manifest_list"
	tbl, err := cat.LoadTable(context.Background(), catalog.Identifier{"spellings", "missing_manifest_list"})
	if err != nil {
		t.Fatal(err)
	}
	client := startFlightd(t, wh)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	missing := 0
	for _, snap := range tbl.Metadata.Snapshots {
		f, err := tbl.IO.Open(ctx, snap.ManifestList)
		if err == nil {
			f.Close()
			continue
		}
		missing++
		cmd, _ := json.Marshal(map[string]any{"table": table, "snapshot_id": snap.SnapshotID})
		_, err = client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
		if status.Code(err) != codes.NotFound {
			t.Fatalf("snapshot %d without its manifest list: %v, want NotFound", snap.SnapshotID, err)
		}
		msg := status.Convert(err).Message()
		if !strings.Contains(msg, snap.ManifestList) || strings.Contains(msg, wh) {
			t.Errorf("message %q should name the manifest list %s as recorded, and no server path", msg, snap.ManifestList)
		}
	}
	if missing != 1 {
		t.Fatalf("%s has %d snapshots without a manifest list, want 1", table, missing)
	}
	// The current snapshot's manifest list names every manifest: still read.
	if _, err := client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{table}}); err != nil {
		t.Errorf("current snapshot: %v", err)
	}
}
