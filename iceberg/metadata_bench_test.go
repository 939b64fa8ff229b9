package iceberg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseMetadataPlanTable parses the planning benchmark table's
// metadata file (1,000 snapshots, about 840 KB), as a cold table load does.
func BenchmarkParseMetadataPlanTable(b *testing.B) {
	dir := filepath.Join("..", "bench", ".data")
	raw, err := os.ReadFile(filepath.Join(dir, "events.json"))
	if err != nil {
		b.Skipf("planning benchmark table not generated (make bench-plan): %v", err)
	}
	var events struct {
		MetadataLocation string `json:"metadata_location"`
	}
	if err := json.Unmarshal(raw, &events); err != nil {
		b.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "warehouse", "bench", "events", "metadata", filepath.Base(events.MetadataLocation)))
	if err != nil {
		b.Skipf("planning benchmark table incomplete: %v", err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseMetadata(text); err != nil {
			b.Fatal(err)
		}
	}
}
