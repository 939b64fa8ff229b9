package planner

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// liveFile is a data or delete file live in the snapshot, with what it
// inherited from its manifest.
type liveFile struct {
	entry iceberg.ManifestEntry
	spec  iceberg.PartitionSpec
}

// manifests returns the snapshot's manifest list, building one for v1
// snapshots that list manifest paths directly.
func (p *Planner) manifests(ctx context.Context, t Table, snap *iceberg.Snapshot) ([]iceberg.ManifestFile, error) {
	if snap.ManifestList != "" {
		data, err := fileio.ReadAll(ctx, t.IO, snap.ManifestList)
		if err != nil {
			return nil, fmt.Errorf("manifest list: %w", err)
		}
		mfs, err := iceberg.ReadManifestList(bytes.NewReader(data), t.Metadata.FormatVersion, snap)
		if err != nil {
			return nil, fmt.Errorf("manifest list %s: %w", snap.ManifestList, err)
		}
		return mfs, nil
	}
	// A v1 snapshot lists its manifests directly; only their headers are
	// read here, for the partition spec id.
	return iceberg.DataManifestsFromPaths(snap, func(path string) (io.ReadCloser, error) {
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

// liveFiles reads every manifest of the snapshot in parallel and returns the
// entries that are not DELETED, in manifest order.
func (p *Planner) liveFiles(ctx context.Context, t Table, snap *iceberg.Snapshot, stats *Stats) ([]liveFile, error) {
	mfs, err := p.manifests(ctx, t, snap)
	if err != nil {
		return nil, err
	}
	results := make([][]liveFile, len(mfs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.concurrency)
	for i, mf := range mfs {
		g.Go(func() error {
			spec, ok := t.Metadata.SpecByID(mf.SpecID)
			if !ok {
				return fmt.Errorf("manifest %s: %w: partition spec %d not in table metadata", mf.Path, iceberg.ErrInvalidMetadata, mf.SpecID)
			}
			data, err := fileio.ReadAll(gctx, t.IO, mf.Path)
			if err != nil {
				return fmt.Errorf("manifest: %w", err)
			}
			entries, err := iceberg.ReadManifest(bytes.NewReader(data), mf, partitionType(t.Metadata, spec))
			if err != nil {
				return fmt.Errorf("manifest %s: %w", mf.Path, err)
			}
			live := make([]liveFile, 0, len(entries))
			for _, e := range entries {
				if e.Status != iceberg.EntryDeleted {
					live = append(live, liveFile{entry: e, spec: spec})
				}
			}
			results[i] = live
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	stats.ManifestsRead = len(mfs)
	var out []liveFile
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
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
