package writer

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/writer/datafile"
	"github.com/iceflight/iceflight/writer/puffin"
)

// Delete deletes the rows matching req.Filter in one commit: data files
// whose every row matches are removed whole; from the others the
// matching rows are deleted with position delete files (v2), deletion
// vectors (v3, merged with the file's existing one) or, with CopyOnWrite
// (and always in v1), by rewriting the file without them. A filter that
// matches nothing commits nothing (SnapshotID 0).
func (w *Writer) Delete(ctx context.Context, id catalog.Identifier, req DeleteRequest) (*Result, error) {
	if strings.TrimSpace(req.Filter) == "" {
		return nil, fmt.Errorf("delete from %s: %w: a filter is required (\"true\" deletes every row)", id, ErrInvalidArgument)
	}
	filter, err := parseFilter(id, req.Filter)
	if err != nil {
		return nil, err
	}
	if req.DryRun {
		t, err := w.load(ctx, id)
		if err != nil {
			return nil, err
		}
		d := &deletion{w: w, t: t, req: req, filter: filter, dryRun: true}
		if _, err := d.plan(ctx); err != nil {
			return nil, err
		}
		return &Result{DryRun: true, Operation: "delete", DeletedDataFiles: d.wholeFiles, DeletedRecords: d.rows, MetadataLocation: t.MetadataLocation}, nil
	}
	var rows, kept int64
	res, err := w.commitChange(ctx, id, func(ctx context.Context, t *catalog.Table) (*change, error) {
		d := &deletion{w: w, t: t, req: req, filter: filter}
		ch, err := d.plan(ctx)
		rows, kept = d.rows, d.kept
		return ch, err
	})
	if err != nil {
		return nil, err
	}
	if res.SnapshotID != 0 {
		// Rows copied by copy-on-write are not the caller's additions.
		res.DeletedRecords = rows
		res.AddedRecords -= kept
	}
	return res, nil
}

// deletion is one attempt's plan of a Delete.
type deletion struct {
	w      *Writer
	t      *catalog.Table
	req    DeleteRequest
	filter expr.Expr
	dryRun bool

	// wholeFiles and rows count the data files removed whole and the rows
	// deleted.
	wholeFiles, rows int64
	// kept counts the rows copy-on-write copied into new files.
	kept    int64
	written []string
}

// plan builds the change of the deletion on d.t; nil when nothing
// matches.
func (d *deletion) plan(ctx context.Context) (ch *change, err error) {
	md := d.t.Metadata
	head, err := branchHead(md, d.req.Branch)
	if err != nil || head == nil {
		return nil, err
	}
	live, err := readLive(ctx, d.t, head)
	if err != nil {
		return nil, err
	}
	cow := d.req.CopyOnWrite || md.FormatVersion < 2
	cols := []string{posColumn}
	if cow {
		cols = allColumns(md)
	}
	m, err := d.w.planMatches(ctx, d.t, d.req.Branch, d.filter, cols)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			d.w.removeFiles(context.WithoutCancel(ctx), d.t.IO, d.written)
		}
	}()
	ch = &change{operation: "delete", branch: d.req.Branch, removed: map[string]struct{}{}}
	var rewriter *copyOnWrite
	defer func() {
		if err != nil && rewriter != nil {
			rewriter.abort(ctx)
		}
	}()
	rd := d.w.readerFor(d.t)
	byPartition := map[string][]datafile.PositionDelete{}
	partitionOf := map[string]iceberg.DataFile{}
	var vectors []puffin.Vector
	for _, loc := range m.order {
		entry, ok := live.data[loc]
		if !ok {
			continue
		}
		if m.covered(loc) {
			ch.removed[loc] = struct{}{}
			d.wholeFiles++
			d.rows += entry.DataFile.RecordCount
			continue
		}
		matched, err := positions(ctx, rd, m.scan, m.files[loc], false)
		if err != nil {
			return nil, err
		}
		if matched.IsEmpty() {
			continue
		}
		d.rows += int64(matched.GetCardinality())
		if d.dryRun {
			continue
		}
		switch {
		case cow:
			if rewriter == nil {
				if rewriter, err = d.w.newCopyOnWrite(ctx, d.t); err != nil {
					return nil, err
				}
			}
			if err := rewriter.rewrite(ctx, m, m.files[loc], matched); err != nil {
				return nil, err
			}
			ch.removed[loc] = struct{}{}
		case md.FormatVersion >= 3:
			v, err := d.vector(ctx, rd, m, live, entry, matched, ch)
			if err != nil {
				return nil, err
			}
			vectors = append(vectors, v)
			partitionOf[loc] = entry.DataFile
		default:
			key := fmt.Sprintf("%d/%#v", entry.DataFile.SpecID, entry.DataFile.Partition)
			if _, ok := partitionOf[key]; !ok {
				partitionOf[key] = entry.DataFile
			}
			it := matched.Iterator()
			for it.HasNext() {
				byPartition[key] = append(byPartition[key], datafile.PositionDelete{Path: loc, Pos: int64(it.Next())})
			}
		}
	}
	if d.dryRun {
		return nil, nil
	}
	if err := d.writePositionDeletes(ctx, byPartition, partitionOf, ch); err != nil {
		return nil, err
	}
	if err := d.writeVectors(ctx, vectors, partitionOf, ch); err != nil {
		return nil, err
	}
	if rewriter != nil {
		files, err := rewriter.close(ctx)
		d.kept = rewriter.rows
		rewriter = nil
		if err != nil {
			return nil, err
		}
		d.written = append(d.written, paths(files)...)
		ch.addedData = files
		if len(files) > 0 {
			ch.operation = "overwrite"
		}
	}
	removeDanglingDeletes(live, ch.removed)
	if len(ch.removed) == 0 && len(ch.addedDeletes) == 0 && len(ch.addedData) == 0 {
		return nil, nil
	}
	ch.written = d.written
	return ch, nil
}

// vector returns the deletion vector of a data file: the matched
// positions, and when the file has a deletion vector already, every
// position it deletes too (so the old one is removed). The old positions
// are found as those the reader no longer returns, which also folds in
// any v2 position deletes of the file.
func (d *deletion) vector(ctx context.Context, rd *reader.Reader, m *matchPlan, live *liveFiles, entry iceberg.ManifestEntry, matched *roaring64.Bitmap, ch *change) (puffin.Vector, error) {
	loc := entry.DataFile.Path
	bm := matched
	for _, e := range live.deletes {
		if isDV(e.DataFile) && e.DataFile.ReferencedDataFile == loc {
			kept, err := positions(ctx, rd, m.scan, m.files[loc], true)
			if err != nil {
				return puffin.Vector{}, err
			}
			all := roaring64.New()
			all.AddRange(0, uint64(entry.DataFile.RecordCount))
			all.AndNot(kept)
			all.Or(matched)
			bm = all
			ch.removed[fileKey(e.DataFile)] = struct{}{}
			break
		}
	}
	v := puffin.Vector{DataFile: loc, Positions: make([]int64, 0, bm.GetCardinality())}
	it := bm.Iterator()
	for it.HasNext() {
		v.Positions = append(v.Positions, int64(it.Next()))
	}
	return v, nil
}

// writePositionDeletes writes one v2 position delete file per partition.
func (d *deletion) writePositionDeletes(ctx context.Context, byPartition map[string][]datafile.PositionDelete, partitionOf map[string]iceberg.DataFile, ch *change) error {
	keys := make([]string, 0, len(byPartition))
	for k := range byPartition {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		src := partitionOf[k]
		dir := dataDir(d.t)
		if spec, ok := d.t.Metadata.SpecByID(src.SpecID); ok {
			if pp := datafile.PartitionPath(spec, spec.PartitionType(d.t.Metadata.CurrentSchema()), src.Partition); pp != "" {
				dir += "/" + pp
			}
		}
		loc := fmt.Sprintf("%s/%s-deletes.parquet", dir, newUUID())
		d.written = append(d.written, loc)
		df, err := datafile.WritePositionDeletes(ctx, d.t.IO, loc, byPartition[k], datafile.Options{Properties: d.t.Metadata.Properties, Allocator: d.w.mem})
		if err != nil {
			return fmt.Errorf("table %s: write position deletes %s: %w", d.t.Identifier, loc, err)
		}
		df.SpecID, df.Partition = src.SpecID, src.Partition
		ch.addedDeletes = append(ch.addedDeletes, df)
	}
	return nil
}

// writeVectors writes the deletion vectors into one Puffin file.
func (d *deletion) writeVectors(ctx context.Context, vectors []puffin.Vector, partitionOf map[string]iceberg.DataFile, ch *change) error {
	if len(vectors) == 0 {
		return nil
	}
	loc := fmt.Sprintf("%s/%s-deletes.puffin", dataDir(d.t), newUUID())
	d.written = append(d.written, loc)
	dfs, err := puffin.WriteDeletionVectors(ctx, d.t.IO, loc, vectors)
	if err != nil {
		return fmt.Errorf("table %s: write deletion vectors %s: %w", d.t.Identifier, loc, err)
	}
	for _, df := range dfs {
		src := partitionOf[df.ReferencedDataFile]
		df.SpecID, df.Partition = src.SpecID, src.Partition
		ch.addedDeletes = append(ch.addedDeletes, df)
	}
	return nil
}
