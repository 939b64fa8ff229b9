package client

import (
	"context"
	"net"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/catalog"
)

// pagedActions answers snapshots and refs the way the server answers a
// long list: one JSON array or object split over several results.
type pagedActions struct {
	flight.BaseFlightServer
}

func (*pagedActions) DoAction(a *flight.Action, stream flight.FlightService_DoActionServer) error {
	pages := map[string][]string{
		"snapshots": {`[{"snapshot_id":1,"timestamp_ms":10},{"snapshot_id":2,"timestamp_ms":20}]`, `[{"snapshot_id":3,"timestamp_ms":30,"current":true}]`},
		"refs":      {`{"main":{"snapshot_id":3,"type":"branch"}}`, `{"v1":{"snapshot_id":1,"type":"tag"}}`},
	}[a.Type]
	for _, p := range pages {
		if err := stream.Send(&flight.Result{Body: []byte(p)}); err != nil {
			return err
		}
	}
	return nil
}

func TestActionsJoinEveryResultPage(t *testing.T) {
	srv := flight.NewServerWithMiddleware(nil)
	srv.RegisterFlightService(&pagedActions{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.InitListener(lis)
	go srv.Serve()
	t.Cleanup(srv.Shutdown)
	c, _ := dial(t, "grpc://"+lis.Addr().String())
	ctx := context.Background()
	snaps, err := c.Snapshots(ctx, "db.t")
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 3 || snaps[0].SnapshotID != 1 || snaps[2].SnapshotID != 3 || !snaps[2].Current {
		t.Errorf("snapshots %+v, want 1, 2 and 3 (current) from two pages", snaps)
	}
	refs, err := c.Refs(ctx, "db.t")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs["main"].SnapshotID != 3 || refs["v1"].Type != "tag" {
		t.Errorf("refs %+v, want main and v1 from two pages", refs)
	}
}

// The Go client reads the real server's snapshots and refs answers into
// the one definition both share (proto/actions), and gets back the
// table's metadata: every snapshot with its parent, time, operation,
// summary and schema, the current one marked, and every ref.
func TestActionsReadTheServersAnswer(t *testing.T) {
	t.Parallel()
	s := serve(t, 1000, 0)
	c, _ := dial(t, s.addr)
	ctx := context.Background()
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, catalog.Identifier{"samples", "history"})
	if err != nil {
		t.Fatal(err)
	}
	md := tbl.Metadata
	snaps, err := c.Snapshots(ctx, "samples.history")
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != len(md.Snapshots) || len(snaps) < 3 {
		t.Fatalf("%d snapshots, want the metadata's %d (at least 3)", len(snaps), len(md.Snapshots))
	}
	byID := map[int64]Snapshot{}
	for _, s := range snaps {
		byID[s.SnapshotID] = s
	}
	for _, want := range md.Snapshots {
		got, ok := byID[want.SnapshotID]
		if !ok {
			t.Errorf("snapshot %d missing", want.SnapshotID)
			continue
		}
		current := md.CurrentSnapshotID != nil && *md.CurrentSnapshotID == want.SnapshotID
		if !reflect.DeepEqual(got.ParentID, want.ParentSnapshotID) || got.TimestampMs != want.TimestampMs ||
			got.Operation != want.Operation() || got.Operation == "" || !reflect.DeepEqual(got.Summary, want.Summary.Map()) ||
			!reflect.DeepEqual(got.SchemaID, want.SchemaID) || got.Current != current {
			t.Errorf("snapshot %d: got %+v, want parent %v, time %d, operation %q, summary %v, schema %v, current %v", want.SnapshotID,
				got, want.ParentSnapshotID, want.TimestampMs, want.Operation(), want.Summary.Map(), want.SchemaID, current)
		}
	}
	refs, err := c.Refs(ctx, "samples.history")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != len(md.Refs) {
		t.Errorf("%d refs, want %d", len(refs), len(md.Refs))
	}
	for name, want := range md.Refs {
		if got := refs[name]; got.SnapshotID != want.SnapshotID || got.Type != want.Type {
			t.Errorf("ref %s: %+v, want %d %s", name, got, want.SnapshotID, want.Type)
		}
	}
}
