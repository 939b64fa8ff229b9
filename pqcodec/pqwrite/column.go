package pqwrite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// batchRows is how many rows are encoded between checks of the page and
// dictionary size limits: arrow-go's default write batch size, so pages
// are cut about where arrow-go cuts them.
const batchRows = 1024

// dictionary is what a column writer needs of its dictionary beyond
// inserting values, which is specific to the value width.
type dictionary interface {
	len() int
	plainSize() int
	appendPlain(dst []byte) []byte
	appendPlainOf(dst []byte, idx []uint32) []byte
}

// bufferedPage is a dictionary-encoded data page, compressed, waiting for
// the dictionary page, which precedes it in the chunk but is complete only
// at the chunk's end (or at fallback).
type bufferedPage struct {
	data       []byte
	rows, size int32
	nulls      int64
}

// ColumnWriter encodes one column chunk of a flat leaf column into data
// pages v1 of at most about the writer properties' data page size, and
// hands them to its page writer. Write may be called from any goroutine,
// but from one at a time.
type ColumnWriter struct {
	descr    *schema.Column
	kind     kind
	width    int // FIXED_LEN_BYTE_ARRAY length
	optional bool
	pager    file.PageWriter
	meta     *metadata.ColumnChunkMetaDataBuilder
	props    *parquet.WriterProperties
	comp     *compressor
	pageSize int64
	dictMax  int

	// The chunk's dictionary while it is dictionary encoded (nil for
	// booleans and once fallen back): dict, and the one of dict4, dict8
	// and dictB of the value width.
	dict        dictionary
	dict4       *fixedDict[uint32]
	dict8       *fixedDict[uint64]
	dictB       *bytesDict
	fellBack    bool // PLAIN after dictionary pages
	dictWritten bool
	// dictLen is how many entries the dictionary held when the chunk let
	// it go (closed or fell back): the next chunk of the column sizes its
	// table by it.
	dictLen int

	// The open page: its definition levels, and its values as dictionary
	// indices, PLAIN bytes or (booleans) one byte each.
	levels    []uint8
	idx       []uint32
	plain     []byte
	bools     []uint8
	pageRows  int
	pageNulls int
	pageRaw   int64 // PLAIN bytes of its values, which sizes pages

	pages  []bufferedPage
	stats  chunkStats
	rows   int64
	closed bool

	scratch32 []uint32
	scratch64 []uint64
	fixedBuf  []byte
	pageBuf   []byte
	compBuf   []byte
}

// newColumnWriter returns a writer of a chunk of descr; dictHint is the
// number of entries the column's dictionary is expected to reach (the
// last chunk's), which sizes its table so that it seldom grows.
func newColumnWriter(descr *schema.Column, dt arrow.DataType, pager file.PageWriter, meta *metadata.ColumnChunkMetaDataBuilder,
	props *parquet.WriterProperties, comp *compressor, dictHint int) (*ColumnWriter, error) {
	k, err := kindOf(descr, dt)
	if err != nil {
		return nil, err
	}
	w := &ColumnWriter{descr: descr, kind: k, width: descr.TypeLength(), optional: descr.MaxDefinitionLevel() == 1,
		pager: pager, meta: meta, props: props, comp: comp, pageSize: props.DataPageSize(),
		dictMax: int(props.DictionaryPageSizeLimit())}
	w.stats.signed = k == kindDecimal
	if k != kindBool && props.DictionaryEnabledFor(descr.Path()) {
		switch k {
		case kindInt32, kindFloat32:
			w.dict4 = newFixedDict[uint32](dictHint)
			w.dict = w.dict4
		case kindInt64, kindFloat64:
			w.dict8 = newFixedDict[uint64](dictHint)
			w.dict = w.dict8
		default:
			w.dictB = newBytesDict(k != kindBytes, dictHint)
			w.dict = w.dictB
		}
	}
	return w, nil
}

// Descr returns the column the writer encodes.
func (w *ColumnWriter) Descr() *schema.Column { return w.descr }

// RowsWritten returns the rows written to the chunk so far.
func (w *ColumnWriter) RowsWritten() int64 { return w.rows }

// Write appends the values of arr, whose type is the one the writer was
// made for, to the column chunk.
func (w *ColumnWriter) Write(arr arrow.Array) error {
	if w.closed {
		return fmt.Errorf("column %s: write after close", w.descr.Path())
	}
	if k, err := kindOf(w.descr, arr.DataType()); err != nil || k != w.kind {
		return fmt.Errorf("column %s: cannot write %s values", w.descr.Path(), arr.DataType())
	}
	if !w.optional && arr.NullN() > 0 {
		return fmt.Errorf("column %s: %d nulls in a required column", w.descr.Path(), arr.NullN())
	}
	v, err := viewOf(arr, w.kind, w.width)
	if err != nil {
		return fmt.Errorf("column %s: %w", w.descr.Path(), err)
	}
	for off := 0; off < arr.Len(); off += batchRows {
		n := min(batchRows, arr.Len()-off)
		w.writeBatch(&v, off, n)
		// The page first, then the dictionary, as arrow-go checks them.
		if w.pageRaw >= w.pageSize {
			if err := w.cutPage(); err != nil {
				return fmt.Errorf("column %s: %w", w.descr.Path(), err)
			}
		}
		if w.dict != nil && w.dict.plainSize() >= w.dictMax {
			if err := w.fallback(); err != nil {
				return fmt.Errorf("column %s: %w", w.descr.Path(), err)
			}
		}
	}
	return nil
}

// writeBatch encodes rows [off, off+n) of v into the open page.
func (w *ColumnWriter) writeBatch(v *view, off, n int) {
	nulls := 0
	if w.optional {
		if v.nulls == 0 {
			for range n {
				w.levels = append(w.levels, 1)
			}
		} else {
			for i := off; i < off+n; i++ {
				l := v.valid(i)
				w.levels = append(w.levels, l)
				nulls += int(1 - l)
			}
		}
	}
	w.pageRows += n
	w.pageNulls += nulls
	w.rows += int64(n)
	w.stats.nulls += int64(nulls)
	switch w.kind {
	case kindBool:
		start := len(w.bools)
		w.bools = v.appendBools(w.bools, off, n)
		w.stats.bools(w.bools[start:])
		w.pageRaw = int64(len(w.bools) / 8)
	case kindInt32, kindFloat32:
		present := gather(v, off, n, &w.scratch32)
		vals := writeFixed(w, present, w.dict4)
		if w.kind == kindInt32 {
			intValues(&w.stats, asInt32(vals))
		} else {
			floatValues(&w.stats, asFloat32(present), asFloat32(vals))
		}
	case kindInt64, kindFloat64:
		present := gather(v, off, n, &w.scratch64)
		vals := writeFixed(w, present, w.dict8)
		if w.kind == kindInt64 {
			intValues(&w.stats, asInt64(vals))
		} else {
			floatValues(&w.stats, asFloat64(present), asFloat64(vals))
		}
	case kindBytes:
		w.writeBytes(v, off, n)
	default:
		w.writeFixed(v, off, n)
	}
}

// writeFixed adds vals, the present 4- or 8-byte values of a batch, to the
// open page: as dictionary indices while the chunk has dictionary dict,
// else as PLAIN values. It returns what the chunk's statistics must take:
// the values new to the dictionary (the others were taken before), or
// vals.
func writeFixed[T uint32 | uint64](w *ColumnWriter, vals []T, dict *fixedDict[T]) []T {
	w.pageRaw += int64(unsafe.Sizeof(T(0))) * int64(len(vals))
	if dict == nil {
		w.plain = appendFixedLE(w.plain, vals)
		return vals
	}
	before := len(dict.keys)
	w.idx = dict.insert(vals, w.idx)
	return dict.keys[before:]
}

// writeBytes encodes BYTE_ARRAY values. With a dictionary, only new
// entries can move the bounds.
func (w *ColumnWriter) writeBytes(v *view, off, n int) {
	var lo, hi []byte
	dict := w.dictB != nil
	raw := 0
	for i := off; i < off+n; i++ {
		if v.nulls > 0 && v.valid(i) == 0 {
			continue
		}
		b := v.data[v.offsets[i]:v.offsets[i+1]]
		raw += 4 + len(b)
		if dict {
			before := len(w.dictB.ends)
			id := w.dictB.lookup(b)
			w.idx = append(w.idx, id)
			if int(id) < before {
				continue
			}
		} else {
			w.plain = appendByteArray(w.plain, b)
		}
		lo, hi = w.stats.stretch(lo, hi, b)
	}
	w.pageRaw += int64(raw)
	w.stats.byteRange(lo, hi)
}

// writeFixed encodes FIXED_LEN_BYTE_ARRAY values: fixed-size binaries as
// they are, decimals converted to big-endian.
func (w *ColumnWriter) writeFixed(v *view, off, n int) {
	vals := v.gatherFixed(off, n, w.width, &w.fixedBuf)
	count := len(vals) / max(w.width, 1)
	w.pageRaw += int64(len(vals))
	dict := w.dictB != nil
	if !dict {
		w.plain = append(w.plain, vals...)
	}
	var lo, hi []byte
	for i := range count {
		b := vals[i*w.width : (i+1)*w.width]
		if dict {
			before := len(w.dictB.ends)
			id := w.dictB.lookup(b)
			w.idx = append(w.idx, id)
			if int(id) < before {
				continue
			}
		}
		lo, hi = w.stats.stretch(lo, hi, b)
	}
	w.stats.byteRange(lo, hi)
}

// fallback switches the chunk from dictionary to PLAIN encoding when the
// dictionary reaches the size limit or does not pay on the first page.
// Pages already cut keep their indices and are written now after the
// dictionary page; if none was cut, the dictionary is dropped and the
// whole chunk is PLAIN. The open page is re-encoded PLAIN from its
// indices.
func (w *ColumnWriter) fallback() error {
	w.dictLen = w.dict.len()
	w.plain = w.dict.appendPlainOf(w.plain[:0], w.idx)
	w.idx = w.idx[:0]
	if len(w.pages) > 0 {
		if err := w.flushDictionary(); err != nil {
			return err
		}
		w.fellBack = true
	}
	w.dict, w.dict4, w.dict8, w.dictB = nil, nil, nil, nil
	return nil
}

// flushDictionary writes the dictionary page and the pages that wait for
// it.
func (w *ColumnWriter) flushDictionary() error {
	plain := w.dict.appendPlain(make([]byte, 0, w.dict.plainSize()))
	page := file.NewDictionaryPage(memory.NewBufferBytes(plain), int32(w.dict.len()), w.props.DictionaryPageEncoding())
	_, err := w.pager.WriteDictionaryPage(page)
	page.Release()
	if err != nil {
		return fmt.Errorf("dictionary page: %w", err)
	}
	w.dictWritten = true
	for i, p := range w.pages {
		if err := w.writePage(p.data, p.rows, p.size, p.nulls, w.props.DictionaryIndexEncoding()); err != nil {
			return err
		}
		w.pages[i] = bufferedPage{}
	}
	w.pages = w.pages[:0]
	return nil
}

// cutPage ends the open page: definition levels (RLE, behind their 4-byte
// length, as data page v1 has them), then the values, compressed.
func (w *ColumnWriter) cutPage() error {
	if w.pageRows == 0 {
		return nil
	}
	buf := w.pageBuf[:0]
	if w.optional {
		buf = append(buf, 0, 0, 0, 0)
		start := len(buf)
		if w.pageNulls == 0 {
			buf = appendRepeated(buf, 1, w.pageRows, 1)
		} else {
			buf = appendHybrid(buf, w.levels, 1)
		}
		binary.LittleEndian.PutUint32(buf[start-4:], uint32(len(buf)-start))
	}
	dict := w.dict != nil
	switch {
	case dict:
		// Dictionary indices: their bit width in one byte, then the
		// hybrid runs (Parquet encodings, RLE_DICTIONARY).
		start := len(buf)
		bw := bitWidth(w.dict.len())
		buf = append(buf, byte(bw))
		buf = appendHybrid(buf, w.idx, bw)
		if len(w.pages) == 0 && int64(len(buf)-start+w.dict.plainSize()) >= w.pageRaw {
			// The first page decides, as in parquet-mr (Iceberg Java's
			// writer): a dictionary whose page and indices are no
			// smaller than the PLAIN values does not pay, and the chunk
			// is PLAIN. Unique ids and timestamps end here, before their
			// dictionary costs more hashing.
			w.pageBuf = buf
			if err := w.fallback(); err != nil {
				return err
			}
			return w.cutPage()
		}
	case w.kind == kindBool:
		// PLAIN booleans are bit-packed, least significant bit first.
		start := len(buf)
		buf = append(buf, make([]byte, (len(w.bools)+7)/8)...)
		packBits(buf[start:], w.bools)
	default:
		buf = append(buf, w.plain...)
	}
	w.pageBuf = buf
	if len(buf) > 1<<31-1 {
		return errors.New("page larger than 2 GiB")
	}
	data, err := w.comp.compress(w.compBuf, buf)
	if err != nil {
		return err
	}
	if w.comp.c != nil {
		w.compBuf = data
	}
	rows, size, nulls := int32(w.pageRows), int32(len(buf)), int64(w.pageNulls)
	w.levels, w.idx, w.plain, w.bools = w.levels[:0], w.idx[:0], w.plain[:0], w.bools[:0]
	w.pageRows, w.pageNulls, w.pageRaw = 0, 0, 0
	if dict {
		w.pages = append(w.pages, bufferedPage{data: append([]byte(nil), data...), rows: rows, size: size, nulls: nulls})
		return nil
	}
	return w.writePage(data, rows, size, nulls, parquet.Encodings.Plain)
}

// writePage hands a data page to the page writer, which copies it. The
// page header carries the page's null count only: its bounds would cost a
// comparison per value, and readers prune by the chunk's.
func (w *ColumnWriter) writePage(data []byte, rows, size int32, nulls int64, enc parquet.Encoding) error {
	var st metadata.EncodedStatistics
	st.SetNullCount(nulls)
	page := file.NewDataPageV1WithStats(memory.NewBufferBytes(data), rows, enc, parquet.Encodings.RLE, parquet.Encodings.RLE, size, st)
	_, err := w.pager.WriteDataPage(page)
	page.Release()
	if err != nil {
		return fmt.Errorf("data page: %w", err)
	}
	return nil
}

// Close ends the chunk: the open page, the dictionary page and the pages
// that wait for it, the chunk's statistics and its metadata. The page
// writer, buffered, then copies the chunk to the file.
func (w *ColumnWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if err := w.cutPage(); err != nil {
		return fmt.Errorf("column %s: %w", w.descr.Path(), err)
	}
	if w.dict != nil {
		w.dictLen = w.dict.len()
	}
	if w.dict != nil && (len(w.pages) > 0 || w.rows > 0) {
		if err := w.flushDictionary(); err != nil {
			return fmt.Errorf("column %s: %w", w.descr.Path(), err)
		}
	}
	if w.rows > 0 && w.props.StatisticsEnabledFor(w.descr.Path()) {
		w.meta.SetStats(w.stats.encode(w.kind, w.descr, w.props.MaxStatsSizeFor(w.descr.Path())))
	}
	if err := w.pager.Close(w.dictWritten, w.fellBack); err != nil {
		return fmt.Errorf("column %s: %w", w.descr.Path(), err)
	}
	w.dict, w.dict4, w.dict8, w.dictB = nil, nil, nil, nil
	return nil
}
