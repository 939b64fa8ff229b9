// Package puffin writes Puffin files of deletion vectors (the
// deletion-vector-v1 blob of the Puffin spec) for v3 tables.
package puffin

import (
	"context"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Vector is the deleted row positions of one data file.
type Vector struct {
	// DataFile is the referenced data file's location.
	DataFile string
	// Positions are the deleted positions, sorted and distinct.
	Positions []int64
}

// WriteDeletionVectors writes one Puffin file at location holding a
// deletion-vector-v1 blob per vector (with the referenced-data-file and
// cardinality properties and the footer Iceberg Java writes), and returns
// each blob's delete file entry: content position deletes, format PUFFIN,
// ReferencedDataFile, ContentOffset, ContentSizeInBytes, RecordCount the
// cardinality, FileSize the Puffin file's size. The caller sets each
// entry's Partition (that of its data file) and SpecID.
func WriteDeletionVectors(ctx context.Context, fio fileio.FileIO, location string, vectors []Vector) ([]iceberg.DataFile, error) {
	return writeDeletionVectors(ctx, fio, location, vectors)
}
