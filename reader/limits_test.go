package reader

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// sparseFile makes a 64 GiB sparse file in a test folder ending in tail.
func sparseFile(t *testing.T, tail []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "huge.parquet")
	fileiotest.SparseFile(t, p, 64<<30, tail)
	return p
}

// parquetTail is the end of a Parquet file whose footer claims n bytes.
func parquetTail(n uint32) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, n), "PAR1"...)
}

func TestHugeDataFilesAreRefused(t *testing.T) {
	t.Parallel()
	schema := schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)
	small := seqFile(t, 10, 10)
	lying := append([]byte(nil), small...)
	binary.LittleEndian.PutUint32(lying[len(lying)-8:], uint32(len(lying)))
	cases := []struct {
		name string
		path func(t *testing.T) string
		want error
	}{
		{"a 64 GiB file whose footer claims 3 GiB is refused before allocating it",
			func(t *testing.T) string { return sparseFile(t, parquetTail(3<<30)) }, fileio.ErrTooLarge},
		{"a 64 GiB file of zeros is not a Parquet file",
			func(t *testing.T) string { return sparseFile(t, nil) }, ErrInvalidTask},
		{"a footer length longer than the file is corrupt",
			func(t *testing.T) string {
				p := filepath.Join(t.TempDir(), "lying.parquet")
				if err := os.WriteFile(p, lying, 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}, ErrInvalidTask},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.path(t)
			r := New(fileio.NewResolver(), WithAllocator(checkedAlloc(t)))
			err := r.Read(context.Background(), Scan{Schema: schema}, parquetTask(p), func(arrow.RecordBatch) error { return nil })
			if !errors.Is(err, tc.want) {
				t.Fatalf("Read = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestPiecesOverWithMaxReadBytesAreRefused(t *testing.T) {
	t.Parallel()
	schema := schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)
	// Every other row of 2,000: a vector of about 2 KiB, larger than the
	// data file's footer.
	var positions []uint64
	for p := uint64(0); p < 2000; p += 2 {
		positions = append(positions, p)
	}
	blob := dvBlob(t, positions...)
	puffin, off := puffinWith(blob)
	files := memIO{
		"seq.parquet": seqFile(t, 2000, 1000),
		"seq.avro":    seqAvroFile(t, 200, 200),
		"dv.puffin":   puffin,
	}
	withDV := seqTask()
	withDV.Deletes = []*scantask.DeleteFile{dvDelete("dv.puffin", off, blob, int64(len(positions)))}
	cases := []struct {
		name string
		task *scantask.Task
		max  int64
		file string
	}{
		{"a Parquet footer over the bound", seqTask(), 64, "seq.parquet"},
		{"an Avro block over the bound", avroTask("seq.avro"), 64, "seq.avro"},
		{"a deletion vector over the bound", withDV, int64(len(blob)) - 1, "dv.puffin"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := New(files, WithAllocator(checkedAlloc(t)), WithMaxReadBytes(tc.max))
			err := r.Read(context.Background(), Scan{Schema: schema}, tc.task, func(arrow.RecordBatch) error { return nil })
			if !errors.Is(err, fileio.ErrTooLarge) || !strings.Contains(err.Error(), tc.file) {
				t.Fatalf("Read = %v, want fileio.ErrTooLarge naming %s", err, tc.file)
			}
			r = New(files, WithAllocator(checkedAlloc(t)))
			if err := r.Read(context.Background(), Scan{Schema: schema}, tc.task, func(arrow.RecordBatch) error { return nil }); err != nil {
				t.Fatalf("Read with the default bound = %v", err)
			}
		})
	}
}

func TestReadGivesUpOnStuckStorage(t *testing.T) {
	t.Parallel()
	schema := schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)
	blob := dvBlob(t, 1, 2, 3)
	puffin, off := puffinWith(blob)
	files := memIO{"seq.parquet": seqFile(t, 200, 50), "dv.puffin": puffin}
	withDV := seqTask()
	withDV.Deletes = []*scantask.DeleteFile{dvDelete("dv.puffin", off, blob, 3)}
	cases := []struct {
		name  string
		task  *scantask.Task
		stuck string
		opts  []fileiotest.BlockingOption
	}{
		{"a data file that blocks on open", seqTask(), "seq.parquet", nil},
		{"a data file that blocks on read", seqTask(), "seq.parquet", []fileiotest.BlockingOption{fileiotest.OnRead()}},
		{"a deletion vector that blocks on read", withDV, "dv.puffin", []fileiotest.BlockingOption{fileiotest.OnRead()}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stuck := fileiotest.NewBlocking(files, func(loc string) bool { return loc == tc.stuck }, tc.opts...)
			t.Cleanup(stuck.Release)
			r := New(fileio.Cancelable(stuck), WithAllocator(checkedAlloc(t)))
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				errc <- r.Read(ctx, Scan{Schema: schema}, tc.task, func(arrow.RecordBatch) error { return nil })
			}()
			<-stuck.Entered()
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("Read on stuck storage = %v, want context.Canceled", err)
			}
		})
	}
}

// TestBatchOverWithMaxReadBytesIsRefused reads a file of a few KiB whose
// DELTA_BYTE_ARRAY page states 300 copies of a 256 KiB string: a batch of
// them is held whole, so it falls under WithMaxReadBytes like a piece of
// the file, and over it is fileio.ErrTooLarge naming the file.
func TestBatchOverWithMaxReadBytesIsRefused(t *testing.T) {
	t.Parallel()
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Metadata: fid(1)}}, nil)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	long := strings.Repeat("x", 256<<10)
	for range 300 {
		b.Append(long)
	}
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, 300)
	col.Release()
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithEncoding(parquet.Encodings.DeltaByteArray))
	raw := testutil.WriteParquet(t, rec, props)
	if len(raw) > 1<<20 {
		t.Fatalf("the file takes %d bytes, not a few KiB", len(raw))
	}
	files := memIO{"bomb.parquet": raw}
	schema := schemaOf(t, `[{"id":1,"name":"s","required":true,"type":"string"}]`)
	r := New(files, WithAllocator(checkedAlloc(t)), WithMaxReadBytes(8<<20), WithBatchSize(100))
	err := r.Read(context.Background(), Scan{Schema: schema}, parquetTask("bomb.parquet"), func(arrow.RecordBatch) error { return nil })
	if !errors.Is(err, fileio.ErrTooLarge) || !strings.Contains(err.Error(), "bomb.parquet") {
		t.Fatalf("Read = %v, want fileio.ErrTooLarge naming bomb.parquet", err)
	}
	r = New(files, WithAllocator(checkedAlloc(t)), WithMaxReadBytes(8<<20), WithBatchSize(20))
	if err := r.Read(context.Background(), Scan{Schema: schema}, parquetTask("bomb.parquet"), func(arrow.RecordBatch) error { return nil }); err != nil {
		t.Fatalf("Read of batches under the bound = %v", err)
	}
}
