package reader

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Spec: Position Delete Files. A position delete file lists (file_path,
// pos) pairs, optionally with the deleted row, sorted by file_path then
// pos. One file may cover many data files, so only the entries whose
// file_path is the data file's path as recorded in metadata apply. Paths
// are compared as strings, as Iceberg Java does: a delete file that spells
// the path differently (another scheme or authority) deletes nothing.

// positionDeleteSchema is the part of a position delete file the reader
// reads.
var positionDeleteSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: iceberg.FieldIDDeleteFilePath, Name: "file_path", Type: iceberg.StringType{}, Required: true},
	iceberg.NestedField{ID: iceberg.FieldIDDeletePosition, Name: "pos", Type: iceberg.LongType{}, Required: true},
)

// loadPositionDeletes reads the positions that delete file d deletes from
// the data file recorded as target.
func (r *Reader) loadPositionDeletes(ctx context.Context, scan Scan, d *DeleteFile, target string) (*roaring64.Bitmap, error) {
	f, src, err := fileio.OpenRecorded(ctx, r.fio, d.Path, knownSize(d.FileSize), func(f fileio.File) (source, error) {
		return openSource(ctx, f, d.Format, &sourceConfig{
			path:      d.Path,
			schema:    positionDeleteSchema,
			mapping:   scan.NameMapping,
			pathStats: target,
			batchSize: r.batchSize,
			maxRead:   r.maxRead,
			mem:       r.mem,
			pages:     !r.arrowGo,
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read position delete file %s: %w", d.Path, err)
	}
	defer f.Close()
	defer src.close()
	bm := roaring64.New()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, _, err := src.next(ctx)
		if errors.Is(err, io.EOF) {
			return bm, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read position delete file %s: %w", d.Path, err)
		}
		paths, okPath := batch.Column(0).(*array.String)
		poss, okPos := batch.Column(1).(*array.Int64)
		if !okPath || !okPos {
			batch.Release()
			return nil, fmt.Errorf("read position delete file %s: columns are %s and %s (internal error)",
				d.Path, batch.Column(0).DataType(), batch.Column(1).DataType())
		}
		for i := 0; i < paths.Len(); i++ {
			if paths.IsNull(i) || paths.Value(i) != target {
				continue
			}
			if poss.IsNull(i) || poss.Value(i) < 0 {
				batch.Release()
				return nil, fmt.Errorf("%w: position delete file %s: row %d has no valid pos", ErrInvalidTask, d.Path, i)
			}
			bm.Add(uint64(poss.Value(i)))
		}
		batch.Release()
	}
}
