package client

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
)

// TestScanReadsAPlanWhileItIsPlanned scans a table whose plan the server
// streams group by group, with every manifest but the first one opened
// held back until the scan has its first batch: a Scan that waited for
// the whole plan would never get one. It then reads every row the whole
// plan reads.
func TestScanReadsAPlanWhileItIsPlanned(t *testing.T) {
	t.Parallel()
	blocking := fileiotest.NewBlocking(fileio.NewLocal(), fileiotest.AllButFirst(fileiotest.IsManifest))
	t.Cleanup(blocking.Release)
	s := serveWith(t, 0, 0, []catalog.Option{catalog.WithFileIO(blocking)},
		engine.WithManifestTicketsAbove(0), engine.WithLargePlanTickets(engine.TicketsFiles))
	c, _ := dial(t, s.addr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rows int64
	err := c.Scan(ctx, Command{Table: "samples.history", MaxEndpoints: 4}, func(rec arrow.RecordBatch) error {
		if rows == 0 {
			blocking.Release()
		}
		rows += rec.NumRows()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := c.Read(ctx, Command{Table: "samples.history"})
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Release()
	if rows != whole.NumRows() || rows == 0 {
		t.Errorf("the streamed plan read %d rows, the whole plan %d", rows, whole.NumRows())
	}
}
