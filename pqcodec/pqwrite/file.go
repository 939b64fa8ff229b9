package pqwrite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// magic opens and ends a Parquet file (unencrypted footer).
var magic = []byte("PAR1")

// tellWriter counts the bytes written through it: the page writers need
// the file offset at which a chunk starts.
type tellWriter struct {
	w io.Writer
	n int64
}

func (t *tellWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.n += int64(n)
	return n, err
}

func (t *tellWriter) Tell() int64 { return t.n }

// FileWriter writes a Parquet file row group by row group: "PAR1", the
// column chunks of each group in column order, the footer (FileMetaData,
// its length, "PAR1"). Its metadata comes from arrow-go's builders, so the
// footer is the one arrow-go would write for the same chunks.
type FileWriter struct {
	sink   *tellWriter
	schema *schema.Schema
	props  *parquet.WriterProperties
	meta   *metadata.FileMetaDataBuilder
	types  []arrow.DataType // per leaf: its Arrow type if encoded here
	comp   *compressor
	group  *RowGroupWriter
	groups int
	// dictLens holds, per leaf, the entries its last chunk's dictionary
	// reached, to size the next one's table: row groups of one file tend
	// to have as many distinct values as each other.
	dictLens []int
	bounds   []Bounds // per leaf, over the row groups closed
	footer   *metadata.FileMetaData
	err      error
	closed   bool
}

// NewFileWriter starts a Parquet file of schema sc on w. types has one
// entry per leaf column: the Arrow type of its arrays when this package
// encodes it (Supported must hold), nil when arrow-go's column writer
// does. Encryption, page indexes and bloom filters are not written.
func NewFileWriter(w io.Writer, sc *schema.Schema, props *parquet.WriterProperties, kv metadata.KeyValueMetadata, types []arrow.DataType) (*FileWriter, error) {
	if props == nil {
		props = parquet.NewWriterProperties()
	}
	if props.FileEncryptionProperties() != nil || props.PageIndexEnabled() {
		return nil, errors.New("parquet writer: encryption and page indexes are not supported")
	}
	if props.DataPageVersion() != parquet.DataPageV1 {
		return nil, errors.New("parquet writer: only data pages v1 are written")
	}
	if len(types) != sc.NumColumns() {
		return nil, fmt.Errorf("parquet writer: %d leaf types for %d leaf columns", len(types), sc.NumColumns())
	}
	for i, t := range types {
		if t == nil {
			continue
		}
		if _, err := kindOf(sc.Column(i), t); err != nil {
			return nil, fmt.Errorf("parquet writer: %w", err)
		}
	}
	comp, err := newCompressor(props.Compression(), props.CompressionLevel())
	if err != nil {
		return nil, fmt.Errorf("parquet writer: %w", err)
	}
	for i := range sc.NumColumns() {
		path := sc.Column(i).Path()
		if props.CompressionFor(path) != props.Compression() || props.CompressionLevelFor(path) != props.CompressionLevel() {
			return nil, fmt.Errorf("parquet writer: column %s: per-column compression is not supported", path)
		}
	}
	f := &FileWriter{sink: &tellWriter{w: w}, schema: sc, props: props, types: types, comp: comp,
		meta: metadata.NewFileMetadataBuilder(sc, props, kv), dictLens: make([]int, len(types)), bounds: make([]Bounds, len(types))}
	if _, err := f.sink.Write(magic); err != nil {
		return nil, fmt.Errorf("parquet writer: %w", err)
	}
	return f, nil
}

// RowGroupWriter is a row group being written. Its columns are written in
// any order and at once from several goroutines (each column from one at a
// time): every column buffers its chunk until the group closes.
type RowGroupWriter struct {
	meta    *metadata.RowGroupMetaDataBuilder
	ordinal int16
	ours    []*ColumnWriter
	theirs  []file.ColumnChunkWriter
}

// AppendRowGroup closes the open row group, if any, and starts another.
func (f *FileWriter) AppendRowGroup() (*RowGroupWriter, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.closed {
		return nil, errors.New("parquet writer: closed")
	}
	if err := f.closeGroup(); err != nil {
		return nil, err
	}
	if f.groups >= 1<<15-1 {
		return nil, f.fail(errors.New("parquet writer: too many row groups"))
	}
	g := &RowGroupWriter{meta: f.meta.AppendRowGroup(), ordinal: int16(f.groups)}
	n := f.schema.NumColumns()
	g.ours = make([]*ColumnWriter, n)
	g.theirs = make([]file.ColumnChunkWriter, n)
	for i := range n {
		cm := g.meta.NextColumnChunk()
		pager, err := file.NewPageWriter(f.sink, f.props.Compression(), f.props.CompressionLevel(), cm, g.ordinal, int16(i),
			f.props.Allocator(), true, nil, nil)
		if err != nil {
			return nil, f.fail(fmt.Errorf("parquet writer: column %s: %w", cm.Descr().Path(), err))
		}
		if f.types[i] == nil {
			g.theirs[i] = file.NewColumnChunkWriter(cm, pager, f.props)
			continue
		}
		if g.ours[i], err = newColumnWriter(cm.Descr(), f.types[i], pager, cm, f.props, f.comp, f.dictLens[i]); err != nil {
			return nil, f.fail(fmt.Errorf("parquet writer: %w", err))
		}
	}
	f.group = g
	f.groups++
	return g, nil
}

// Column returns the writer of leaf column i, or nil when arrow-go writes
// it (see ArrowColumn).
func (g *RowGroupWriter) Column(i int) *ColumnWriter {
	if i < 0 || i >= len(g.ours) {
		return nil
	}
	return g.ours[i]
}

// ArrowColumn returns arrow-go's writer of leaf column i, or nil when this
// package writes it (see Column).
func (g *RowGroupWriter) ArrowColumn(i int) file.ColumnChunkWriter {
	if i < 0 || i >= len(g.theirs) {
		return nil
	}
	return g.theirs[i]
}

// close writes the group's chunks in column order and finishes its
// metadata; every column must have the same number of rows.
func (g *RowGroupWriter) close() error {
	rows := int64(-1)
	for i := range g.ours {
		var n int64
		var err error
		if w := g.ours[i]; w != nil {
			n = w.RowsWritten()
			err = w.Close()
		} else {
			cw := g.theirs[i]
			n = int64(cw.RowsWritten())
			if err = cw.Close(); err != nil {
				err = fmt.Errorf("column %s: %w", cw.Descr().Path(), err)
			}
		}
		if err != nil {
			return err
		}
		if rows >= 0 && n != rows {
			return fmt.Errorf("row group %d: column %d has %d rows, column 0 %d", g.ordinal, i, n, rows)
		}
		rows = n
	}
	g.meta.SetNumRows(int(max(rows, 0)))
	return g.meta.Finish(0, g.ordinal)
}

func (f *FileWriter) closeGroup() error {
	if f.group == nil {
		return nil
	}
	g := f.group
	f.group = nil
	if err := g.close(); err != nil {
		return f.fail(fmt.Errorf("parquet writer: %w", err))
	}
	for i, w := range g.ours {
		if w != nil {
			f.dictLens[i] = w.dictLen
			f.bounds[i].merge(w.stats.chunkBounds(w.kind))
		}
	}
	return nil
}

func (f *FileWriter) fail(err error) error {
	if f.err == nil {
		f.err = err
	}
	return f.err
}

// Close closes the open row group and writes the footer; it closes w if
// it is an io.Closer.
func (f *FileWriter) Close() error {
	if f.closed {
		return f.err
	}
	f.closed = true
	err := f.finish()
	if c, ok := f.sink.w.(io.Closer); ok {
		if cerr := c.Close(); err == nil && cerr != nil {
			err = f.fail(cerr)
		}
	}
	return err
}

func (f *FileWriter) finish() error {
	if f.err != nil {
		return f.err
	}
	if err := f.closeGroup(); err != nil {
		return err
	}
	md, err := f.meta.Snapshot()
	if err != nil {
		return f.fail(fmt.Errorf("parquet writer: footer: %w", err))
	}
	n, err := md.WriteTo(f.sink, nil)
	if err != nil {
		return f.fail(fmt.Errorf("parquet writer: footer: %w", err))
	}
	tail := binary.LittleEndian.AppendUint32(nil, uint32(n))
	if _, err := f.sink.Write(append(tail, magic...)); err != nil {
		return f.fail(fmt.Errorf("parquet writer: footer: %w", err))
	}
	f.footer = md
	return nil
}

// FileMetadata returns the footer as written, after Close, or as it
// stands.
func (f *FileWriter) FileMetadata() (*metadata.FileMetaData, error) {
	if f.footer != nil {
		return f.footer, nil
	}
	return f.meta.Snapshot()
}

// Bounds returns the Bounds of leaf column i over the row groups closed so
// far, every one after Close; they are empty for a column arrow-go writes.
func (f *FileWriter) Bounds(i int) Bounds {
	if i < 0 || i >= len(f.bounds) {
		return Bounds{}
	}
	return f.bounds[i]
}

// NumRowGroups returns the row groups started so far.
func (f *FileWriter) NumRowGroups() int { return f.groups }
