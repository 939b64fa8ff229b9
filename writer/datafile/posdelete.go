package datafile

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Field ids of the position delete file schema (Spec: Position Delete Files).
const (
	PosDeleteFilePathID = 2147483546
	PosDeletePosID      = 2147483545
)

// PositionDeleteSchema is the Iceberg schema of a position delete file.
var PositionDeleteSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: PosDeleteFilePathID, Name: "file_path", Type: iceberg.StringType{}, Required: true},
	iceberg.NestedField{ID: PosDeletePosID, Name: "pos", Type: iceberg.LongType{}, Required: true},
)

// posDeleteBatchRows is the rows per batch handed to the Parquet writer.
const posDeleteBatchRows = 64 << 10

func writePositionDeletes(ctx context.Context, fio fileio.FileIO, location string, deletes []PositionDelete, opts Options) (iceberg.DataFile, error) {
	if err := ctx.Err(); err != nil {
		return iceberg.DataFile{}, err
	}
	cfg, err := parseConfig(opts)
	if err != nil {
		return iceberg.DataFile{}, fmt.Errorf("write position deletes %s: %w", location, err)
	}
	schema := PositionDeleteSchema
	as, err := iceberg.ArrowSchema(schema)
	if err != nil {
		return iceberg.DataFile{}, err
	}
	// Iceberg Java (MetricsConfig.forPositionDelete) keeps full bounds for
	// both columns: planners match a delete file to data files by the
	// file_path bounds, which truncation would widen.
	cols, err := leafColumns(schema, map[string]string{PropMetricsDefault: "full"})
	if err != nil {
		return iceberg.DataFile{}, err
	}
	sorted := slices.Clone(deletes)
	slices.SortFunc(sorted, func(a, b PositionDelete) int {
		if c := cmp.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return cmp.Compare(a.Pos, b.Pos)
	})
	f, err := openParquet(ctx, fio, location, as, schema.Fields, cfg)
	if err != nil {
		return iceberg.DataFile{}, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = f.abandon()
		}
	}()
	for start := 0; start < len(sorted); start += posDeleteBatchRows {
		if err := ctx.Err(); err != nil {
			return iceberg.DataFile{}, fmt.Errorf("write position deletes %s: %w", location, err)
		}
		end := min(start+posDeleteBatchRows, len(sorted))
		rec := posDeleteBatch(cfg, as, sorted[start:end])
		err := f.write(rec)
		rec.Release()
		if err != nil {
			return iceberg.DataFile{}, err
		}
	}
	ok = true
	df, err := f.finish(cols, 0)
	if err != nil {
		return iceberg.DataFile{}, err
	}
	df.Content = iceberg.FileContentPositionDeletes
	if len(sorted) > 0 && sorted[0].Path == sorted[len(sorted)-1].Path {
		df.ReferencedDataFile = sorted[0].Path
	}
	return df, nil
}

func posDeleteBatch(cfg config, schema *arrow.Schema, rows []PositionDelete) arrow.RecordBatch {
	b := array.NewRecordBuilder(cfg.mem, schema)
	defer b.Release()
	paths := b.Field(0).(*array.StringBuilder)
	pos := b.Field(1).(*array.Int64Builder)
	paths.Reserve(len(rows))
	pos.Reserve(len(rows))
	for _, r := range rows {
		paths.Append(r.Path)
		pos.Append(r.Pos)
	}
	return b.NewRecordBatch()
}
