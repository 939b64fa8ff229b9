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

	paths  [][]leafPath // per top-level column, its leaves in order
	mem    memory.Allocator
	props  pqarrow.ArrowWriterProperties
	lanes  *lanes
	leaves int // leaf columns: the lanes before the data metrics ones
	// firstLeaf is, per top-level column, the index of its first leaf;
	// ours, per leaf, whether pqwrite encodes it.
	firstLeaf []int
	ours      []bool
	open      bool  // a row group is open
	rows      int64 // rows in the open row group
	maxRows   int64
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
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	e := &encoder{mem: mem, props: arrowProps, lanes: newLanes(workers, batchesInFlight), maxRows: props.MaxRowGroupLength()}
	// ours holds, per leaf, its Arrow type when pqwrite encodes it: a
	// top-level column of a type it covers.
	ours := make([]arrow.DataType, 0, pqSchema.NumColumns())
	leaves := 0
	for _, f := range schema.Fields() {
		ps := leafPaths(f)
		e.paths = append(e.paths, ps)
		e.firstLeaf = append(e.firstLeaf, leaves)
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
			e.ours = append(e.ours, dt != nil)
		}
		leaves += len(ps)
	}
	e.leaves = leaves
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

// batchesInFlight bounds the batches an encoder holds while it encodes
// them: the caller's slices of at most sliceRows rows, so a few MiB each.
const batchesInFlight = 4

// newRowGroup flushes the open row group, if any, and starts another.
func (e *encoder) newRowGroup() error {
	if err := e.lanes.wait(); err != nil {
		return err
	}
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

// write hands rec to the open row group's column lanes (the first batch
// starts a group), cutting it where a group reaches the writer
// properties' row limit as pqarrow's WriteBuffered does, and runs also
// beside the encoding in lanes of their own: also[i] after the also[i] of
// earlier batches. It returns before rec is encoded, holding a reference
// to it; an error of an earlier batch's encoding is returned by a later
// write, newRowGroup or close.
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
		// also reads rec's columns, which the first part's tasks hold.
		if err := e.writeGroup(part, rec, also); err != nil {
			return err
		}
		also = nil
		off += part.NumRows()
	}
	return nil
}

// writeGroup queues rec, which fits the open row group, for encoding, and
// also, which reads whole.
func (e *encoder) writeGroup(rec, whole arrow.RecordBatch, also []func() error) error {
	for _, c := range rec.Columns() {
		countNulls(c)
	}
	tasks := make([]func() error, 0, e.leaves+len(also))
	leaf := 0
	for i, ps := range e.paths {
		for j := range ps {
			tasks = append(tasks, e.leafTask(rec.Column(i), &ps[j], leaf))
			leaf++
		}
	}
	tasks = append(tasks, also...)
	held := []arrow.RecordBatch{rec}
	if len(also) > 0 && whole != rec {
		held = append(held, whole)
	}
	release := func() {
		for _, r := range held {
			r.Release()
		}
	}
	for _, r := range held {
		r.Retain()
	}
	if err := e.lanes.submit(tasks, release); err != nil {
		release()
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

// close waits for the batches being encoded, flushes the open row group
// and writes the footer; it closes the sink if it is an io.Closer. After
// an encoding error it still closes, to free the writer's buffers, and
// returns that error.
func (e *encoder) close() error {
	if err := e.lanes.wait(); err != nil {
		if e.fw != nil {
			_ = e.fw.Close()
		} else {
			_ = e.pw.Close()
		}
		return err
	}
	if e.fw != nil {
		return e.fw.Close()
	}
	return e.pw.Close()
}

// hasBounds reports whether pqwrite encodes top-level column i, a
// primitive one, and so collects its pqwrite.Bounds.
func (e *encoder) hasBounds(i int) bool {
	return e.fw != nil && i < len(e.paths) && len(e.paths[i]) == 1 && e.ours[e.firstLeaf[i]]
}

// bounds returns the pqwrite.Bounds of top-level column i, of which
// hasBounds holds, over the whole file after close.
func (e *encoder) bounds(i int) pqwrite.Bounds { return e.fw.Bounds(e.firstLeaf[i]) }

// metadata returns the file's footer as written (after close) or as it
// stands.
func (e *encoder) metadata() (*metadata.FileMetaData, error) {
	if err := e.lanes.wait(); err != nil {
		return nil, err
	}
	if e.fw != nil {
		return e.fw.FileMetadata()
	}
	return e.pw.FileMetadata()
}
