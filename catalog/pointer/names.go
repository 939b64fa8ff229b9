package pointer

import (
	"crypto/rand"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// nextVersion returns the version after that of the metadata file loc
// (NNNNN-<uuid>.metadata.json, as Java's and PyIceberg's catalogs name
// them; vN.metadata.json too), or 0 when its name carries none, as Java
// parses it.
func nextVersion(loc string) int64 {
	name := path.Base(loc)
	digits := strings.TrimPrefix(name, "v")
	end := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
	if end <= 0 {
		return 0
	}
	n, err := strconv.ParseInt(digits[:end], 10, 64)
	if err != nil {
		return 0
	}
	return n + 1
}

// newMetadataLocation names version n of md's metadata file:
// <location>/metadata/NNNNN-<uuid>.metadata.json, gzip marked ".gz" before
// ".metadata.json" as Java writes it.
func newMetadataLocation(md *iceberg.TableMetadata, n int64) string {
	suffix := ".metadata.json"
	if catalog.MetadataGzip(md) {
		suffix = ".gz.metadata.json"
	}
	return strings.TrimRight(md.Location, "/") + "/metadata/" + fmt.Sprintf("%05d-%s", n, newUUID()) + suffix
}

// newUUID returns a random (version 4) UUID, as Java names metadata files.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
