package storage

import (
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/azure"
	"github.com/iceflight/iceflight/fileio/gcs"
	"github.com/iceflight/iceflight/fileio/hdfs"
	"github.com/iceflight/iceflight/fileio/s3"
)

// backends are the storage back ends a Registry serves by default, one
// line each; the local file system needs none, as fileio.Resolver serves
// it itself. A storage package joins by adding its Backend here, such as
// s3.Backend for s3://, s3a:// and s3n://.
var backends = []fileio.Backend{
	s3.Backend,
	gcs.Backend,
	azure.Backend,
	hdfs.Backend,
}

// Backends returns the storage back ends compiled in, in the order listed.
func Backends() []fileio.Backend { return append([]fileio.Backend(nil), backends...) }
