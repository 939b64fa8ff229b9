package puffin_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/writer/puffin"
)

// javaTable is a v3 table whose deletion vectors Iceberg Java 1.10 wrote.
var javaTable = filepath.Join("..", "..", "..", "shared", "conformance", "tables", "apache-impala__iceberg_v3_deletion_vectors")

type footerBlob struct {
	Type           string            `json:"type"`
	Fields         []int             `json:"fields"`
	SnapshotID     int64             `json:"snapshot-id"`
	SequenceNumber int64             `json:"sequence-number"`
	Offset         int64             `json:"offset"`
	Length         int64             `json:"length"`
	Properties     map[string]string `json:"properties"`
}

type footer struct {
	Blobs      []footerBlob      `json:"blobs"`
	Properties map[string]string `json:"properties"`
}

// parseFooter checks a Puffin file's framing (Spec: Puffin, File
// Structure) and decodes its footer: magic at both ends, and before the
// trailing magic the flags and the little-endian payload size.
func parseFooter(t *testing.T, file []byte) footer {
	t.Helper()
	magic := []byte("PFA1")
	if !bytes.HasPrefix(file, magic) || !bytes.HasSuffix(file, magic) {
		t.Fatalf("file does not start and end with PFA1")
	}
	if flags := file[len(file)-8 : len(file)-4]; !bytes.Equal(flags, []byte{0, 0, 0, 0}) {
		t.Errorf("flags %x, want 0", flags)
	}
	n := int(binary.LittleEndian.Uint32(file[len(file)-12:]))
	start := len(file) - 12 - n
	if !bytes.Equal(file[start-4:start], magic) {
		t.Fatalf("no magic before the footer payload")
	}
	var f footer
	if err := json.Unmarshal(file[start:len(file)-12], &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// positions decodes a deletion-vector-v1 blob by the spec's layout.
func positions(t *testing.T, blob []byte) []int64 {
	t.Helper()
	if int(binary.BigEndian.Uint32(blob)) != len(blob)-8 {
		t.Fatalf("length prefix %d for a blob of %d bytes", binary.BigEndian.Uint32(blob), len(blob))
	}
	body := blob[4 : len(blob)-4]
	if !bytes.Equal(body[:4], []byte{0xD1, 0xD3, 0x39, 0x64}) {
		t.Fatalf("magic %x", body[:4])
	}
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(blob[len(blob)-4:]) {
		t.Fatalf("CRC mismatch")
	}
	bm := roaring64.New()
	if _, err := bm.ReadPortableFrom(bytes.NewReader(body[4:])); err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, p := range bm.ToArray() {
		out = append(out, int64(p))
	}
	return out
}

func write(t *testing.T, vectors []puffin.Vector) (*fileio.Mem, []iceberg.DataFile, []byte) {
	t.Helper()
	fio := fileio.NewMem()
	files, err := puffin.WriteDeletionVectors(context.Background(), fio, "mem://t/data/dv.puffin", vectors)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fio.Open(context.Background(), "mem://t/data/dv.puffin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, f.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return fio, files, b
}

// TestMatchesJava writes the deletion vectors of a Java-written Puffin
// file again and expects the same blob bytes at the same offsets, and the
// same footer blob metadata.
func TestMatchesJava(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(javaTable, "data")
	names, err := filepath.Glob(filepath.Join(dir, "*.puffin"))
	if err != nil || len(names) == 0 {
		t.Skipf("no Java-written Puffin file in %s", dir)
	}
	java, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	jf := parseFooter(t, java)
	var vectors []puffin.Vector
	for _, b := range jf.Blobs {
		vectors = append(vectors, puffin.Vector{DataFile: b.Properties["referenced-data-file"], Positions: positions(t, java[b.Offset:b.Offset+b.Length])})
	}
	_, files, ours := write(t, vectors)
	of := parseFooter(t, ours)
	if !reflect.DeepEqual(of.Blobs, jf.Blobs) {
		t.Errorf("footer blobs:\n got %+v\nwant %+v", of.Blobs, jf.Blobs)
	}
	if of.Properties["created-by"] == "" {
		t.Errorf("no created-by property")
	}
	for i, b := range jf.Blobs {
		if got, want := ours[b.Offset:b.Offset+b.Length], java[b.Offset:b.Offset+b.Length]; !bytes.Equal(got, want) {
			t.Errorf("blob %d:\n got %x\nwant %x", i, got, want)
		}
		f := files[i]
		if *f.ContentOffset != b.Offset || *f.ContentSizeInBytes != b.Length || f.RecordCount != int64(len(vectors[i].Positions)) ||
			f.ReferencedDataFile != vectors[i].DataFile || f.FileSize != int64(len(ours)) || f.Format != "PUFFIN" ||
			f.Content != iceberg.FileContentPositionDeletes || f.Path != "mem://t/data/dv.puffin" {
			t.Errorf("delete file %d = %+v", i, f)
		}
	}
}

// TestBlobLayout checks a blob byte for byte against the spec's layout,
// with positions in two 32-bit buckets (the 64-bit portable format's
// bucket count and keys are little-endian).
func TestBlobLayout(t *testing.T) {
	t.Parallel()
	_, files, file := write(t, []puffin.Vector{{DataFile: "s3://b/d.parquet", Positions: []int64{0, 7, 1<<32 + 3}}})
	off, n := *files[0].ContentOffset, *files[0].ContentSizeInBytes
	if off != 4 {
		t.Errorf("first blob at %d, want 4 (after the magic)", off)
	}
	blob := file[off : off+n]
	bm := roaring64.BitmapOf(0, 7, 1<<32+3)
	bm.RunOptimize()
	vec, err := bm.ToPortableBytes()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vec[:12], []byte{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}) {
		t.Fatalf("portable header %x", vec[:12])
	}
	body := append([]byte{0xD1, 0xD3, 0x39, 0x64}, vec...)
	want := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	want = append(want, body...)
	want = binary.BigEndian.AppendUint32(want, crc32.ChecksumIEEE(body))
	if !bytes.Equal(blob, want) {
		t.Errorf("blob\n got %x\nwant %x", blob, want)
	}
	if got := positions(t, blob); !reflect.DeepEqual(got, []int64{0, 7, 1<<32 + 3}) {
		t.Errorf("positions %v", got)
	}
}

// TestReaderAppliesVectors reads a Java-written data file with the
// reader, once with Java's deletion vector and once with ours for the same
// positions, and expects the same rows, fewer by the cardinality.
func TestReaderAppliesVectors(t *testing.T) {
	t.Parallel()
	names, _ := filepath.Glob(filepath.Join(javaTable, "data", "*.puffin"))
	if len(names) == 0 {
		t.Skip("no Java-written Puffin file")
	}
	java, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	jb := parseFooter(t, java).Blobs[0]
	dataLoc := jb.Properties["referenced-data-file"]
	data, err := os.ReadFile(filepath.Join(javaTable, "data", dataLoc[strings.LastIndex(dataLoc, "/")+1:]))
	if err != nil {
		t.Fatal(err)
	}
	fio, files, _ := write(t, []puffin.Vector{{DataFile: dataLoc, Positions: positions(t, java[jb.Offset:jb.Offset+jb.Length])}})
	fio.Put(dataLoc, data)
	fio.Put("java.puffin", java)

	var s iceberg.Schema
	if err := json.Unmarshal([]byte(`{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"i","required":false,"type":"int"},
		{"id":2147483645,"name":"_pos","required":true,"type":"long"}]}`), &s); err != nil {
		t.Fatal(err)
	}
	read := func(d *scantask.DeleteFile) []int64 {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		task := &scantask.Task{Path: dataLoc, FilePath: dataLoc, Format: scantask.Parquet,
			FileSize: int64(len(data)), Deletes: []*scantask.DeleteFile{d}}
		var pos []int64
		err := reader.New(fio, reader.WithAllocator(mem)).Read(context.Background(), reader.Scan{Schema: &s}, task, func(rec arrow.RecordBatch) error {
			col := rec.Column(1).(interface{ Value(int) int64 })
			for i := 0; i < int(rec.NumRows()); i++ {
				pos = append(pos, col.Value(i))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}
	dv := func(path string, off, size, card, fileSize int64) *scantask.DeleteFile {
		return &scantask.DeleteFile{Path: path, Kind: scantask.DeletionVector, ContentOffset: off,
			ContentSize: size, RecordCount: card, ReferencedDataFile: dataLoc, FileSize: fileSize}
	}
	card, _ := json.Number(jb.Properties["cardinality"]).Int64()
	withJava := read(dv("java.puffin", jb.Offset, jb.Length, card, int64(len(java))))
	f := files[0]
	withOurs := read(dv(f.Path, *f.ContentOffset, *f.ContentSizeInBytes, f.RecordCount, f.FileSize))
	if !reflect.DeepEqual(withOurs, withJava) {
		t.Errorf("rows with our vector %v, with Java's %v", withOurs, withJava)
	}
	for _, p := range positions(t, java[jb.Offset:jb.Offset+jb.Length]) {
		for _, got := range withOurs {
			if got == p {
				t.Errorf("deleted position %d was read", p)
			}
		}
	}
}

// TestRejects checks the vectors the spec does not allow.
func TestRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		vectors []puffin.Vector
	}{
		{"no vectors", nil},
		{"a vector without positions", []puffin.Vector{{DataFile: "a"}}},
		{"positions out of order", []puffin.Vector{{DataFile: "a", Positions: []int64{3, 2}}}},
		{"a repeated position", []puffin.Vector{{DataFile: "a", Positions: []int64{2, 2}}}},
		{"a negative position", []puffin.Vector{{DataFile: "a", Positions: []int64{-1}}}},
		{"two vectors for one data file", []puffin.Vector{{DataFile: "a", Positions: []int64{1}}, {DataFile: "a", Positions: []int64{2}}}},
		{"no data file", []puffin.Vector{{Positions: []int64{1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fio := fileio.NewMem()
			if _, err := puffin.WriteDeletionVectors(context.Background(), fio, "mem://x.puffin", tc.vectors); err == nil || !strings.Contains(err.Error(), "mem://x.puffin") {
				t.Errorf("err = %v, want an error naming the file", err)
			}
			if _, err := fio.Open(context.Background(), "mem://x.puffin"); err == nil {
				t.Errorf("a file was written")
			}
		})
	}
}
