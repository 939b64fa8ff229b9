package iceberg

import "testing"

// The start-up warm-up only builds decoders if its document parses.
func TestWarmupMetadataParses(t *testing.T) {
	t.Parallel()
	md, err := ParseMetadataString(warmupMetadata)
	if err != nil {
		t.Fatalf("ParseMetadataString(warmupMetadata): %v", err)
	}
	if s := md.CurrentSnapshot(); s == nil || s.SnapshotID != 1 || len(md.SnapshotLog) != 1 {
		t.Errorf("warm-up metadata parsed to snapshot %v, log %v", s, md.SnapshotLog)
	}
}
