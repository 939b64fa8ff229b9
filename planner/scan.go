package planner

import (
	"context"
	"math"
	"sync/atomic"

	"github.com/iceflight/iceflight/iceberg"
)

// counters are the statistics gathered while manifests are read in
// parallel; they end up in Stats.
type counters struct {
	// uncached keeps the manifests read out of the planner's cache.
	uncached                 bool
	manifestsRead, cacheHits atomic.Int64
	skippedByPartition       atomic.Int64
	skippedByMetrics         atomic.Int64
	deleteFilesSkipped       atomic.Int64
}

// collectOptions is what collect keeps beyond what the filter selects.
type collectOptions struct {
	// limit is the rows the plan needs at most; 0 for all.
	limit int64
	// metrics are the columns whose metrics data files keep.
	metrics iceberg.MetricColumns
	// appends, for an incremental plan, restricts the files to those its
	// snapshots added; nil for a plan of one snapshot.
	appends *appendScan
}

// collect returns the snapshot's live data and delete files that can hold
// rows matching the filter, pruning in order: manifests by their partition
// summaries and counts, then entries by partition values, then data files
// by column metrics. With a limit and no filter, data manifests are read
// in order only until enough rows are planned. An incremental plan reads
// the data files its append snapshots added instead, and no deletes.
func (p *Planner) collect(ctx context.Context, t Table, snap *iceberg.Snapshot, f *scanFilter, opts collectOptions, stats *Stats) (data, deletes []liveFile, err error) {
	dataMfs, deleteMfs, err := p.selectManifests(ctx, t, snap, f, opts.appends, stats)
	if err != nil {
		return nil, nil, err
	}
	relevant := relevantDeletes(dataMfs, deleteMfs, stats)
	var c counters
	// Delete files keep every metric: their file_path bounds narrow the
	// data files a position delete can touch.
	if deletes, err = p.readEntries(ctx, t, relevant, &c, iceberg.AllMetrics(), f.keepDelete(&c)); err != nil {
		return nil, nil, err
	}
	keep := f.keepData(&c)
	if opts.appends != nil {
		keep = opts.appends.keep(keep)
	}
	if opts.limit > 0 && f == nil && len(deletes) == 0 {
		data, err = p.readUntil(ctx, t, dataMfs, &c, opts.metrics, keep, opts.limit)
	} else {
		data, err = p.readEntries(ctx, t, dataMfs, &c, opts.metrics, keep)
	}
	if err != nil {
		return nil, nil, err
	}
	c.addTo(stats)
	stats.ManifestsSkipped += len(dataMfs) + len(relevant) - stats.ManifestsRead
	return data, deletes, nil
}

// addTo adds the counts to stats.
func (c *counters) addTo(stats *Stats) {
	stats.ManifestsRead += int(c.manifestsRead.Load())
	stats.ManifestCacheHits += int(c.cacheHits.Load())
	stats.FilesSkippedByPartition += int(c.skippedByPartition.Load())
	stats.FilesSkippedByMetrics += int(c.skippedByMetrics.Load())
	stats.DeleteFilesSkipped += int(c.deleteFilesSkipped.Load())
}

// selectManifests reads the snapshot's manifest list (or, for an
// incremental plan, the manifests its appends added) and returns the data
// manifests that may hold matching rows, by their counts and partition
// summaries, and every delete manifest that lists a file.
func (p *Planner) selectManifests(ctx context.Context, t Table, snap *iceberg.Snapshot, f *scanFilter, appends *appendScan, stats *Stats) (data, deletes []iceberg.ManifestFile, err error) {
	var mfs []iceberg.ManifestFile
	if appends == nil {
		mfs, err = p.manifests(ctx, t, snap)
	} else {
		mfs, err = p.appendManifests(ctx, t, appends, stats)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, mf := range mfs {
		// Spec: counts of -1 are unknown (v1 lists may omit them).
		if mf.AddedFilesCount == 0 && mf.ExistingFilesCount == 0 {
			stats.ManifestsSkipped++
			continue
		}
		if mf.Content == iceberg.ManifestContentDeletes {
			deletes = append(deletes, mf)
			continue
		}
		if sf := f.forSpec(mf.SpecID); sf != nil {
			if ok, err := sf.manifest.Eval(&mf); err != nil {
				return nil, nil, err
			} else if !ok {
				stats.ManifestsSkipped++
				continue
			}
		}
		data = append(data, mf)
	}
	return data, deletes, nil
}

// relevantDeletes returns the delete manifests that may apply to a file of
// the data manifests: a delete manifest whose every delete is older than
// every data file can apply to none of them (position deletes need data
// seq <= delete seq, equality deletes data seq < delete seq). The others
// are counted as skipped.
func relevantDeletes(data, deletes []iceberg.ManifestFile, stats *Stats) []iceberg.ManifestFile {
	minDataSeq := int64(math.MaxInt64)
	for _, mf := range data {
		minDataSeq = min(minDataSeq, mf.MinSequenceNumber)
	}
	relevant := deletes[:0:0]
	for _, mf := range deletes {
		if len(data) == 0 || mf.SequenceNumber < minDataSeq {
			stats.ManifestsSkipped++
			continue
		}
		relevant = append(relevant, mf)
	}
	return relevant
}

// readUntil reads data manifests one at a time, in list order, until the
// live data files hold at least limit rows. Only called when the snapshot
// has no applicable deletes, so record counts are row counts.
func (p *Planner) readUntil(ctx context.Context, t Table, mfs []iceberg.ManifestFile, c *counters, metrics iceberg.MetricColumns,
	keep func(iceberg.PartitionSpec, *iceberg.ManifestEntry) bool, limit int64) ([]liveFile, error) {
	var out []liveFile
	var rows int64
	for _, mf := range mfs {
		files, err := p.readEntries(ctx, t, []iceberg.ManifestFile{mf}, c, metrics, keep)
		if err != nil {
			return nil, err
		}
		for _, lf := range files {
			out = append(out, lf)
			if rows += lf.entry.DataFile.RecordCount; rows >= limit {
				return out, nil
			}
		}
	}
	return out, nil
}

// keepData returns the entry filter for data manifests: partition values,
// then column metrics. A nil filter keeps everything.
func (f *scanFilter) keepData(c *counters) func(iceberg.PartitionSpec, *iceberg.ManifestEntry) bool {
	return func(spec iceberg.PartitionSpec, e *iceberg.ManifestEntry) bool {
		if f == nil {
			return true
		}
		if sf := f.forSpec(spec.ID); sf != nil && !sf.partition.Eval(e.DataFile.Partition) {
			c.skippedByPartition.Add(1)
			return false
		}
		if ok, err := f.inclusive.Eval(&e.DataFile); err == nil && !ok && f.metricsApply(&e.DataFile) {
			c.skippedByMetrics.Add(1)
			return false
		}
		return true
	}
}

// keepDelete returns the entry filter for delete manifests: a delete file
// in a partition the filter excludes cannot touch a matching row.
func (f *scanFilter) keepDelete(c *counters) func(iceberg.PartitionSpec, *iceberg.ManifestEntry) bool {
	return func(spec iceberg.PartitionSpec, e *iceberg.ManifestEntry) bool {
		if sf := f.forSpec(spec.ID); sf != nil && !sf.partition.Eval(e.DataFile.Partition) {
			c.deleteFilesSkipped.Add(1)
			return false
		}
		return true
	}
}
