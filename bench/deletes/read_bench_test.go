package deletes

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// warehouse is where `make bench-deletes` writes the tables, relative to
// this package.
var warehouse = filepath.Join("..", ".data", "deletes-warehouse")

// record is the generator's description of the tables, with the rows
// Iceberg Java read from each.
var record = filepath.Join("..", ".data", "deletes.json")

// tables are the generated tables, the plain one first.
var tables = []string{"plain", "eq_deletes", "pos_deletes"}

// BenchmarkRead reads every row of each table the way one flightd DoGet per
// endpoint would, minus Flight: plan the full scan, then reader.Read every
// task, GOMAXPROCS tasks at a time, with one Reader per table so that its
// equality delete cache is warm after the first iteration, as on a serving
// process. Profile one table at a time:
//
//	go test -run '^$' -bench 'Read/eq_deletes' -cpuprofile eq.pprof
//	go tool pprof -top eq.pprof
func BenchmarkRead(b *testing.B) {
	if _, err := os.Stat(warehouse); err != nil {
		b.Skipf("no tables in %s: run `make bench-deletes` first (%v)", warehouse, err)
	}
	ctx := context.Background()
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range tables {
		b.Run(name, func(b *testing.B) {
			s, err := planScan(ctx, cat, name)
			if err != nil {
				b.Fatal(err)
			}
			want, err := javaRows(name)
			if err != nil {
				b.Fatal(err)
			}
			rd := reader.New(fileio.NewResolver())
			var rows int64
			start := time.Now()
			for b.Loop() {
				if rows, err = s.read(ctx, rd); err != nil {
					b.Fatal(err)
				}
				if rows != want {
					b.Fatalf("bench.%s: read %d rows, Iceberg Java reads %d", name, rows, want)
				}
			}
			b.ReportMetric(float64(rows), "rows")
			b.ReportMetric(float64(rows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
		})
	}
}

// plannedScan is a planned full scan of one table.
type plannedScan struct {
	table string
	scan  reader.Scan
	plan  *planner.Plan
}

// planScan plans a full scan of bench.name as flightd's GetFlightInfo does.
func planScan(ctx context.Context, cat catalog.Catalog, name string) (*plannedScan, error) {
	t, err := cat.LoadTable(ctx, catalog.Identifier{"bench", name})
	if err != nil {
		return nil, fmt.Errorf("load table bench.%s: %w", name, err)
	}
	plan, err := planner.New().Plan(ctx, planner.Table{
		Name: t.Identifier.String(), MetadataLocation: t.MetadataLocation, Metadata: t.Metadata, IO: t.IO,
	}, planner.Request{CaseSensitive: true})
	if err != nil {
		return nil, fmt.Errorf("plan bench.%s: %w", name, err)
	}
	return &plannedScan{
		table: t.Identifier.String(),
		scan:  reader.Scan{Schema: plan.Schema, EqualitySchema: plan.EqualitySchema, FilterSchema: plan.FilterSchema},
		plan:  plan,
	}, nil
}

// read reads every task of the plan and returns the rows read.
func (s *plannedScan) read(ctx context.Context, rd *reader.Reader) (int64, error) {
	var rows atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, ep := range s.plan.Endpoints {
		for _, task := range ep.Tasks {
			g.Go(func() error {
				err := rd.Read(gctx, s.scan, task, func(batch arrow.RecordBatch) error {
					rows.Add(batch.NumRows())
					return nil
				})
				if err != nil {
					return fmt.Errorf("read %s: %w", s.table, err)
				}
				return nil
			})
		}
	}
	err := g.Wait()
	return rows.Load(), err
}

// javaRows returns the rows Iceberg Java's generic reader read from
// bench.name when the table was generated.
func javaRows(name string) (int64, error) {
	data, err := os.ReadFile(record)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", record, err)
	}
	var r struct {
		Tables map[string]struct {
			Rows int64 `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return 0, fmt.Errorf("read %s: %w", record, err)
	}
	t, ok := r.Tables[name]
	if !ok {
		return 0, fmt.Errorf("%s: no table %s", record, name)
	}
	return t.Rows, nil
}
