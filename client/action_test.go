package client

import (
	"context"
	"net"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
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
