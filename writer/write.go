package writer

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/writer/datafile"
)

// Write appends or overwrites with the stream's rows, in one commit. The
// stream's schema is checked against the table's before anything is
// written (a mismatch wraps ErrInvalidArgument and
// datafile.ErrSchemaMismatch); a stream that fails midway removes the
// files written and commits nothing. rows is consumed, not released.
func (w *Writer) Write(ctx context.Context, id catalog.Identifier, req WriteRequest, rows array.RecordReader) (*Result, error) {
	if req.Mode != Append && req.Mode != Overwrite {
		return nil, fmt.Errorf("write to %s: %w: mode %d", id, ErrInvalidArgument, req.Mode)
	}
	var filter expr.Expr = expr.AlwaysTrue()
	if req.Mode == Overwrite && req.Filter != "" {
		f, err := parseFilter(id, req.Filter)
		if err != nil {
			return nil, err
		}
		filter = f
	}
	t, err := w.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, err := branchHead(t.Metadata, req.Branch); err != nil {
		return nil, fmt.Errorf("write to %s: %w", id, err)
	}
	files, err := w.writeRows(ctx, t, rows)
	if err != nil {
		return nil, err
	}
	var kept int64 // rows of rewritten files copied into new ones
	res, err := w.commitChange(ctx, id, func(ctx context.Context, fresh *catalog.Table) (*change, error) {
		kept = 0
		ch := &change{operation: "append", branch: req.Branch, addedData: files, summary: maps.Clone(req.SnapshotProperties)}
		if req.Mode == Append && len(files) == 0 {
			return nil, nil // an empty stream appends nothing: no snapshot
		}
		if req.Mode == Overwrite {
			ch.operation = "overwrite"
			n, err := w.planOverwrite(ctx, fresh, req.Branch, filter, ch)
			if err != nil {
				return nil, err
			}
			kept = n
		}
		return ch, nil
	})
	if err != nil {
		if mayClean(err) {
			w.removeDataFiles(ctx, t.IO, files)
		}
		return nil, err
	}
	// The summary counts a rewritten file's rows as deleted and its copy's
	// as added; the caller is told the rows the overwrite removed and the
	// stream's it added.
	res.DeletedRecords -= kept
	res.AddedRecords -= kept
	return res, nil
}

// writeRows writes the stream into data files of the table's current
// schema and default spec.
func (w *Writer) writeRows(ctx context.Context, t *catalog.Table, rows array.RecordReader) ([]iceberg.DataFile, error) {
	conf, err := datafile.NewConformer(rows.Schema(), t.Metadata.CurrentSchema(), w.mem)
	if err != nil {
		return nil, fmt.Errorf("write to %s: %w: %w", t.Identifier, ErrInvalidArgument, err)
	}
	dw, err := w.newDataWriter(ctx, t)
	if err != nil {
		return nil, err
	}
	fail := func(err error) ([]iceberg.DataFile, error) {
		return nil, errors.Join(err, dw.Abort(context.WithoutCancel(ctx)))
	}
	ahead := prefetch(rows)
	defer ahead.close()
	rows = ahead
	for rows.Next() {
		batch, err := conf.Conform(rows.RecordBatch())
		if err != nil {
			return fail(fmt.Errorf("write to %s: %w: %w", t.Identifier, ErrInvalidArgument, err))
		}
		err = dw.Write(ctx, batch)
		batch.Release()
		if err != nil {
			return fail(fmt.Errorf("write to %s: %w", t.Identifier, err))
		}
	}
	if err := rows.Err(); err != nil {
		return fail(fmt.Errorf("write to %s: read the stream: %w", t.Identifier, err))
	}
	files, err := dw.Close(ctx)
	if err != nil {
		return fail(fmt.Errorf("write to %s: %w", t.Identifier, err))
	}
	return files, nil
}

// planOverwrite adds to ch what an overwrite of the rows matching filter
// removes: files whose every row matches go whole (with their deletion
// vectors and the delete files of partitions the filter covers), files
// that match in part are rewritten without the matching rows.
//
// It returns the rows copied into rewritten files.
func (w *Writer) planOverwrite(ctx context.Context, t *catalog.Table, branch string, filter expr.Expr, ch *change) (int64, error) {
	head, err := branchHead(t.Metadata, branch)
	if err != nil || head == nil {
		return 0, err
	}
	live, err := readLive(ctx, t, head)
	if err != nil {
		return 0, err
	}
	if _, all := filter.(expr.TrueExpr); all {
		for _, e := range live.data {
			ch.remove(e.DataFile)
		}
		for _, e := range live.deletes {
			ch.remove(e.DataFile)
		}
		return 0, nil
	}
	m, err := w.planMatches(ctx, t, branch, filter, allColumns(t.Metadata))
	if err != nil {
		return 0, err
	}
	var cow *copyOnWrite
	for _, loc := range m.order {
		entry, ok := live.data[loc]
		if !ok {
			continue
		}
		if m.covered(loc) {
			ch.remove(entry.DataFile)
			continue
		}
		matched, err := positions(ctx, w.readerFor(t), m.scan, m.files[loc], false)
		if err != nil {
			return 0, w.abortCOW(ctx, cow, err)
		}
		if matched.IsEmpty() {
			continue
		}
		if cow == nil {
			if cow, err = w.newCopyOnWrite(ctx, t); err != nil {
				return 0, err
			}
		}
		if err := cow.rewrite(ctx, m, m.files[loc], matched); err != nil {
			return 0, w.abortCOW(ctx, cow, err)
		}
		ch.remove(entry.DataFile)
	}
	var kept int64
	if cow != nil {
		files, err := cow.close(ctx)
		if err != nil {
			return 0, err
		}
		ch.addedData = append(append([]iceberg.DataFile(nil), ch.addedData...), files...)
		ch.written = append(ch.written, paths(files)...)
		kept = cow.rows
	}
	ch.removeDangling(live)
	return kept, nil
}

// removeDanglingDeletes adds to removed the deletion vectors and
// file-scoped position deletes of removed data files, as Java drops
// dangling DVs.
//
//lint:ignore U1000 compaction (maint) calls it
func removeDanglingDeletes(live *liveFiles, removed map[string]struct{}) {
	for _, df := range danglingDeletes(live, removed) {
		removed[fileKey(df)] = struct{}{}
	}
}

// danglingDeletes returns the live deletion vectors and file-scoped
// position deletes whose data file is in removed.
func danglingDeletes(live *liveFiles, removed map[string]struct{}) []iceberg.DataFile {
	var out []iceberg.DataFile
	for _, e := range live.deletes {
		ref := e.DataFile.ReferencedDataFile
		if ref == "" || e.DataFile.Content != iceberg.FileContentPositionDeletes {
			continue
		}
		if _, gone := removed[ref]; gone {
			out = append(out, e.DataFile)
		}
	}
	return out
}

// removeDangling removes the dangling deletes of the change's removed
// data files (see removeDanglingDeletes).
func (ch *change) removeDangling(live *liveFiles) {
	for _, df := range danglingDeletes(live, ch.removed) {
		ch.remove(df)
	}
}

func (w *Writer) abortCOW(ctx context.Context, cow *copyOnWrite, err error) error {
	if cow != nil {
		cow.abort(ctx)
	}
	return err
}
