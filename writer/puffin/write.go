package puffin

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Spec (Puffin): a file is
//
//	Magic Blob₁ … Blobₙ Footer
//	Footer = Magic FooterPayload FooterPayloadSize Flags Magic
//
// with Magic "PFA1", FooterPayload the UTF-8 JSON file metadata (here
// uncompressed), FooterPayloadSize its length as a 4-byte little-endian
// integer and Flags four bytes of zero (bit 0 would mark a compressed
// payload).
//
// Spec (deletion-vector-v1): a blob is
//
//	length   4 bytes, big-endian: the byte length of magic + vector
//	magic    D1 D3 39 64
//	vector   a 64-bit Roaring bitmap in the portable serialization
//	crc      4 bytes, big-endian: CRC-32 of magic + vector
//
// and its metadata names the _pos field (2147483645), has snapshot-id and
// sequence-number -1 (both are inherited from the manifest), and the
// properties referenced-data-file and cardinality. Blobs are not
// compressed.

var (
	fileMagic = []byte("PFA1")
	dvMagic   = []byte{0xD1, 0xD3, 0x39, 0x64}
)

const (
	blobType = "deletion-vector-v1"
	// posFieldID is the reserved field id of _pos.
	posFieldID = 2147483645
	createdBy  = "iceflight"
)

// blobMetadata is one blob's entry of the footer, in Iceberg Java's field
// order.
type blobMetadata struct {
	Type           string         `json:"type"`
	Fields         []int          `json:"fields"`
	SnapshotID     int64          `json:"snapshot-id"`
	SequenceNumber int64          `json:"sequence-number"`
	Offset         int64          `json:"offset"`
	Length         int64          `json:"length"`
	Properties     blobProperties `json:"properties"`
}

type blobProperties struct {
	ReferencedDataFile string `json:"referenced-data-file"`
	Cardinality        string `json:"cardinality"`
}

type fileMetadata struct {
	Blobs      []blobMetadata    `json:"blobs"`
	Properties map[string]string `json:"properties"`
}

// deletionVectorBlob frames the positions as a deletion-vector-v1 blob.
func deletionVectorBlob(positions []int64) ([]byte, error) {
	bm := roaring64.New()
	for i, p := range positions {
		if p < 0 {
			return nil, fmt.Errorf("position %d is negative", p)
		}
		if i > 0 && p <= positions[i-1] {
			return nil, fmt.Errorf("positions are not sorted and distinct at %d", p)
		}
	}
	// Sorted input adds fastest as a many-at-once append.
	u := make([]uint64, len(positions))
	for i, p := range positions {
		u[i] = uint64(p)
	}
	bm.AddMany(u)
	// Iceberg Java run-optimizes before serializing; so do we, so that a
	// vector's bytes are the same whoever wrote it.
	bm.RunOptimize()
	var body bytes.Buffer
	body.Write(dvMagic)
	if _, err := bm.WritePortableTo(&body); err != nil {
		return nil, err
	}
	if body.Len() > 1<<31-1 {
		return nil, fmt.Errorf("vector of %d bytes is too large", body.Len())
	}
	blob := make([]byte, 0, body.Len()+8)
	blob = binary.BigEndian.AppendUint32(blob, uint32(body.Len()))
	blob = append(blob, body.Bytes()...)
	return binary.BigEndian.AppendUint32(blob, crc32.ChecksumIEEE(body.Bytes())), nil
}

func writeDeletionVectors(ctx context.Context, fio fileio.FileIO, location string, vectors []Vector) ([]iceberg.DataFile, error) {
	if len(vectors) == 0 {
		return nil, fmt.Errorf("write deletion vectors %s: no vectors", location)
	}
	var file bytes.Buffer
	file.Write(fileMagic)
	meta := fileMetadata{Properties: map[string]string{"created-by": createdBy}}
	out := make([]iceberg.DataFile, 0, len(vectors))
	seen := make(map[string]bool, len(vectors))
	for _, v := range vectors {
		if v.DataFile == "" {
			return nil, fmt.Errorf("write deletion vectors %s: a vector names no data file", location)
		}
		// Spec: at most one deletion vector per data file in a snapshot.
		if seen[v.DataFile] {
			return nil, fmt.Errorf("write deletion vectors %s: two vectors for %s", location, v.DataFile)
		}
		seen[v.DataFile] = true
		if len(v.Positions) == 0 {
			return nil, fmt.Errorf("write deletion vectors %s: the vector of %s is empty", location, v.DataFile)
		}
		blob, err := deletionVectorBlob(v.Positions)
		if err != nil {
			return nil, fmt.Errorf("write deletion vectors %s: vector of %s: %w", location, v.DataFile, err)
		}
		offset, length := int64(file.Len()), int64(len(blob))
		file.Write(blob)
		card := int64(len(v.Positions))
		meta.Blobs = append(meta.Blobs, blobMetadata{
			Type: blobType, Fields: []int{posFieldID}, SnapshotID: -1, SequenceNumber: -1,
			Offset: offset, Length: length,
			Properties: blobProperties{ReferencedDataFile: v.DataFile, Cardinality: strconv.FormatInt(card, 10)},
		})
		out = append(out, iceberg.DataFile{
			Content: iceberg.FileContentPositionDeletes, Path: location, Format: "PUFFIN",
			RecordCount: card, ReferencedDataFile: v.DataFile,
			ContentOffset: &offset, ContentSizeInBytes: &length,
		})
	}
	payload, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("write deletion vectors %s: footer: %w", location, err)
	}
	file.Write(fileMagic)
	file.Write(payload)
	file.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(payload))))
	file.Write([]byte{0, 0, 0, 0}) // flags: the payload is not compressed
	file.Write(fileMagic)

	size := int64(file.Len())
	if err := put(ctx, fio, location, file.Bytes()); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].FileSize = size
	}
	return out, nil
}

// put writes the file at location in one piece.
func put(ctx context.Context, fio fileio.FileIO, location string, data []byte) error {
	w, err := fileio.Create(ctx, fio, location)
	if err != nil {
		return fmt.Errorf("write deletion vectors %s: %w", location, err)
	}
	if _, err := w.Write(data); err != nil {
		// Close discards what a failed write left; its error adds nothing.
		_ = w.Close()
		return fmt.Errorf("write deletion vectors %s: %w", location, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write deletion vectors %s: %w", location, err)
	}
	return nil
}
