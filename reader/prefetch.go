package reader

import (
	"context"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/iceflight/iceflight/fileio"
)

// oldWriterPadding is what arrow-go's row group reader adds to a column
// chunk's length for files of parquet-mr before PARQUET-816, whose
// total_compressed_size left out the dictionary page header; the announced
// range must cover what that reader will read.
const oldWriterPadding = 100

// announceRowGroup tells the file which byte ranges the projected column
// chunks of row group g occupy, before pqarrow reads them, so that a remote
// file fetches them coalesced (fileio.Prefetch): on an object store one GET
// per run of neighbouring chunks, instead of one per stream buffer
// (reader/parquet's streamBufferSize) that pqarrow asks for. A file read
// whole already holds every byte.
func (s *parquetSource) announceRowGroup(ctx context.Context, g int) {
	if s.whole != nil {
		return
	}
	cols := append([]int(nil), s.proj.leaves...)
	for _, p := range s.proj.fields {
		if p.int96 {
			cols = append(cols, p.src.col)
		}
	}
	fileio.Prefetch(ctx, s.file, chunkRanges(s.pf.MetaData(), g, cols))
}

// chunkRanges returns where the chunks of columns cols of row group g lie,
// computed as arrow-go's RowGroupReader computes them (from the dictionary
// page when it comes first).
func chunkRanges(md *metadata.FileMetaData, g int, cols []int) []fileio.Range {
	rg := md.RowGroup(g)
	old := md.WriterVersion().LessThan(metadata.Parquet816FixedVersion)
	size := md.GetSourceFileSize()
	ranges := make([]fileio.Range, 0, len(cols))
	for _, c := range cols {
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			// The reader meets, and reports, the same error itself.
			continue
		}
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
			start = cc.DictionaryPageOffset()
		}
		n := cc.TotalCompressedSize()
		if old {
			n += max(min(oldWriterPadding, size-(start+n)), 0)
		}
		ranges = append(ranges, fileio.Range{Offset: start, Length: n})
	}
	return ranges
}
