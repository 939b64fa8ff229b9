package reader

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/iceflight/iceflight/fileio"
)

// Spec (Puffin, deletion-vector-v1): a deletion vector is one blob of a
// Puffin file, at the content_offset and content_size its manifest entry
// records. The blob holds
//
//	length   4 bytes, big-endian: the byte length of magic + vector
//	magic    D1 D3 39 64
//	vector   a 64-bit Roaring bitmap in the portable format
//	crc      4 bytes, big-endian: CRC-32 of magic + vector
//
// and a set bit at position p deletes the row at position p of the data
// file the blob references. Only the blob is read, not the Puffin footer.

var dvMagic = []byte{0xD1, 0xD3, 0x39, 0x64}

const (
	// dvOverhead is the blob's bytes around the vector: length, magic, crc.
	dvOverhead = 12
	// maxDVBytes bounds a blob read into memory; Iceberg Java refuses
	// content sizes of 2 GiB and more.
	maxDVBytes = 1<<31 - 1
)

// loadDeletionVector reads and decodes the blob of deletion vector d.
func (r *Reader) loadDeletionVector(ctx context.Context, d *DeleteFile) (*roaring64.Bitmap, error) {
	off, size := d.ContentOffset, d.ContentSize
	if off < 0 || size < dvOverhead+8 || size > maxDVBytes {
		return nil, fmt.Errorf("%w: deletion vector in %s at offset %d has size %d",
			ErrCorruptDeletionVector, d.Path, off, size)
	}
	if err := fileio.CheckSize(fmt.Sprintf("deletion vector in %s at offset %d", d.Path, off), size, r.maxRead); err != nil {
		return nil, err
	}
	// Like every other file, a Puffin file may record a wrong size: the
	// read of the blob is what finds out, and is done again at the
	// store's length (fileio.OpenRecorded).
	var readErr error // the blob's read failed, not the opening
	f, blob, err := fileio.OpenRecorded(ctx, r.fio, d.Path, knownSize(d.FileSize), func(f fileio.File) (b []byte, err error) {
		defer func() { readErr = err }()
		if off+size > f.Size() {
			return nil, fmt.Errorf("%w: deletion vector at %d+%d lies beyond the end of %s (%d bytes)",
				ErrCorruptDeletionVector, off, size, d.Path, f.Size())
		}
		blob := make([]byte, size)
		if _, err := f.ReadAt(blob, off); err != nil && !(errors.Is(err, io.EOF)) {
			return nil, fmt.Errorf("read deletion vector from %s: %w", d.Path, err)
		}
		return blob, nil
	})
	if err != nil {
		if err != readErr {
			err = fmt.Errorf("open deletion vector file %s: %w", d.Path, err)
		}
		return nil, err
	}
	defer f.Close()
	bm, err := parseDeletionVector(blob)
	if err != nil {
		return nil, fmt.Errorf("deletion vector in %s at offset %d: %w", d.Path, off, err)
	}
	// Spec: a DV's record_count is the number of deleted rows.
	if n := d.RecordCount; n > 0 && bm.GetCardinality() != uint64(n) {
		return nil, fmt.Errorf("%w: deletion vector in %s at offset %d holds %d positions, its record count is %d",
			ErrCorruptDeletionVector, d.Path, off, bm.GetCardinality(), n)
	}
	return bm, nil
}

// parseDeletionVector checks a deletion-vector-v1 blob's framing and
// checksum and deserializes its bitmap.
func parseDeletionVector(blob []byte) (*roaring64.Bitmap, error) {
	if len(blob) < dvOverhead+8 {
		return nil, fmt.Errorf("%w: blob of %d bytes", ErrCorruptDeletionVector, len(blob))
	}
	if n := binary.BigEndian.Uint32(blob); int64(n) != int64(len(blob)-8) {
		return nil, fmt.Errorf("%w: length prefix %d, blob holds %d bytes of magic and vector", ErrCorruptDeletionVector, n, len(blob)-8)
	}
	body := blob[4 : len(blob)-4]
	if !bytes.Equal(body[:4], dvMagic) {
		return nil, fmt.Errorf("%w: magic %x, want %x", ErrCorruptDeletionVector, body[:4], dvMagic)
	}
	if got, want := crc32.ChecksumIEEE(body), binary.BigEndian.Uint32(blob[len(blob)-4:]); got != want {
		return nil, fmt.Errorf("%w: CRC-32 %08x, blob says %08x", ErrCorruptDeletionVector, got, want)
	}
	vector := body[4:]
	bm := roaring64.New()
	n, err := bm.ReadPortableFrom(bytes.NewReader(vector))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptDeletionVector, err)
	}
	if n != int64(len(vector)) {
		return nil, fmt.Errorf("%w: bitmap of %d bytes followed by %d more", ErrCorruptDeletionVector, n, int64(len(vector))-n)
	}
	if err := bm.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptDeletionVector, err)
	}
	// Spec: positions are positive 64-bit values; the top bit must be 0.
	if !bm.IsEmpty() && bm.Maximum() >= 1<<63 {
		return nil, fmt.Errorf("%w: position %d has the top bit set", ErrCorruptDeletionVector, bm.Maximum())
	}
	return bm, nil
}
