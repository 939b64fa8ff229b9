package pqcodec

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// firstChunk returns the metadata of a file and of its first column chunk.
func firstChunk(t *testing.T, raw []byte) (*metadata.FileMetaData, *metadata.ColumnChunkMetaData) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	cc, err := md.RowGroup(0).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	return md, cc
}

// rangeLog is a ReaderAt that records the ranges read, and can fail.
type rangeLog struct {
	r      io.ReaderAt
	mu     sync.Mutex
	ranges [][2]int64
	fail   error
}

func (l *rangeLog) ReadAt(p []byte, off int64) (int, error) {
	l.mu.Lock()
	l.ranges = append(l.ranges, [2]int64{off, off + int64(len(p))})
	fail := l.fail
	l.mu.Unlock()
	if fail != nil {
		return 0, fail
	}
	return l.r.ReadAt(p, off)
}

// TestChunkBytesAreReadOnceInOrder reads a chunk of several windows whose
// pages straddle the windows' edges, through a ReaderAt: each read must
// start where the one before ended, so a prefetching file, which serves
// each byte once, is never asked for a byte again; and a failing storage
// read keeps its cause rather than being marked ErrCorrupt.
func TestChunkBytesAreReadOnceInOrder(t *testing.T) {
	t.Parallel()
	const rows = 400_000 // 3.2 MB of PLAIN int64: four windows
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	rng := rand.New(rand.NewPCG(4, 4))
	for range rows {
		b.Append(rng.Int64())
	}
	col := b.NewArray()
	b.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, rows)
	col.Release()
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithCompression(compress.Codecs.Uncompressed),
		parquet.WithDataPageSize(300<<10))
	raw := testutil.WriteParquet(t, rec, props)
	rec.Release()
	md, cc := firstChunk(t, raw)
	read := func(log *rangeLog) error {
		cr, err := NewColumnReader(mem, log, nil, md, cc, md.Schema.Column(0), arrow.PrimitiveTypes.Int64)
		if err != nil {
			t.Fatal(err)
		}
		defer cr.Release()
		for left := rows; left > 0; left -= 50_000 {
			a, err := cr.Read(50_000)
			if err != nil {
				return err
			}
			a.Release()
		}
		return nil
	}
	log := &rangeLog{r: bytes.NewReader(raw)}
	if err := read(log); err != nil {
		t.Fatal(err)
	}
	off, n := ChunkRange(md, cc)
	if len(log.ranges) < 3 {
		t.Fatalf("%d reads: the chunk did not take several windows", len(log.ranges))
	}
	at := off
	for i, r := range log.ranges {
		if r[0] != at {
			t.Fatalf("read %d starts at %d, where the reads before ended at %d: bytes read twice or skipped", i, r[0], at)
		}
		at = r[1]
	}
	if at != off+n {
		t.Errorf("reads end at %d, the chunk at %d", at, off+n)
	}
	unavailable := errors.New("storage unavailable")
	err := read(&rangeLog{r: bytes.NewReader(raw), fail: unavailable})
	if !errors.Is(err, unavailable) || errors.Is(err, ErrCorrupt) {
		t.Errorf("a failing read gave %v, want its cause and not ErrCorrupt", err)
	}
}
