package writer

import (
	"crypto/rand"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// mainBranch is the branch a commit moves when none is named.
const mainBranch = "main"

// Table properties of where new files go (Iceberg Java TableProperties).
const (
	propMetadataPath = "write.metadata.path"
	propDataPath     = "write.data.path"
)

// tableLocation is where new files of the table go: where the table
// really is (a relocated table's files are written where it is now).
func tableLocation(t *catalog.Table) string {
	loc := t.Location
	if loc == "" {
		loc = t.Metadata.Location
	}
	return strings.TrimRight(loc, "/")
}

// metadataDir is write.metadata.path, or <location>/metadata.
func metadataDir(t *catalog.Table) string {
	if p := t.Metadata.Properties[propMetadataPath]; p != "" {
		return strings.TrimRight(p, "/")
	}
	return tableLocation(t) + "/metadata"
}

// dataDir is write.data.path, or <location>/data.
func dataDir(t *catalog.Table) string {
	if p := t.Metadata.Properties[propDataPath]; p != "" {
		return strings.TrimRight(p, "/")
	}
	return tableLocation(t) + "/data"
}

// newUUID returns a random (version 4) UUID in its text form.
func newUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return iceberg.FormatUUID(u)
}
