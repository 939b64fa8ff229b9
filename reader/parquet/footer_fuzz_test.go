package parquet

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/fuzzseed"
)

// footerSeeds are the footers of the sample warehouse's Parquet files.
func footerSeeds(f *testing.F) [][]byte {
	f.Helper()
	var files []string
	for _, depth := range []string{"", "*", filepath.Join("*", "*")} {
		more, err := filepath.Glob(filepath.Join("..", "..", "testdata", "warehouse", "samples", "*", "data", depth, "*.parquet"))
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, more...)
	}
	var seeds [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
		seeds = append(seeds, data[len(data)-8-n:len(data)-8])
	}
	return seeds
}

// maxFooterBytes is the reader's default bound on a piece of a file held
// whole (reader.DefaultMaxReadBytes), which bounds the footer.
const maxFooterBytes = 512 << 20

// FuzzParquetFooter opens a Parquet file whose footer is arbitrary bytes, as
// Open does (with repairFooter's second chance), and maps its schema
// to Arrow as the Parquet source does. It must not panic: a footer is read
// from a file any writer made, and every error must wrap ErrInvalidFile,
// ErrCorruptFile or ErrUnsupported, or come from the Arrow schema mapping
// that follows.
func FuzzParquetFooter(f *testing.F) {
	fuzzseed.AddSeeds(f, footerSeeds(f)...)
	f.Fuzz(func(t *testing.T, footer []byte) {
		data := append([]byte("PAR1"), footer...)
		data = binary.LittleEndian.AppendUint32(data, uint32(len(footer)))
		data = append(data, "PAR1"...)
		mfs := fileio.NewMem()
		mfs.Put("mem://f.parquet", data)
		file, err := mfs.Open(context.Background(), "mem://f.parquet")
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		pf, whole, err := Open(file, mem, mem, "f.parquet", maxFooterBytes)
		if whole != nil {
			defer whole.Release()
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidFile) && !errors.Is(err, ErrCorruptFile) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v wraps none of ErrInvalidFile, ErrCorruptFile and ErrUnsupported", err)
			}
			return
		}
		defer pf.Close()
		if fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64}, mem); err == nil {
			_, _ = fr.Schema()
		}
	})
}
