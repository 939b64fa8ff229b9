package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/changelog"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// sparkChanges is what Spark's create_changelog_view showed of a table
// (testdata/changelog/expected, written by make fixtures-changelog).
type sparkChanges struct {
	Ranges []struct {
		From           *int64   `json:"from"`
		To             int64    `json:"to"`
		ComputeUpdates bool     `json:"compute_updates"`
		Rows           []string `json:"rows"`
		Error          string   `json:"error"`
	} `json:"ranges"`
}

// TestChangeStreamsServedMatchSpark reads, through a real flightd and the
// JSON command's "changes", every range of the Spark-written tables of
// testdata/changelog that Spark's changelog view could show (with and
// without compute_updates), and compares the rows with Spark's, change
// columns included. The tables are served relocated (written under
// /tmp), as the corpus is.
func TestChangeStreamsServedMatchSpark(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "testdata", "changelog")
	client := startFlightd(t, filepath.Join(root))
	ctx := context.Background()
	cat, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	equal, ranges := 0, 0
	for _, name := range []string{"cow_v2", "cow_v3", "mor_v2", "mor_v3"} {
		var want sparkChanges
		testutil.ReadJSON(t, filepath.Join(root, "expected", name+".json"), &want)
		tbl, err := cat.LoadTable(ctx, catalog.Identifier{"db", name})
		if err != nil {
			t.Fatal(err)
		}
		schema := changelog.Schema(tbl.Metadata.CurrentSchema())
		for _, rg := range want.Ranges {
			if rg.Error != "" {
				continue // Spark refuses ranges with delete files; changelog's own tests cover them
			}
			ranges++
			changes := map[string]any{"to_snapshot_id": rg.To, "compute_updates": rg.ComputeUpdates}
			if rg.From != nil {
				changes["from_snapshot_id"] = *rg.From
			}
			cmd, _ := json.Marshal(map[string]any{"table": "db." + name, "changes": changes})
			label := fmt.Sprintf("%s (%v, %d] compute_updates=%v", name, rg.From, rg.To, rg.ComputeUpdates)
			cctx, cancel := context.WithTimeout(ctx, time.Minute)
			got, err := scanRows(cctx, client, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd}, schema)
			cancel()
			if err != nil {
				t.Errorf("%s: %v", label, err)
				continue
			}
			wantRows := make([]string, len(rg.Rows))
			for i, r := range rg.Rows {
				if wantRows[i], err = testutil.OracleRow(schema, []byte(r)); err != nil {
					t.Fatal(err)
				}
			}
			if d := testutil.DiffRows(got, wantRows); d != "" {
				t.Errorf("%s: served changes differ from Spark's changelog view: %s", label, d)
				continue
			}
			equal++
		}
	}
	if ranges == 0 {
		t.Fatal("no range of Spark's changelog views to compare")
	}
	fmt.Printf("change streams served: %d/%d of Spark's changelog views equal\n", equal, ranges)
}

// TestChangeStreamCommands checks what a change command refuses, and that
// time bounds and a ref end a range as snapshot ids do.
func TestChangeStreamCommands(t *testing.T) {
	t.Parallel()
	client := startFlightd(t, filepath.Join("..", "..", "testdata", "warehouse"))
	ctx := context.Background()
	for _, tt := range []struct {
		name, cmd string
		code      codes.Code
		says      string
	}{
		{"a start that is no ancestor", `{"table": "samples.history", "changes": {"from_snapshot_id": 1}}`, codes.InvalidArgument, "1"},
		{"an end that does not exist", `{"table": "samples.history", "changes": {"to_snapshot_id": 1}}`, codes.NotFound, "1"},
		{"a range and a snapshot", `{"table": "samples.history", "snapshot_id": 1, "changes": {}}`, codes.InvalidArgument, "changes"},
		{"changes of a metadata table", `{"table": "samples.history", "metadata_table": "files", "changes": {}}`, codes.InvalidArgument, "not both"},
		{"two ends", `{"table": "samples.history", "changes": {"to_snapshot_id": 1, "to_ref": "main"}}`, codes.InvalidArgument, "one of"},
		{"an unknown key", `{"table": "samples.history", "changes": {"since": 1}}`, codes.InvalidArgument, "since"},
	} {
		_, err := client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(tt.cmd)})
		if status.Code(err) != tt.code || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v, want %v saying %q", tt.name, err, tt.code, tt.says)
		}
	}
	// The whole history by ids, by times and to the main branch: the same rows.
	cat, err := catalog.NewDirectory(filepath.Join("..", "..", "testdata", "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, catalog.Identifier{"samples", "history"})
	if err != nil {
		t.Fatal(err)
	}
	md := tbl.Metadata
	first, last := md.Snapshots[0], md.CurrentSnapshot()
	var answers [][]string
	for _, changes := range []string{
		fmt.Sprintf(`{"to_snapshot_id": %d}`, last.SnapshotID),
		fmt.Sprintf(`{"from_timestamp_ms": %d, "to_timestamp_ms": %d}`, first.TimestampMs-1, last.TimestampMs),
		`{"to_ref": "main"}`,
	} {
		cmd := `{"table": "samples.history", "changes": ` + changes + `}`
		rows := plainRows(ctx, t, client, cmd)
		if len(rows) == 0 {
			t.Fatalf("%s streamed nothing", cmd)
		}
		answers = append(answers, rows)
	}
	for i := 1; i < len(answers); i++ {
		if strings.Join(answers[i], "\n") != strings.Join(answers[0], "\n") {
			t.Errorf("range %d streams other rows than the range by ids", i)
		}
	}
}
