package reader

import (
	"os"
	"sync"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestCorpusPageDecoderTally reads every corpus table the oracle read
// twice, with pqcodec decoding the columns it covers and with arrow-go's pqarrow
// alone: both must give the oracle's rows. It logs how many column chunks
// of the real engines' files pqcodec decoded and how many it left to
// pqarrow, and fails if it decoded none.
func TestCorpusPageDecoderTally(t *testing.T) {
	t.Parallel()
	ents, err := os.ReadDir(oracleDir)
	if err != nil {
		t.Skipf("oracle rows not found: %v", err)
	}
	corpusWarehouse(t)
	var (
		mu    sync.Mutex
		total Stats
	)
	same := func(fio fileio.FileIO) fileio.FileIO { return fio }
	t.Run("tables", func(t *testing.T) {
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			table := e.Name()
			t.Run(table, func(t *testing.T) {
				t.Parallel()
				got, want, _, st := readCorpusTableStats(t, table, same)
				if d := testutil.DiffRows(got, want); d != "" {
					t.Errorf("pqcodec: %s", d)
				}
				old, _, _, _ := readCorpusTableStats(t, table, same, WithArrowGoDecoder(true))
				if d := testutil.DiffRows(old, want); d != "" {
					t.Errorf("pqarrow alone: %s", d)
				}
				mu.Lock()
				total.ColumnChunksDecoded += st.ColumnChunksDecoded
				total.ColumnChunksFallback += st.ColumnChunksFallback
				mu.Unlock()
			})
		}
	})
	t.Logf("corpus column chunks: %d decoded by pqcodec, %d by pqarrow", total.ColumnChunksDecoded, total.ColumnChunksFallback)
	if total.ColumnChunksDecoded == 0 {
		t.Error("pqcodec decoded no column chunk of the corpus")
	}
}
