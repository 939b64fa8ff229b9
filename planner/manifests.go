package planner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"unsafe"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
	"github.com/iceflight/iceflight/internal/panics"
)

// liveFile is a data or delete file live in the snapshot, with what it
// inherited from its manifest.
type liveFile struct {
	// entry points into a decoded manifest, which may be cached and
	// shared by other plans: it is read only.
	entry *iceberg.ManifestEntry
	spec  iceberg.PartitionSpec
}

// manifests returns the snapshot's manifest list, building one for v1
// snapshots that list manifest paths directly.
func (p *Planner) manifests(ctx context.Context, t Table, snap *iceberg.Snapshot) ([]iceberg.ManifestFile, error) {
	ctx, span := tracer.Start(ctx, "planner.ManifestList", trace.WithAttributes(
		attribute.String("iceflight.file", snap.ManifestList), attribute.Int64("iceflight.snapshot_id", snap.SnapshotID)))
	defer span.End()
	if snap.ManifestList != "" {
		mapped, err := t.locate("manifest list", snap.ManifestList)
		if err != nil {
			return nil, err
		}
		// Inheritance fills values from the snapshot, so the key has its id.
		key := cacheKey("list", t.Name, mapped, snap.SnapshotID)
		v, hit, err := p.cache.get(ctx, key, func(ctx context.Context) (any, int64, error) {
			var mfs []iceberg.ManifestFile
			err := readFile(ctx, t.IO, "manifest list", snap.ManifestList, -1, p.maxManifest, func(data []byte) error {
				var err error
				if mfs, err = manifest.ReadList(bytes.NewReader(data), t.Metadata.FormatVersion, snap); err != nil {
					return fmt.Errorf("manifest list %s: %w", snap.ManifestList, err)
				}
				return nil
			})
			if err != nil {
				return nil, 0, err
			}
			return mfs, manifestListSize(mfs), nil
		})
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
			return nil, err
		}
		span.SetAttributes(attribute.Bool("iceflight.cache_hit", hit), attribute.Int("iceflight.manifests", len(v.([]iceberg.ManifestFile))))
		return v.([]iceberg.ManifestFile), nil
	}
	// A v1 snapshot lists its manifests directly; only their headers are
	// read here, for the partition spec id.
	return manifest.FromPaths(snap, func(path string) (io.ReadCloser, error) {
		f, err := t.IO.Open(ctx, path)
		if err != nil {
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{io.NewSectionReader(f, 0, f.Size()), f}, nil
	})
}

// readEntries reads manifests in parallel with a bounded pool and returns,
// in manifest order, the entries that are not DELETED and that keep
// accepts; their DataFiles hold the metrics of at least the columns in
// metrics. The first error cancels the remaining reads. Manifests read are
// added to the cache unless c.uncached (see PlanGroup).
func (p *Planner) readEntries(ctx context.Context, t Table, mfs []iceberg.ManifestFile, c *counters,
	metrics iceberg.MetricColumns, keep func(spec iceberg.PartitionSpec, e *iceberg.ManifestEntry) bool) ([]liveFile, error) {
	results := make([][]liveFile, len(mfs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.concurrency)
	for i, mf := range mfs {
		g.Go(panics.Func("read manifest "+mf.Path, func() error {
			spec, err := specOf(t.Metadata, mf)
			if err != nil {
				return err
			}
			entries, hit, err := p.manifest(gctx, t, mf, spec, metrics, !c.uncached)
			if err != nil {
				return err
			}
			c.manifestsRead.Add(1)
			if hit {
				c.cacheHits.Add(1)
			}
			live := make([]liveFile, 0, len(entries))
			for k := range entries {
				e := &entries[k]
				if e.Status != iceberg.EntryDeleted && keep(spec, e) {
					live = append(live, liveFile{entry: e, spec: spec})
				}
			}
			results[i] = live
			return nil
		}))
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	n := 0
	for _, r := range results {
		n += len(r)
	}
	out := make([]liveFile, 0, n)
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

func specOf(md *iceberg.TableMetadata, mf iceberg.ManifestFile) (iceberg.PartitionSpec, error) {
	spec, ok := md.SpecByID(mf.SpecID)
	if !ok {
		return spec, fmt.Errorf("manifest %s: %w: partition spec %d not in table metadata", mf.Path, iceberg.ErrInvalidMetadata, mf.SpecID)
	}
	return spec, nil
}

// partitionType resolves a spec's partition tuple type. A source column may
// have been dropped from the current schema, so older schemas are searched
// too, newest first.
func partitionType(md *iceberg.TableMetadata, spec iceberg.PartitionSpec) *iceberg.StructType {
	fields := make([]iceberg.NestedField, len(spec.Fields))
	for i, f := range spec.Fields {
		var typ iceberg.Type = iceberg.UnknownType{}
		if src, ok := findField(md, f.SourceID); ok {
			typ = f.Transform.ResultType(src.Type)
		}
		fields[i] = iceberg.NestedField{ID: f.FieldID, Name: f.Name, Type: typ}
	}
	return &iceberg.StructType{Fields: fields}
}

func findField(md *iceberg.TableMetadata, id int) (iceberg.NestedField, bool) {
	if f, ok := md.CurrentSchema().FieldByID(id); ok {
		return f, true
	}
	for i := len(md.Schemas) - 1; i >= 0; i-- {
		if f, ok := md.Schemas[i].FieldByID(id); ok {
			return f, true
		}
	}
	return iceberg.NestedField{}, false
}

// decodedManifest is a manifest's entries as cached: their DataFiles hold
// the column metrics of metrics only.
type decodedManifest struct {
	entries []iceberg.ManifestEntry
	metrics iceberg.MetricColumns
}

// manifest returns a manifest's decoded entries, from the cache when it
// has them with the metrics of at least the columns in metrics. Entries
// depend on the manifest file's inherited values, which are fixed for a
// given path and length. A cached manifest short of metrics is decoded
// again with the columns it had and those asked for, so a table queried
// on a few columns settles on one decoding of each manifest.
func (p *Planner) manifest(ctx context.Context, t Table, mf iceberg.ManifestFile, spec iceberg.PartitionSpec, metrics iceberg.MetricColumns, cacheNew bool) ([]iceberg.ManifestEntry, bool, error) {
	ctx, span := tracer.Start(ctx, "planner.Manifest", trace.WithAttributes(
		attribute.String("iceflight.file", mf.Path), attribute.Int64("iceflight.file_bytes", mf.Length)))
	defer span.End()
	mapped, err := t.locate("manifest", mf.Path)
	if err != nil {
		return nil, false, err
	}
	key := cacheKey(fmt.Sprintf("manifest/%d/%d", mf.SequenceNumber, mf.AddedSnapshotID), t.Name, mapped, mf.Length)
	fits := func(v any) bool { return v.(*decodedManifest).metrics.Covers(metrics) }
	v, hit, err := p.cache.getFitting(ctx, key, metricsVariant(metrics), fits, cacheNew, func(ctx context.Context, prev any) (any, int64, error) {
		cols := metrics
		if prev != nil {
			cols = prev.(*decodedManifest).metrics.Union(metrics)
		}
		var entries []iceberg.ManifestEntry
		err := readFile(ctx, t.IO, "manifest", mf.Path, mf.Length, p.maxManifest, func(data []byte) error {
			var err error
			if entries, err = manifest.Read(bytes.NewReader(data), mf, partitionType(t.Metadata, spec), manifest.WithMetrics(cols)); err != nil {
				return fmt.Errorf("manifest %s: %w", mf.Path, err)
			}
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
		return &decodedManifest{entries: entries, metrics: cols}, manifestSize(entries), nil
	})
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		return nil, false, err
	}
	entries := v.(*decodedManifest).entries
	span.SetAttributes(attribute.Bool("iceflight.cache_hit", hit), attribute.Int("iceflight.entries", len(entries)))
	return entries, hit, nil
}

// metricsVariant names a set of metric columns for the cache.
func metricsVariant(m iceberg.MetricColumns) string {
	if m.All() {
		return "all"
	}
	return fmt.Sprint(m.IDs())
}

// DefaultMaxManifestBytes bounds a manifest or manifest list read into
// memory by default; writers roll manifests over at 8 MiB.
const DefaultMaxManifestBytes = 256 << 20

// WithMaxManifestBytes bounds the manifests and manifest lists a plan reads
// into memory: a larger one fails the plan with an error wrapping
// fileio.ErrTooLarge that names it. 0 or less sets no bound.
func WithMaxManifestBytes(n int64) Option { return func(p *Planner) { p.maxManifest = n } }

// readFile reads a whole manifest or manifest list, of at most limit bytes,
// and hands its bytes to decode. length is the file's size as the manifest
// list records it (manifest_length), which spares the store a HEAD or stat
// request; 0 or less (a v1 list may not record it, and a snapshot does
// not record its manifest list's) asks the store. A plan reads thousands of these files, decoding copies what it
// keeps, and a buffer of the file's size is read in one call: the buffers
// are pooled, which spares a cold plan of a large table tens of megabytes
// of fresh memory.
//
// Errors opening or reading the file are wrapped with kind ("manifest");
// decode's are returned as they are.
func readFile(ctx context.Context, fio fileio.FileIO, kind, location string, length, limit int64, decode func([]byte) error) (err error) {
	// Cached loads run on the cache's goroutine, beyond the recover of the
	// planning worker that asked: a panic is caught here, where the file
	// is named as its table records it.
	defer panics.Recover(&err, "read "+kind+" "+location)
	if length <= 0 {
		length = -1
	}
	// A list may record a wrong length: the file is then read again with
	// the length the store reports (fileio.OpenRecorded).
	var bp *[]byte
	f, data, err := fileio.OpenRecorded(ctx, fio, location, length, func(f fileio.File) ([]byte, error) {
		size := f.Size()
		if err := fileio.CheckSize(kind+" "+location, size, limit); err != nil {
			return nil, err
		}
		bp, _ = readBuffers.Get().(*[]byte)
		if bp == nil || int64(cap(*bp)) < size {
			b := make([]byte, size)
			bp = &b
		}
		data := (*bp)[:size]
		if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), data); err != nil {
			return nil, fmt.Errorf("read %s: %w", location, err)
		}
		return data, nil
	})
	if bp != nil {
		defer func() {
			if cap(*bp) <= maxPooledRead {
				readBuffers.Put(bp)
			}
		}()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	defer f.Close()
	return decode(data)
}

// readBuffers holds the buffers of readFile.
var readBuffers sync.Pool

// maxPooledRead bounds the buffers kept in readBuffers.
const maxPooledRead = 4 << 20

// manifestSize estimates the memory decoded entries hold, for the cache's
// byte bound: the entries' array, and per entry its path, partition values,
// split offsets and column metrics. Metrics are slices that manifest.Read
// packs into a few shared allocations, so each count or bound costs its
// element (plus a bound's bytes) and nothing per column besides.
func manifestSize(entries []iceberg.ManifestEntry) int64 {
	const (
		entrySize = int64(unsafe.Sizeof(iceberg.ManifestEntry{}))
		countSize = int64(unsafe.Sizeof(iceberg.ColumnCount{}))
		boundSize = int64(unsafe.Sizeof(iceberg.ColumnBound{}))
		// A partition value is an interface and, mostly, a boxed value.
		valueSize = 32
		// Optional numbers held in the arena, allocation rounding.
		entryExtra = 64
	)
	n := int64(cap(entries)) * entrySize
	for i := range entries {
		df := &entries[i].DataFile
		n += entryExtra + int64(len(df.Path)) + int64(len(df.Partition))*valueSize + int64(len(df.SplitOffsets))*8
		n += int64(len(df.ColumnSizes)+len(df.ValueCounts)+len(df.NullValueCounts)+len(df.NaNValueCounts)) * countSize
		for _, b := range df.LowerBounds {
			n += boundSize + int64(len(b.Value))
		}
		for _, b := range df.UpperBounds {
			n += boundSize + int64(len(b.Value))
		}
	}
	return n
}

func manifestListSize(mfs []iceberg.ManifestFile) int64 {
	n := int64(0)
	for i := range mfs {
		n += 200 + int64(len(mfs[i].Path)) + int64(len(mfs[i].Partitions))*64
	}
	return n
}
