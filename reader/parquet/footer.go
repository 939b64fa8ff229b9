package parquet

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
	"github.com/iceflight/iceflight/internal/thriftval"
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

// Open opens f, the Parquet file named path in messages, for reading. The
// footer is read here, not by arrow-go, for two reasons: the file's length
// comes from File.Size (the size recorded in metadata may be wrong), and
// footers that arrow-go rejects for a known writer defect are repaired
// first (see repairFooter). The reader allocates from mem. A file of up to
// WholeFileBytes is read whole, into whole, a buffer from scratch, which
// need not clear what it allocates since the read fills every byte; the
// caller then releases whole after the reader. A footer over limit bytes
// (0 or less: no limit) is an error wrapping fileio.ErrTooLarge.
func Open(f fileio.File, mem, scratch memory.Allocator, path string, limit int64) (rd *file.Reader, whole *memory.Buffer, err error) {
	size := f.Size()
	if size < 12 {
		return nil, nil, fmt.Errorf("%w: parquet file %s is %d bytes, too small", ErrInvalidFile, path, size)
	}
	tail, whole, err := fetchTail(f, size, scratch)
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
		return nil, whole, fmt.Errorf("%w: %s is not a parquet file (no PAR1 magic at its end)", ErrInvalidFile, path)
	}
	footerLen := int64(binary.LittleEndian.Uint32(tail[len(tail)-8:]))
	if footerLen <= 0 || footerLen+12 > size {
		return nil, whole, fmt.Errorf("%w: parquet file %s: footer length %d does not fit its size %d", ErrInvalidFile, path, footerLen, size)
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

// WholeFileBytes is the size up to which Open reads a file in one piece:
// tables written by frequent small appends have thousands of such files,
// and each would otherwise cost a read for the footer and one per column
// chunk (a request each on an object store).
const WholeFileBytes = 2 << 20

// footerReadBytes is the first read of a larger file: its last bytes, which
// hold the footer of all but very wide tables; a longer footer takes a
// second read.
const footerReadBytes = 64 << 10

// fetchTail reads the end of a file of size bytes (at least 12): all of it,
// in whole (from scratch), when it is small, else its last footerReadBytes.
func fetchTail(f io.ReaderAt, size int64, scratch memory.Allocator) (tail []byte, whole *memory.Buffer, err error) {
	if size <= WholeFileBytes {
		buf := memory.NewResizableBuffer(scratch)
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
	root, err := thriftval.Read(ctx, thrift.NewTCompactProtocolConf(in, &thrift.TConfiguration{}), thrift.STRUCT)
	if err != nil {
		return nil, false, err
	}
	for _, fld := range root.Fields {
		if fld.ID != fileMetaSchema || fld.Val.Type != thrift.LIST {
			continue
		}
		for i := range fld.Val.Items {
			elem := &fld.Val.Items[i]
			if elem.Type != thrift.STRUCT || !elem.Has(elemNumChildren) {
				continue
			}
			lt, ok := elem.Get(elemLogicalType)
			if !ok || lt.Type != thrift.STRUCT || lt.Has(logicalMap) || lt.Has(logicalList) || lt.Has(logicalVariant) {
				continue
			}
			elem.Drop(elemLogicalType)
			changed = true
		}
	}
	if !changed {
		return raw, false, nil
	}
	buf := thrift.NewTMemoryBufferLen(len(raw))
	p := thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{})
	if err := thriftval.Write(ctx, p, root); err != nil {
		return nil, false, err
	}
	if err := p.Flush(ctx); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), true, nil
}
