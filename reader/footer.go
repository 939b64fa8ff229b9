package reader

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/iceflight/iceflight/fileio"
)

// streamBufferSize is the read-ahead of each column chunk stream: column
// chunks are read in pieces of this size instead of whole, which bounds
// memory for large row groups. Page data past the buffer is read straight
// into the page (arrow-go's buffered reader works like bufio.Reader), so a
// small buffer costs few extra reads; at 1 MiB, 16 columns of 8 concurrent
// streams held 128 MiB of buffers.
const streamBufferSize = 64 << 10

var (
	magicPlain     = []byte("PAR1")
	magicEncrypted = []byte("PARE")
)

// openParquet opens a Parquet file for reading. The footer is read here, not
// by arrow-go, for two reasons: the file's length comes from File.Size (the
// size recorded in metadata may be wrong), and footers that arrow-go rejects
// for a known writer defect are repaired first (see repairFooter). A small
// file is read whole (see fetchTail); the caller then releases whole, the
// buffer holding it, after the reader. A footer over limit bytes (0 or
// less: no limit) is an error wrapping fileio.ErrTooLarge.
func openParquet(f fileio.File, mem memory.Allocator, path string, limit int64) (rd *file.Reader, whole *memory.Buffer, err error) {
	size := f.Size()
	if size < 12 {
		return nil, nil, fmt.Errorf("%w: parquet file %s is %d bytes, too small", ErrInvalidTask, path, size)
	}
	tail, whole, err := fetchTail(f, size, mem)
	if err != nil {
		return nil, nil, fmt.Errorf("read parquet footer of %s: %w", path, err)
	}
	defer func() {
		if err != nil && whole != nil {
			whole.Release()
			whole = nil
		}
	}()
	magic := tail[len(tail)-4:]
	switch {
	case bytes.Equal(magic, magicEncrypted):
		return nil, whole, fmt.Errorf("%w: encrypted parquet file %s", ErrUnsupported, path)
	case !bytes.Equal(magic, magicPlain):
		return nil, whole, fmt.Errorf("%w: %s is not a parquet file (no PAR1 magic at its end)", ErrInvalidTask, path)
	}
	footerLen := int64(binary.LittleEndian.Uint32(tail[len(tail)-8:]))
	if footerLen <= 0 || footerLen+12 > size {
		return nil, whole, fmt.Errorf("%w: parquet file %s: footer length %d does not fit its size %d", ErrInvalidTask, path, footerLen, size)
	}
	if err := fileio.CheckSize("parquet footer of "+path, footerLen, limit); err != nil {
		return nil, whole, err
	}
	var raw []byte
	if footerLen+8 <= int64(len(tail)) {
		// A copy: the metadata must not point into a buffer that is
		// recycled when the file is closed.
		raw = bytes.Clone(tail[int64(len(tail))-8-footerLen : len(tail)-8])
	} else {
		raw = make([]byte, footerLen)
		if _, err := f.ReadAt(raw, size-8-footerLen); err != nil && err != io.EOF {
			return nil, whole, fmt.Errorf("read parquet footer of %s: %w", path, err)
		}
	}

	md, err := parseFooter(raw)
	if err != nil {
		fixed, changed, rerr := repairFooter(raw)
		if rerr != nil || !changed {
			return nil, whole, corruptFile(fmt.Errorf("parquet footer of %s: %w", path, err))
		}
		if md, err = parseFooter(fixed); err != nil {
			return nil, whole, corruptFile(fmt.Errorf("parquet footer of %s: %w", path, err))
		}
	}
	dropArrowSchemaHint(md)
	if md.IsSetEncryptionAlgorithm() {
		return nil, whole, fmt.Errorf("%w: encrypted parquet file %s", ErrUnsupported, path)
	}
	md.SetSourceFileSize(size)

	props := parquet.NewReaderProperties(mem)
	props.BufferedStreamEnabled = true
	props.BufferSize = streamBufferSize
	var src io.ReaderAt = f
	if whole != nil {
		src = bytes.NewReader(whole.Bytes())
	}
	rd, err = file.NewParquetReader(io.NewSectionReader(src, 0, size), file.WithMetadata(md), file.WithReadProps(props))
	if err != nil {
		return nil, whole, corruptFile(fmt.Errorf("open parquet file %s: %w", path, err))
	}
	return rd, whole, nil
}

// Sizes of the first read of a Parquet file. A file up to wholeFileBytes is
// read in one piece: tables written by frequent small appends have
// thousands of such files, and each would otherwise cost a read for the
// footer and one per column chunk (a request each on an object store).
// Of a larger file the last footerReadBytes are read, which hold the
// footer of all but very wide tables; a longer footer takes a second read.
const (
	wholeFileBytes  = 2 << 20
	footerReadBytes = 64 << 10
)

// fetchTail reads the end of a file of size bytes (at least 12): all of it,
// in whole (from mem), when it is small, else its last footerReadBytes.
func fetchTail(f io.ReaderAt, size int64, mem memory.Allocator) (tail []byte, whole *memory.Buffer, err error) {
	if size <= wholeFileBytes {
		buf := memory.NewResizableBuffer(uninitialized(mem))
		defer func() {
			if whole == nil { // a failed read, or a panic that Read recovers
				buf.Release()
			}
		}()
		buf.Resize(int(size))
		if err := readFull(f, buf.Bytes(), 0); err != nil {
			return nil, nil, err
		}
		return buf.Bytes(), buf, nil
	}
	tail = make([]byte, min(size, footerReadBytes))
	if err := readFull(f, tail, size-int64(len(tail))); err != nil {
		return nil, nil, err
	}
	return tail, nil, nil
}

// readFull fills p from offset off; io.ReaderAt may report io.EOF with a
// full read at the end of a file.
func readFull(f io.ReaderAt, p []byte, off int64) error {
	n, err := f.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// parseFooter decodes footer bytes. arrow-go panics on some malformed
// schemas (a TIME logical type with an unknown unit); that is a bad file, not
// a bug of ours, so it becomes an error, as a footer thrift cannot decode
// does: both wrap ErrCorruptFile.
func parseFooter(raw []byte) (md *metadata.FileMetaData, err error) {
	defer func() {
		if p := recover(); p != nil {
			md, err = nil, fmt.Errorf("%w: malformed footer: %v", ErrCorruptFile, p)
		}
	}()
	if md, err = metadata.NewFileMetaData(raw, nil); err != nil {
		return nil, fmt.Errorf("%w: malformed footer: %v", ErrCorruptFile, err)
	}
	return md, nil
}

// Thrift field ids of parquet.thrift that repairFooter touches.
const (
	fileMetaSchema      = 2  // FileMetaData.schema: list<SchemaElement>
	elemNumChildren     = 5  // SchemaElement.num_children: set on groups only
	elemLogicalType     = 10 // SchemaElement.logicalType
	logicalMap          = 2  // LogicalType.MAP
	logicalList         = 3  // LogicalType.LIST
	logicalVariant      = 16 // LogicalType.VARIANT
	maxRepairFooterSize = 64 << 20
)

// repairFooter drops logical-type annotations that the Parquet format does not
// allow on groups (anything but MAP, LIST and VARIANT). Impala's writer puts
// UNKNOWN on the repeated key_value group of maps (it also carries the legacy
// MAP_KEY_VALUE converted type, which says all there is to say); parquet-mr
// ignores it, arrow-go refuses the whole file. Seen in the corpus table
// apache-impala__iceberg_migrated_complex_test. changed reports whether
// anything was dropped.
func repairFooter(raw []byte) (out []byte, changed bool, err error) {
	if len(raw) > maxRepairFooterSize {
		return nil, false, fmt.Errorf("footer of %d bytes too large to repair", len(raw))
	}
	ctx := context.Background()
	in := thrift.NewTMemoryBufferLen(len(raw))
	if _, err := in.Write(raw); err != nil {
		return nil, false, err
	}
	root, err := readThrift(ctx, thrift.NewTCompactProtocolConf(in, &thrift.TConfiguration{}), thrift.STRUCT, 0)
	if err != nil {
		return nil, false, err
	}
	for _, fld := range root.fields {
		if fld.id != fileMetaSchema || fld.val.typ != thrift.LIST {
			continue
		}
		for i := range fld.val.items {
			elem := &fld.val.items[i]
			if elem.typ != thrift.STRUCT || !elem.has(elemNumChildren) {
				continue
			}
			lt, ok := elem.get(elemLogicalType)
			if !ok || lt.typ != thrift.STRUCT || lt.has(logicalMap) || lt.has(logicalList) || lt.has(logicalVariant) {
				continue
			}
			elem.drop(elemLogicalType)
			changed = true
		}
	}
	if !changed {
		return raw, false, nil
	}
	buf := thrift.NewTMemoryBufferLen(len(raw))
	p := thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{})
	if err := writeThrift(ctx, p, root); err != nil {
		return nil, false, err
	}
	if err := p.Flush(ctx); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), true, nil
}

// tvalue is a decoded Thrift value of any type, enough to rewrite a message
// without its generated code.
type tvalue struct {
	typ    thrift.TType
	scalar any
	fields []tfield     // STRUCT
	elem   thrift.TType // LIST, SET: element type; MAP: key type
	val    thrift.TType // MAP: value type
	items  []tvalue     // LIST, SET elements; MAP keys and values interleaved
}

type tfield struct {
	id  int16
	val tvalue
}

func (v *tvalue) get(id int16) (tvalue, bool) {
	for _, f := range v.fields {
		if f.id == id {
			return f.val, true
		}
	}
	return tvalue{}, false
}

func (v *tvalue) has(id int16) bool {
	_, ok := v.get(id)
	return ok
}

func (v *tvalue) drop(id int16) {
	kept := v.fields[:0]
	for _, f := range v.fields {
		if f.id != id {
			kept = append(kept, f)
		}
	}
	v.fields = kept
}

// maxThriftDepth bounds recursion on hostile input; parquet footers nest a
// handful of levels.
const maxThriftDepth = 64

func readThrift(ctx context.Context, p thrift.TProtocol, t thrift.TType, depth int) (tvalue, error) {
	if depth > maxThriftDepth {
		return tvalue{}, fmt.Errorf("thrift nesting deeper than %d", maxThriftDepth)
	}
	v := tvalue{typ: t}
	var err error
	switch t {
	case thrift.BOOL:
		v.scalar, err = p.ReadBool(ctx)
	case thrift.BYTE:
		v.scalar, err = p.ReadByte(ctx)
	case thrift.I16:
		v.scalar, err = p.ReadI16(ctx)
	case thrift.I32:
		v.scalar, err = p.ReadI32(ctx)
	case thrift.I64:
		v.scalar, err = p.ReadI64(ctx)
	case thrift.DOUBLE:
		v.scalar, err = p.ReadDouble(ctx)
	case thrift.STRING:
		v.scalar, err = p.ReadBinary(ctx)
	case thrift.STRUCT:
		if _, err = p.ReadStructBegin(ctx); err != nil {
			return v, err
		}
		for {
			_, ft, id, err := p.ReadFieldBegin(ctx)
			if err != nil {
				return v, err
			}
			if ft == thrift.STOP {
				break
			}
			fv, err := readThrift(ctx, p, ft, depth+1)
			if err != nil {
				return v, err
			}
			v.fields = append(v.fields, tfield{id: id, val: fv})
			if err := p.ReadFieldEnd(ctx); err != nil {
				return v, err
			}
		}
		err = p.ReadStructEnd(ctx)
	case thrift.LIST, thrift.SET:
		var n int
		if t == thrift.LIST {
			v.elem, n, err = p.ReadListBegin(ctx)
		} else {
			v.elem, n, err = p.ReadSetBegin(ctx)
		}
		if err != nil {
			return v, err
		}
		for i := 0; i < n; i++ {
			item, err := readThrift(ctx, p, v.elem, depth+1)
			if err != nil {
				return v, err
			}
			v.items = append(v.items, item)
		}
		if t == thrift.LIST {
			err = p.ReadListEnd(ctx)
		} else {
			err = p.ReadSetEnd(ctx)
		}
	case thrift.MAP:
		var n int
		if v.elem, v.val, n, err = p.ReadMapBegin(ctx); err != nil {
			return v, err
		}
		for i := 0; i < n; i++ {
			k, err := readThrift(ctx, p, v.elem, depth+1)
			if err != nil {
				return v, err
			}
			val, err := readThrift(ctx, p, v.val, depth+1)
			if err != nil {
				return v, err
			}
			v.items = append(v.items, k, val)
		}
		err = p.ReadMapEnd(ctx)
	default:
		err = fmt.Errorf("unknown thrift type %d", t)
	}
	return v, err
}

func writeThrift(ctx context.Context, p thrift.TProtocol, v tvalue) error {
	switch v.typ {
	case thrift.BOOL:
		return p.WriteBool(ctx, v.scalar.(bool))
	case thrift.BYTE:
		return p.WriteByte(ctx, v.scalar.(int8))
	case thrift.I16:
		return p.WriteI16(ctx, v.scalar.(int16))
	case thrift.I32:
		return p.WriteI32(ctx, v.scalar.(int32))
	case thrift.I64:
		return p.WriteI64(ctx, v.scalar.(int64))
	case thrift.DOUBLE:
		return p.WriteDouble(ctx, v.scalar.(float64))
	case thrift.STRING:
		return p.WriteBinary(ctx, v.scalar.([]byte))
	case thrift.STRUCT:
		if err := p.WriteStructBegin(ctx, ""); err != nil {
			return err
		}
		for _, f := range v.fields {
			if err := p.WriteFieldBegin(ctx, "", f.val.typ, f.id); err != nil {
				return err
			}
			if err := writeThrift(ctx, p, f.val); err != nil {
				return err
			}
			if err := p.WriteFieldEnd(ctx); err != nil {
				return err
			}
		}
		if err := p.WriteFieldStop(ctx); err != nil {
			return err
		}
		return p.WriteStructEnd(ctx)
	case thrift.LIST, thrift.SET:
		var err error
		if v.typ == thrift.LIST {
			err = p.WriteListBegin(ctx, v.elem, len(v.items))
		} else {
			err = p.WriteSetBegin(ctx, v.elem, len(v.items))
		}
		if err != nil {
			return err
		}
		for _, item := range v.items {
			if err := writeThrift(ctx, p, item); err != nil {
				return err
			}
		}
		if v.typ == thrift.LIST {
			return p.WriteListEnd(ctx)
		}
		return p.WriteSetEnd(ctx)
	case thrift.MAP:
		if err := p.WriteMapBegin(ctx, v.elem, v.val, len(v.items)/2); err != nil {
			return err
		}
		for _, item := range v.items {
			if err := writeThrift(ctx, p, item); err != nil {
				return err
			}
		}
		return p.WriteMapEnd(ctx)
	}
	return fmt.Errorf("unknown thrift type %d", v.typ)
}
