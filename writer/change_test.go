package writer

import (
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

func TestOnlyManifestsOfARemovedFilesKindAreRead(t *testing.T) {
	t.Parallel()
	off := int64(4)
	dv := iceberg.DataFile{Content: iceberg.FileContentPositionDeletes, Format: "PUFFIN", Path: "d.puffin", ContentOffset: &off, SpecID: 1}
	data := iceberg.ManifestFile{Content: iceberg.ManifestContentData, SpecID: 1}
	deletes1 := iceberg.ManifestFile{Content: iceberg.ManifestContentDeletes, SpecID: 1}
	deletes0 := iceberg.ManifestFile{Content: iceberg.ManifestContentDeletes, SpecID: 0}

	ch := &change{}
	if ch.mayHoldRemoved(data) {
		t.Fatal("a change that removes nothing reads manifests")
	}
	ch.remove(dv)
	ch.remove(dv) // twice is once
	if ch.mayHoldRemoved(data) || ch.mayHoldRemoved(deletes0) || !ch.mayHoldRemoved(deletes1) {
		t.Fatal("a removed deletion vector of spec 1 must read only delete manifests of spec 1")
	}
	if _, ok := ch.removed["d.puffin@4"]; !ok || len(ch.removed) != 1 {
		t.Fatalf("removed %v, want the DV by location@offset", ch.removed)
	}
	// A key added without remove (maintenance code may) reads everything.
	ch.removed["other.parquet"] = struct{}{}
	if !ch.mayHoldRemoved(data) || !ch.mayHoldRemoved(deletes0) {
		t.Fatal("a removal of unknown kind must read every manifest")
	}
}
