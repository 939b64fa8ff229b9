package manifest

import (
	"io"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// BenchmarkWriteManifest writes manifests of 10,000 entries with metrics
// for a few columns, partitioned by bucket and truncate.
func BenchmarkWriteManifest(b *testing.B) {
	pc := partitionCases[2]
	entries := make([]iceberg.ManifestEntry, 10_000)
	for i := range entries {
		entries[i] = iceberg.ManifestEntry{Status: iceberg.EntryAdded, DataFile: dataFile(iceberg.FileContentData, "s3://b/t/data/f.parquet", pc.values[i%2], int64(i))}
	}
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewWriter(io.Discard, WriterOptions{FormatVersion: 2, Schema: testSchema, Spec: pc.spec, SnapshotID: 1})
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range entries {
			if err := w.Add(e); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
