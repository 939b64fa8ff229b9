package iceberg

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/internal/benchdata"
	"github.com/iceflight/iceflight/internal/jsontext"
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

// BenchmarkSnapshotsDecode decodes a snapshots array of 1,000 appends laid
// out as Iceberg Java writes them (about 800 KB, fifteen summary entries
// each) with the scanner's decoder and with encoding/json, side by side:
// the figure that keeps internal/jsontext (docs/design.md).
func BenchmarkSnapshotsDecode(b *testing.B) {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range 1000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"sequence-number":%d,"snapshot-id":%d,"parent-snapshot-id":%d,"timestamp-ms":%d,"summary":{"operation":"append","spark.app.id":"local-1733000000000","added-data-files":"1","added-records":"1000","added-files-size":"%d","changed-partition-count":"1","total-records":"%d","total-files-size":"%d","total-data-files":"%d","total-delete-files":"0","total-position-deletes":"0","total-equality-deletes":"0","engine-version":"3.5.3","app-id":"local-1733000000000","engine-name":"spark"},"manifest-list":"s3://warehouse/bench/events/metadata/snap-%d-1-6e2f3a0c-5b1d-4c8e-9f7a-%012d.avro","schema-id":0}`,
			i+1, 7000000000000000000+i, 7000000000000000000+i-1, 1733000000000+int64(i)*60000, 9000+i, (i+1)*1000, (i+1)*9000, i+1, 7000000000000000000+i, i)
	}
	sb.WriteByte(']')
	text := sb.String()
	b.Run("jsontext", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			d := jsontext.Scanner{Text: text}
			if _, err := readSnapshots(&d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			var snaps []Snapshot
			if err := json.Unmarshal([]byte(text), &snaps); err != nil {
				b.Fatal(err)
			}
		}
	})
}
