package reader

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/iceberg/scantask"
)

// dvBlob builds a deletion-vector-v1 blob as puffin-spec.md lays it out.
func dvBlob(t *testing.T, positions ...uint64) []byte {
	t.Helper()
	bm := roaring64.BitmapOf(positions...)
	vector, err := bm.ToPortableBytes()
	if err != nil {
		t.Fatal(err)
	}
	body := append([]byte{0xD1, 0xD3, 0x39, 0x64}, vector...)
	blob := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	blob = append(blob, body...)
	return binary.BigEndian.AppendUint32(blob, crc32.ChecksumIEEE(body))
}

// puffinWith places a blob in a Puffin-like file after other bytes; only
// the blob's offset and size matter to the reader.
func puffinWith(blob []byte) ([]byte, int64) {
	head := []byte("PFA1 some other blob ")
	file := append(append(append([]byte(nil), head...), blob...), []byte("{footer}PFA1")...)
	return file, int64(len(head))
}

func dvDelete(path string, off int64, blob []byte, card int64) *scantask.DeleteFile {
	return &scantask.DeleteFile{Path: path, Kind: scantask.DeletionVector,
		ContentOffset: off, ContentSize: int64(len(blob)), RecordCount: card, ReferencedDataFile: recorded}
}

func TestDeletionVectors(t *testing.T) {
	t.Parallel()
	blob := dvBlob(t, 1, 2, 60, 199, 1<<33)
	puffin, off := puffinWith(blob)
	files := memIO{
		"seq.parquet": seqFile(t, 200, 50),
		"dv.puffin":   puffin,
		"del.parquet": posDeleteFile(t, []posEntry{{recorded, 0}, {recorded, 3}}, 10),
	}
	schema := schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"},
		{"id":2147483645,"name":"_pos","required":true,"type":"long"}]`)
	dv := dvDelete("dv.puffin", off, blob, 5)
	mem := checkedAlloc(t)
	r := New(files, WithAllocator(mem), WithBatchSize(32))

	t.Run("a deletion vector removes its positions", func(t *testing.T) {
		task := seqTask()
		task.Deletes = []*scantask.DeleteFile{dv}
		res := readAll(t, r, Scan{Schema: schema}, task)
		if res.err != nil {
			t.Fatal(res.err)
		}
		want := rangeWithout(0, 200, map[int64]bool{1: true, 2: true, 60: true, 199: true})
		if got := seqRows(t, res.rows); !equalInts(got, want) {
			t.Errorf("rows %v\nwant %v", got, want)
		}
	})
	t.Run("a deletion vector replaces the position deletes of its data file", func(t *testing.T) {
		task := seqTask()
		task.Deletes = []*scantask.DeleteFile{posDelete("del.parquet"), dv}
		res := readAll(t, r, Scan{Schema: schema}, task)
		if res.err != nil {
			t.Fatal(res.err)
		}
		if len(res.rows) != 196 || res.rows[0]["i"] != 0.0 {
			t.Errorf("%d rows starting at %v; want 196 starting at 0", len(res.rows), res.rows[0]["i"])
		}
	})

	corrupt := func(f func(b []byte)) []byte {
		b := append([]byte(nil), blob...)
		f(b)
		return b
	}
	bad := []struct {
		name string
		blob []byte
		card int64
	}{
		{"a blob whose CRC does not match is refused", corrupt(func(b []byte) { b[len(b)-1] ^= 1 }), 5},
		{"a blob whose vector was altered is refused", corrupt(func(b []byte) { b[12] ^= 0x10 }), 5},
		{"a blob with another magic is refused", corrupt(func(b []byte) { b[4] = 0 }), 5},
		{"a blob whose length prefix is wrong is refused", corrupt(func(b []byte) { b[3]++ }), 5},
		{"a blob whose cardinality is not the record count is refused", blob, 4},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			file, off := puffinWith(tc.blob)
			r := New(memIO{"seq.parquet": files["seq.parquet"], "dv.puffin": file}, WithAllocator(mem))
			task := seqTask()
			task.Deletes = []*scantask.DeleteFile{dvDelete("dv.puffin", off, tc.blob, tc.card)}
			err := r.Read(context.Background(), Scan{Schema: schema}, task, func(arrow.RecordBatch) error { return nil })
			if !errors.Is(err, ErrCorruptDeletionVector) || !strings.Contains(err.Error(), "dv.puffin") {
				t.Fatalf("err = %v, want ErrCorruptDeletionVector naming the file", err)
			}
		})
	}
	t.Run("a blob beyond the end of the file is refused", func(t *testing.T) {
		task := seqTask()
		d := dvDelete("dv.puffin", off+10, blob, 5)
		task.Deletes = []*scantask.DeleteFile{d}
		err := r.Read(context.Background(), Scan{Schema: schema}, task, func(arrow.RecordBatch) error { return nil })
		if !errors.Is(err, ErrCorruptDeletionVector) {
			t.Fatalf("err = %v, want ErrCorruptDeletionVector", err)
		}
	})
}

func TestParseDeletionVectorLargePositions(t *testing.T) {
	t.Parallel()
	// Spec: positions beyond 2^32 use further 32-bit keys.
	want := []uint64{0, 7, 1<<32 - 1, 1 << 32, 5<<32 + 9}
	bm, err := parseDeletionVector(dvBlob(t, want...))
	if err != nil {
		t.Fatal(err)
	}
	got := bm.ToArray()
	if len(got) != len(want) {
		t.Fatalf("positions %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("positions %v, want %v", got, want)
		}
	}
	if _, err := parseDeletionVector(dvBlob(t, 1<<63)); !errors.Is(err, ErrCorruptDeletionVector) {
		t.Errorf("a position with the top bit set: err = %v, want ErrCorruptDeletionVector", err)
	}
}
