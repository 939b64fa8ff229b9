package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// runWrite is the write benchmark's peer (bench/write): it creates
// bench.lineitem in a SQL catalog on SQLite below warehouse and appends the
// Parquet file src to it in one commit with Table.Append, streaming the
// file's record batches, as iceberg-go's users append. It prints
// {"rows", "seconds": [append seconds], "peak_rss_mb"}.
func runWrite(ctx context.Context, src, warehouse string) error {
	cat, err := catalog.Load(ctx, "bench", iceberg.Properties{
		"type":            "sql",
		"uri":             "file://" + filepath.Join(warehouse, "catalog.db"),
		sqlcat.DriverKey:  sqliteshim.ShimName,
		sqlcat.DialectKey: string(sqlcat.SQLite),
		"warehouse":       "file://" + warehouse,
	})
	if err != nil {
		return fmt.Errorf("open the SQL catalog: %w", err)
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 131072}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	arrowSchema, err := fr.Schema()
	if err != nil {
		return err
	}
	schema, err := table.ArrowSchemaToIcebergWithFreshIDs(arrowSchema, false)
	if err != nil {
		return err
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		return err
	}
	tbl, err := cat.CreateTable(ctx, table.Identifier{"bench", "lineitem"}, schema)
	if err != nil {
		return err
	}
	start := time.Now()
	rdr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return err
	}
	defer rdr.Release()
	if _, err := tbl.Append(ctx, rdr, nil); err != nil {
		return fmt.Errorf("append: %w", err)
	}
	out := result{Rows: pf.NumRows(), Seconds: []float64{time.Since(start).Seconds()}, PeakRSSMB: peakRSSMB()}
	return json.NewEncoder(os.Stdout).Encode(out)
}
