package metatable

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// manifestList returns a snapshot's manifests, as its manifest list
// records them or, for a v1 snapshot that lists manifest paths itself, as
// their headers say.
func manifestList(ctx context.Context, t Table, snap *iceberg.Snapshot, o *options) ([]iceberg.ManifestFile, error) {
	if snap.ManifestList == "" {
		mfs, err := manifest.FromPaths(snap, func(path string) (io.ReadCloser, error) {
			f, err := t.IO.Open(ctx, path)
			if err != nil {
				return nil, err
			}
			o.stats.countFile()
			return struct {
				io.Reader
				io.Closer
			}{io.NewSectionReader(f, 0, f.Size()), f}, nil
		})
		if err != nil {
			return nil, fmt.Errorf("manifests of snapshot %d: %w", snap.SnapshotID, err)
		}
		return mfs, nil
	}
	data, err := readWhole(ctx, t.IO, snap.ManifestList, -1, o.maxManifest)
	if err != nil {
		return nil, fmt.Errorf("manifest list of snapshot %d: %w", snap.SnapshotID, err)
	}
	o.stats.countFile()
	mfs, err := manifest.ReadList(bytes.NewReader(data), t.Metadata.FormatVersion, snap)
	if err != nil {
		return nil, fmt.Errorf("manifest list %s: %w", snap.ManifestList, err)
	}
	return mfs, nil
}

// manifestEntries returns every entry of a manifest, DELETED ones
// included, with the metrics of cols. Partition values are read as the
// spec's partition type over the current schema, the type the metadata
// tables' partition column has.
func manifestEntries(ctx context.Context, t Table, ref ManifestRef, cols iceberg.MetricColumns, o *options) ([]iceberg.ManifestEntry, error) {
	spec, ok := t.Metadata.SpecByID(ref.SpecID)
	if !ok {
		return nil, fmt.Errorf("manifest %s: %w: partition spec %d is not in the table metadata", ref.Path, iceberg.ErrInvalidMetadata, ref.SpecID)
	}
	data, err := readWhole(ctx, t.IO, ref.Path, ref.Length, o.maxManifest)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	o.stats.countFile()
	entries, err := manifest.Read(bytes.NewReader(data), ref.manifestFile(), spec.PartitionType(t.Metadata.CurrentSchema()), manifest.WithMetrics(cols))
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", ref.Path, err)
	}
	return entries, nil
}

// readWhole reads a manifest or manifest list of at most limit bytes.
// length is its size as recorded (a manifest list's manifest_length),
// which spares the store a request for it; -1 when not recorded.
func readWhole(ctx context.Context, fio fileio.FileIO, location string, length, limit int64) ([]byte, error) {
	if length <= 0 {
		length = -1
	}
	f, data, err := fileio.OpenRecorded(ctx, fio, location, length, func(f fileio.File) ([]byte, error) {
		if err := fileio.CheckSize(location, f.Size(), limit); err != nil {
			return nil, err
		}
		data := make([]byte, f.Size())
		if _, err := io.ReadFull(io.NewSectionReader(f, 0, f.Size()), data); err != nil {
			return nil, fmt.Errorf("read %s: %w", location, err)
		}
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	f.Close()
	return data, nil
}

// countFile counts a manifest or manifest list read.
func (s *ReadStats) countFile() {
	if s != nil {
		s.Files++
	}
}
