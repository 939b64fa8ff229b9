package datafile

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/pqcodec/pqwrite"
)

// encoder writes Arrow batches into a Parquet file's buffered row groups,
// encoding a batch's leaf columns on several goroutines at once.
//
// pqarrow's FileWriter encodes one column after another, and encoding
// (dictionaries, statistics, compression) is most of an append's CPU: on
// one core it caps a DoPut at the speed of that core. A buffered row group
// keeps a separate column chunk writer per leaf, each with its own pages
// and metadata, so the leaves of one batch can be written concurrently;
// the row group and the footer are still closed in order, on one
// goroutine.
//
// Top-level primitive columns are encoded by pqcodec/pqwrite, whose
// dictionaries, statistics and page assembly cost a fraction of arrow-go's;
// the other leaves (in structs, lists and maps) by arrow-go's column
// writers, in the same row groups. With arrowGo set, arrow-go's file
// writer writes every leaf, and the file holds the same bytes as
// pqarrow's would (encoder_test.go).
type encoder struct {
	// Exactly one of fw (pqwrite's file, the default) and pw (arrow-go's)
	// is set, with its open row group.
	fw  *pqwrite.FileWriter
	grp *pqwrite.RowGroupWriter
	pw  *file.Writer
	rgw file.BufferedRowGroupWriter

	paths   [][]leafPath // per top-level column, its leaves in order
	mem     memory.Allocator
	props   pqarrow.ArrowWriterProperties
	workers int
	open    bool  // a row group is open
	rows    int64 // rows in the open row group
	maxRows int64
}

// levelScratch holds a task's level buffers. The column writer copies the
// levels it is given, so a task's buffers go back to levelBuffers when it
// ends: they are as many as the tasks running, not as the leaves of every
// open file.
type levelScratch struct{ def, rep []int16 }

var levelBuffers = sync.Pool{New: func() any { return new(levelScratch) }}

// newEncoder starts a Parquet file of schema on sink; workers bounds the
// goroutines one batch is encoded on (0: GOMAXPROCS); arrowGo has
// arrow-go encode every leaf.
func newEncoder(schema *arrow.Schema, sink io.Writer, props *parquet.WriterProperties, mem memory.Allocator, workers int, arrowGo bool) (*encoder, error) {
	arrowProps := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem))
	pqSchema, err := pqarrow.ToParquet(schema, props, arrowProps)
	if err != nil {
		return nil, fmt.Errorf("parquet schema: %w", err)
	}
	e := &encoder{mem: mem, props: arrowProps, workers: workers, maxRows: props.MaxRowGroupLength()}
	if e.workers <= 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	// ours holds, per leaf, its Arrow type when pqwrite encodes it: a
	// top-level column of a type it covers.
	ours := make([]arrow.DataType, 0, pqSchema.NumColumns())
	leaves := 0
	for _, f := range schema.Fields() {
		ps := leafPaths(f)
		e.paths = append(e.paths, ps)
		for j, p := range ps {
			if leaves+j >= pqSchema.NumColumns() {
				break
			}
			col := pqSchema.Column(leaves + j)
			if int16(col.MaxDefinitionLevel()) != p.maxDef || int16(col.MaxRepetitionLevel()) != p.maxRep {
				return nil, fmt.Errorf("parquet column %s: levels (%d, %d), path gives (%d, %d)",
					col.Path(), col.MaxDefinitionLevel(), col.MaxRepetitionLevel(), p.maxDef, p.maxRep)
			}
			var dt arrow.DataType
			if !arrowGo && len(p.nodes) == 1 && pqwrite.Supported(col, f.Type) {
				dt = f.Type
			}
			ours = append(ours, dt)
		}
		leaves += len(ps)
	}
	if leaves != pqSchema.NumColumns() {
		return nil, fmt.Errorf("parquet schema has %d leaf columns, the Arrow schema %d", pqSchema.NumColumns(), leaves)
	}
	// An empty key-value list, as pqarrow writes, keeps the footer the same.
	if arrowGo {
		e.pw, err = file.NewParquetWriterWithError(sink, pqSchema.Root(), file.WithWriterProps(props), file.WithWriteMetadata(metadata.KeyValueMetadata{}))
	} else {
		e.fw, err = pqwrite.NewFileWriter(sink, pqSchema, props, metadata.KeyValueMetadata{}, ours)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// newRowGroup flushes the open row group, if any, and starts another.
func (e *encoder) newRowGroup() error {
	var err error
	if e.fw != nil {
		e.grp, err = e.fw.AppendRowGroup()
	} else {
		e.rgw, err = e.pw.AppendBufferedRowGroupChecked()
	}
	if err != nil {
		return err
	}
	e.open, e.rows = true, 0
	return nil
}

// write encodes rec into the open row group (the first batch starts one),
// cutting it where a group reaches the writer properties' row limit as
// pqarrow's WriteBuffered does, and runs also beside the encoding on the
// same goroutines.
func (e *encoder) write(rec arrow.RecordBatch, also ...func() error) error {
	if !e.open {
		if err := e.newRowGroup(); err != nil {
			return err
		}
	}
	for off, n := int64(0), rec.NumRows(); off < n; {
		if e.rows >= e.maxRows {
			if err := e.newRowGroup(); err != nil {
				return err
			}
		}
		part := rec
		if size := min(n-off, e.maxRows-e.rows); size < n {
			part = rec.NewSlice(off, off+size)
			defer part.Release()
		}
		if err := e.writeGroup(part, also); err != nil {
			return err
		}
		also = nil
		off += part.NumRows()
	}
	return nil
}

// writeGroup encodes rec, which fits the open row group.
func (e *encoder) writeGroup(rec arrow.RecordBatch, also []func() error) error {
	for _, c := range rec.Columns() {
		countNulls(c)
	}
	tasks := also
	leaf := 0
	for i, ps := range e.paths {
		for j := range ps {
			tasks = append(tasks, e.leafTask(rec.Column(i), &ps[j], leaf))
			leaf++
		}
	}
	if err := run(e.workers, tasks); err != nil {
		return err
	}
	e.rows += rec.NumRows()
	return nil
}

// countNulls makes arr and the arrays below it count their nulls now.
// Arrow counts a slice's nulls on first asking and caches the count; the
// tasks of one batch share parent arrays, and would race to store it.
func countNulls(arr arrow.Array) {
	arr.NullN()
	switch a := arr.(type) {
	case *array.Struct:
		for j := 0; j < a.NumField(); j++ {
			countNulls(a.Field(j))
		}
	case array.ListLike:
		countNulls(a.ListValues())
	}
}

// leafTask writes the leaf path p of column col to leaf column idx.
func (e *encoder) leafTask(col arrow.Array, p *leafPath, idx int) func() error {
	return func() error {
		var cw file.ColumnChunkWriter
		if e.grp != nil {
			if w := e.grp.Column(idx); w != nil {
				// A top-level leaf: its values are the column itself.
				return w.Write(col)
			}
			cw = e.grp.ArrowColumn(idx)
		} else {
			var err error
			if cw, err = e.rgw.Column(idx); err != nil {
				return err
			}
		}
		s := levelBuffers.Get().(*levelScratch)
		defer levelBuffers.Put(s)
		lv, err := p.levels(col, e.mem, s)
		if err != nil {
			return err
		}
		defer lv.values.Release()
		// Each task has its own write context: pqarrow keeps scratch
		// buffers in it.
		ctx := pqarrow.NewArrowWriteContext(context.Background(), &e.props)
		if err := pqarrow.WriteArrowToColumn(ctx, cw, lv.values, lv.def, lv.rep, lv.nullable); err != nil {
			return fmt.Errorf("column %s: %w", cw.Descr().Path(), err)
		}
		return nil
	}
}

// run runs tasks on up to workers goroutines and returns the first error;
// a panic in a task is returned as an error rather than ending the
// process.
func run(workers int, tasks []func() error) error {
	if workers <= 1 || len(tasks) <= 1 {
		for _, t := range tasks {
			if err := panics.Func("encode parquet", t)(); err != nil {
				return err
			}
		}
		return nil
	}
	var g errgroup.Group
	g.SetLimit(workers)
	for _, t := range tasks {
		g.Go(panics.Func("encode parquet", t))
	}
	return g.Wait()
}

// close flushes the open row group and writes the footer; it closes the
// sink if it is an io.Closer.
func (e *encoder) close() error {
	if e.fw != nil {
		return e.fw.Close()
	}
	return e.pw.Close()
}

// metadata returns the file's footer as written (after close) or as it
// stands.
func (e *encoder) metadata() (*metadata.FileMetaData, error) {
	if e.fw != nil {
		return e.fw.FileMetadata()
	}
	return e.pw.FileMetadata()
}
