package iceberg

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/iceflight/iceflight/internal/fuzzseed"
)

// metadataSeeds are the metadata files of the sample warehouse.
func metadataSeeds(f *testing.F) [][]byte {
	return fuzzseed.SeedFiles(f, 64<<10, filepath.Join("..", "testdata", "warehouse", "samples", "*", "metadata", "*.metadata.json"))
}

// FuzzParseMetadata parses arbitrary bytes as a table metadata file. It must
// not panic, every error must wrap ErrInvalidMetadata (or ErrUnsupportedVersion), bytes and string
// must parse alike, and what it accepts encoding/json must read to the same
// snapshots and logs (the part the hand-written reader decodes itself).
func FuzzParseMetadata(f *testing.F) {
	fuzzseed.AddSeeds(f, metadataSeeds(f)...)
	f.Fuzz(func(t *testing.T, data []byte) {
		md, err := ParseMetadata(data)
		mds, errs := ParseMetadataString(string(data))
		if (err == nil) != (errs == nil) {
			t.Fatalf("from bytes: %v; from a string: %v", err, errs)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidMetadata) && !errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("error %v wraps neither ErrInvalidMetadata nor ErrUnsupportedVersion", err)
			}
			return
		}
		if isGzip(data) {
			return // encoding/json reads no gzip
		}
		var want referenceMetadata
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("accepted metadata encoding/json refuses: %v", err)
		}
		for _, got := range []*TableMetadata{md, mds} {
			if g := (referenceMetadata{Snapshots: got.Snapshots, SnapshotLog: got.SnapshotLog, MetadataLog: got.MetadataLog}); !reflect.DeepEqual(g, want) {
				t.Fatalf("got  %+v\nwant %+v", g, want)
			}
		}
	})
}

// FuzzDecodeSnapshots holds the snapshots array decoder to encoding/json's
// reading into []Snapshot on arbitrary text, as
// TestSnapshotsDecodeAsEncodingJSON does on chosen cases: the same values
// and summaries, or an error for the same inputs.
func FuzzDecodeSnapshots(f *testing.F) {
	var seeds [][]byte
	for _, data := range metadataSeeds(f) {
		var top struct {
			Snapshots json.RawMessage `json:"snapshots"`
		}
		if json.Unmarshal(data, &top) == nil && len(top.Snapshots) > 0 {
			seeds = append(seeds, top.Snapshots)
		}
	}
	fuzzseed.AddSeeds(f, seeds...)
	f.Fuzz(func(t *testing.T, data []byte) {
		var want []Snapshot
		wantErr := json.Unmarshal(data, &want)
		got, gotErr := decodeSnapshots(string(data))
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
		}
		if wantErr != nil {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got  %+v\nwant %+v", got, want)
		}
		checkSummaries(t, string(data), got)
	})
}
