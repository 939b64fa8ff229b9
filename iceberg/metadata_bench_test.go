package iceberg

import (
	"testing"

	"github.com/iceflight/iceflight/internal/benchdata"
)

// BenchmarkParseMetadataPlanTable parses the planning benchmark table's
// metadata file (1,000 snapshots, about 840 KB), as a cold table load does.
func BenchmarkParseMetadataPlanTable(b *testing.B) {
	text, _ := benchdata.PlanTable(b, "..")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseMetadata(text); err != nil {
			b.Fatal(err)
		}
	}
}
