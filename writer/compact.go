package writer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// Compaction defaults (Iceberg Java's TableProperties and
// SizeBasedFileRewriter).
const (
	propTargetFileSize     = "write.target-file-size-bytes"
	defaultTargetFileSize  = 512 << 20
	defaultMinInputFiles   = 5
	operationReplace       = "replace"
	compactionSummaryKey   = "compaction"
	compactionSummaryValue = "rewrite-data-files"
)

// compaction is one attempt's plan and outcome.
type compaction struct {
	inputs  []iceberg.DataFile
	deletes []iceberg.DataFile
	outputs []iceberg.DataFile
}

// RewriteDataFiles compacts the table: among the live data files that
// match req.Filter, each partition's files smaller than the target size,
// and every file a delete applies to, are read (deletes applied) and
// written again into files of about the target size, in one replace
// commit that removes the inputs and the delete files that then apply to
// nothing. Files are grouped by their own spec and partition, and the
// output is written in the current default spec, as Java's
// RewriteDataFiles does with its default output spec: compacting a table
// after spec evolution also moves its old small files to the new layout.
// A partition is rewritten when it has req.MinInputFiles (default 5) such
// files, or any with deletes.
//
// The rewritten rows take the new snapshot's sequence number. That is
// safe where Java instead keeps the starting one: the commit requires
// the branch head it was planned on, so a delete committed meanwhile
// makes it a conflict, and the retry plans and rewrites afresh.
func (w *Writer) RewriteDataFiles(ctx context.Context, id catalog.Identifier, req CompactRequest) (*MaintenanceResult, error) {
	var filter expr.Expr = expr.TrueExpr{}
	if req.Filter != "" {
		f, err := parseFilter(id, req.Filter)
		if err != nil {
			return nil, err
		}
		filter = f
	}
	if req.TargetFileSize < 0 || req.MinInputFiles < 0 {
		return nil, fmt.Errorf("rewrite data files of %s: %w: negative target size or input count", id, ErrInvalidArgument)
	}
	var last *compaction
	res, err := w.commitChange(ctx, id, func(ctx context.Context, t *catalog.Table) (*change, error) {
		c, ch, err := w.planCompaction(ctx, t, filter, req)
		if err != nil {
			return nil, fmt.Errorf("rewrite data files of %s: %w", id, err)
		}
		last = c
		return ch, nil
	})
	if err != nil {
		return nil, err
	}
	out := &MaintenanceResult{DryRun: req.DryRun, SnapshotID: res.SnapshotID, Removed: []RemovedFile{}, Counts: map[string]int{}}
	if last == nil {
		return out, nil
	}
	for _, f := range append(slices.Clone(last.inputs), last.deletes...) {
		out.Removed = append(out.Removed, RemovedFile{Location: f.Path, Kind: contentKind(f.Content), Size: f.FileSize})
	}
	sortRemoved(out.Removed)
	out.Counts = countKinds(out.Removed)
	out.RewrittenFiles = int64(len(last.inputs))
	out.AddedFiles = int64(len(last.outputs))
	out.Counts["added"] = len(last.outputs)
	return out, nil
}

// planCompaction chooses the inputs on t and, unless it is a dry run,
// rewrites them; a nil change commits nothing.
func (w *Writer) planCompaction(ctx context.Context, t *catalog.Table, filter expr.Expr, req CompactRequest) (*compaction, *change, error) {
	md := t.Metadata
	head := md.CurrentSnapshot()
	if head == nil {
		return &compaction{}, nil, nil
	}
	target := req.TargetFileSize
	if target == 0 {
		target = propInt(md.Properties, propTargetFileSize, defaultTargetFileSize)
	}
	minInputs := req.MinInputFiles
	if minInputs == 0 {
		minInputs = defaultMinInputFiles
	}
	live, err := readLive(ctx, t, head)
	if err != nil {
		return nil, nil, err
	}
	sel, err := w.planMatches(ctx, t, "", filter, allColumns(md))
	if err != nil {
		return nil, nil, err
	}
	all := sel
	if _, everything := filter.(expr.TrueExpr); !everything {
		if all, err = w.planMatches(ctx, t, "", expr.TrueExpr{}, allColumns(md)); err != nil {
			return nil, nil, err
		}
	}
	// Which data files each delete file applies to, over the whole table.
	appliesTo := map[string]map[string]bool{}
	for loc, tasks := range all.files {
		for _, task := range tasks {
			for _, d := range task.Deletes {
				k := deleteKey(t, d)
				if appliesTo[k] == nil {
					appliesTo[k] = map[string]bool{}
				}
				appliesTo[k][loc] = true
			}
		}
	}
	// Group the candidates by partition of the default spec.
	type group struct{ small, withDeletes []string }
	groups := map[string]*group{}
	var keys []string
	for _, loc := range sel.order {
		e, ok := live.data[loc]
		if !ok {
			continue
		}
		tasks := sel.files[loc]
		hasDeletes := len(tasks) > 0 && len(tasks[0].Deletes) > 0
		if !hasDeletes && e.DataFile.FileSize >= target {
			continue
		}
		key := partitionKey(e.DataFile)
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
			keys = append(keys, key)
		}
		if hasDeletes {
			g.withDeletes = append(g.withDeletes, loc)
		} else {
			g.small = append(g.small, loc)
		}
	}
	c := &compaction{}
	var inputs []string
	for _, key := range keys {
		g := groups[key]
		n := len(g.small) + len(g.withDeletes)
		if len(g.withDeletes) == 0 && (n < minInputs || n < 2) {
			continue
		}
		inputs = append(inputs, g.withDeletes...)
		inputs = append(inputs, g.small...)
	}
	if len(inputs) == 0 {
		return c, nil, nil
	}
	removed := map[string]struct{}{}
	for _, loc := range inputs {
		removed[loc] = struct{}{}
		c.inputs = append(c.inputs, live.data[loc].DataFile)
	}
	// A delete file goes when every data file it applies to is rewritten.
	for _, e := range live.deletes {
		k := fileKey(e.DataFile)
		targets := appliesTo[k]
		if len(targets) == 0 {
			continue
		}
		gone := true
		for loc := range targets {
			if _, ok := removed[loc]; !ok {
				gone = false
				break
			}
		}
		if gone {
			removed[k] = struct{}{}
		}
	}
	removeDanglingDeletes(live, removed)
	for _, e := range live.deletes {
		if _, ok := removed[fileKey(e.DataFile)]; ok {
			c.deletes = append(c.deletes, e.DataFile)
		}
	}
	if req.DryRun {
		return c, nil, nil
	}
	cow, err := w.newCompactionWriter(ctx, t, target)
	if err != nil {
		return nil, nil, err
	}
	keepAll := roaring64.New()
	for _, loc := range inputs {
		if err := cow.rewrite(ctx, sel, sel.files[loc], keepAll); err != nil {
			return nil, nil, w.abortCOW(ctx, cow, err)
		}
	}
	outputs, err := cow.close(ctx)
	if err != nil {
		return nil, nil, err
	}
	c.outputs = outputs
	ch := &change{
		operation: operationReplace,
		addedData: outputs,
		removed:   removed,
		summary:   map[string]string{compactionSummaryKey: compactionSummaryValue},
		written:   paths(outputs),
	}
	return c, ch, nil
}

// newCompactionWriter is the copy-on-write writer of the table with the
// compaction's target file size.
func (w *Writer) newCompactionWriter(ctx context.Context, t *catalog.Table, target int64) (*copyOnWrite, error) {
	md := *t.Metadata
	md.Properties = maps.Clone(t.Metadata.Properties)
	if md.Properties == nil {
		md.Properties = map[string]string{}
	}
	md.Properties[propTargetFileSize] = strconv.FormatInt(target, 10)
	tt := *t
	tt.Metadata = &md
	cow, err := w.newCopyOnWrite(ctx, &tt)
	if err != nil {
		return nil, err
	}
	cow.t = t
	return cow, nil
}

// deleteKey names a task's delete file as change.removed and fileKey do:
// its recorded location, with the blob offset for a deletion vector.
func deleteKey(t *catalog.Table, d *scantask.DeleteFile) string {
	loc := t.Recorded(d.Path)
	if d.Format == scantask.Puffin {
		return fmt.Sprintf("%s@%d", loc, d.ContentOffset)
	}
	return loc
}

// partitionKey groups files by spec and partition tuple.
func partitionKey(df iceberg.DataFile) string {
	return fmt.Sprintf("%d/%v", df.SpecID, df.Partition)
}
