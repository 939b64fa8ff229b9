package manifest

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/linkedin/goavro/v2"

	"github.com/iceflight/iceflight/iceberg"
)

// blockRecords is how many records go in one Avro block.
const blockRecords = 1000

// countingWriter counts the bytes written through it: a manifest's length
// goes in its manifest-list entry.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// container is an Avro object container file being written, with records
// buffered into deflate-compressed blocks (Iceberg Java's default codec).
//
// goavro encodes the records, but the container framing is written here:
// goavro's OCF writer puts the codec's schema in the header, and the codec
// must be built from a schema whose decimals are plain fixed types,
// because goavro encodes a zero decimal as a single byte whatever the
// fixed size (goavro v2.15 toSignedFixedBytes). Decimal values are
// therefore given to goavro as bytes already sign-extended to the fixed
// size, and the header carries the true schema, logical types included.
type container struct {
	out     *countingWriter
	codec   *goavro.Codec
	sync    [16]byte
	records int64
	block   []byte
	packed  bytes.Buffer
	deflate *flate.Writer
}

// avroMagic opens every Avro object container file.
var avroMagic = []byte{'O', 'b', 'j', 1}

func newContainer(w io.Writer, schemas avroSchema, meta map[string]string) (*container, error) {
	codec, err := goavro.NewCodec(schemas.codec)
	if err != nil {
		return nil, err
	}
	c := &container{out: &countingWriter{w: w}, codec: codec}
	if _, err := rand.Read(c.sync[:]); err != nil {
		return nil, err
	}
	all := make(map[string]string, len(meta)+2)
	for k, v := range meta {
		all[k] = v
	}
	all["avro.schema"] = schemas.header
	all["avro.codec"] = "deflate"
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Spec (Avro, Object Container Files): the magic, the metadata as an
	// Avro map<bytes> (one block of entries, then a zero count), the sync
	// marker.
	h := append([]byte(nil), avroMagic...)
	h = binary.AppendVarint(h, int64(len(keys)))
	for _, k := range keys {
		h = appendBytes(h, []byte(k))
		h = appendBytes(h, []byte(all[k]))
	}
	h = binary.AppendVarint(h, 0)
	h = append(h, c.sync[:]...)
	if _, err := c.out.Write(h); err != nil {
		return nil, err
	}
	return c, nil
}

// appendBytes appends an Avro bytes or string value: zig-zag length, data.
// (encoding/binary's varints are Avro's zig-zag longs.)
func appendBytes(b, v []byte) []byte {
	return append(binary.AppendVarint(b, int64(len(v))), v...)
}

func (c *container) append(rec map[string]any) error {
	b, err := c.codec.BinaryFromNative(c.block, rec)
	if err != nil {
		return err
	}
	c.block = b
	c.records++
	if c.records >= blockRecords {
		return c.flush()
	}
	return nil
}

// flush writes the buffered records as one block: count, size, the
// deflated records, the sync marker.
func (c *container) flush() error {
	if c.records == 0 {
		return nil
	}
	c.packed.Reset()
	if c.deflate == nil {
		w, err := flate.NewWriter(&c.packed, flate.DefaultCompression)
		if err != nil {
			return err
		}
		c.deflate = w
	} else {
		c.deflate.Reset(&c.packed)
	}
	if _, err := c.deflate.Write(c.block); err != nil {
		return err
	}
	if err := c.deflate.Close(); err != nil {
		return err
	}
	h := binary.AppendVarint(nil, c.records)
	h = binary.AppendVarint(h, int64(c.packed.Len()))
	if _, err := c.out.Write(h); err != nil {
		return err
	}
	if _, err := c.out.Write(c.packed.Bytes()); err != nil {
		return err
	}
	if _, err := c.out.Write(c.sync[:]); err != nil {
		return err
	}
	c.records, c.block = 0, c.block[:0]
	return nil
}

// newWriter validates the options and writes the manifest's header.
func newWriter(w io.Writer, opts Options) (*Writer, error) {
	if opts.FormatVersion < 1 || opts.FormatVersion > 3 {
		return nil, fmt.Errorf("manifest: format version %d is not 1, 2 or 3", opts.FormatVersion)
	}
	if opts.Content != iceberg.ManifestContentData && opts.Content != iceberg.ManifestContentDeletes {
		return nil, fmt.Errorf("manifest: unknown content %d", opts.Content)
	}
	if opts.Content == iceberg.ManifestContentDeletes && opts.FormatVersion < 2 {
		return nil, errors.New("manifest: delete manifests need format version 2 or later")
	}
	if opts.Schema == nil {
		return nil, errors.New("manifest: no table schema")
	}
	part := opts.Spec.PartitionType(opts.Schema)
	schemas, icebergSchema, err := avroSchemas("manifest_entry", entryType(opts.FormatVersion, part))
	if err != nil {
		return nil, fmt.Errorf("manifest schema for spec %d: %w", opts.Spec.ID, err)
	}
	tableSchema, err := opts.Schema.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("manifest: table schema: %w", err)
	}
	specJSON, err := opts.Spec.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("manifest: partition spec %d: %w", opts.Spec.ID, err)
	}
	// "partition-spec" holds only the spec's fields array.
	var spec struct {
		Fields json.RawMessage `json:"fields"`
	}
	if err := json.Unmarshal(specJSON, &spec); err != nil {
		return nil, fmt.Errorf("manifest: partition spec %d: %w", opts.Spec.ID, err)
	}
	meta := map[string]string{
		"schema":            string(tableSchema),
		"schema-id":         strconv.Itoa(opts.Schema.ID),
		"partition-spec":    string(spec.Fields),
		"partition-spec-id": strconv.Itoa(opts.Spec.ID),
		"format-version":    strconv.Itoa(opts.FormatVersion),
		"iceberg.schema":    icebergSchema,
	}
	if opts.FormatVersion >= 2 {
		meta["content"] = opts.Content.String()
	}
	c, err := newContainer(w, schemas, meta)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	wr := &Writer{impl: &writerImpl{opts: opts, part: part, c: c}}
	for _, f := range part.Fields {
		wr.impl.summaries = append(wr.impl.summaries, newSummary(f.Type))
	}
	return wr, nil
}

// writerImpl is a Writer's state.
type writerImpl struct {
	opts      Options
	part      *iceberg.StructType
	c         *container
	summaries []*summary
	mf        iceberg.ManifestFile
	minSeq    int64 // of live entries with a sequence number; 0 for none
	closed    bool
	err       error // the first write error; the manifest is unusable after it
}

func (w *Writer) add(e iceberg.ManifestEntry) error {
	m := w.impl
	if m.closed {
		return errors.New("manifest: add after close")
	}
	if m.err != nil {
		return m.err
	}
	rec, err := m.entryRecord(e)
	if err != nil {
		return fmt.Errorf("manifest entry %s: %w", e.DataFile.Path, err)
	}
	if err := m.c.append(rec); err != nil {
		m.err = fmt.Errorf("manifest: %w", err)
		return m.err
	}
	m.count(e)
	return nil
}

// count adds an entry to the manifest's summary.
func (m *writerImpl) count(e iceberg.ManifestEntry) {
	rows := e.DataFile.RecordCount
	switch e.Status {
	case iceberg.EntryAdded:
		m.mf.AddedFilesCount++
		m.mf.AddedRowsCount += rows
	case iceberg.EntryExisting:
		m.mf.ExistingFilesCount++
		m.mf.ExistingRowsCount += rows
	case iceberg.EntryDeleted:
		m.mf.DeletedFilesCount++
		m.mf.DeletedRowsCount += rows
	}
	for i, s := range m.summaries {
		s.update(e.DataFile.Partition[i])
	}
	if seq, ok := m.dataSeq(e); ok && e.Status != iceberg.EntryDeleted {
		if m.minSeq == 0 || seq < m.minSeq {
			m.minSeq = seq
		}
	}
}

// dataSeq is the data sequence number an entry is written with; ok is
// false when it is left null for inheritance.
func (m *writerImpl) dataSeq(e iceberg.ManifestEntry) (int64, bool) {
	if m.opts.FormatVersion == 1 {
		return 0, false
	}
	if e.Status == iceberg.EntryAdded && e.SequenceNumber <= 0 {
		return 0, false
	}
	return e.SequenceNumber, true
}

func (w *Writer) close() (iceberg.ManifestFile, error) {
	m := w.impl
	if m.closed {
		return iceberg.ManifestFile{}, errors.New("manifest: closed twice")
	}
	m.closed = true
	if m.err != nil {
		return iceberg.ManifestFile{}, m.err
	}
	if err := m.c.flush(); err != nil {
		return iceberg.ManifestFile{}, fmt.Errorf("manifest: %w", err)
	}
	mf := m.mf
	mf.Length = m.c.out.n
	mf.SpecID = m.opts.Spec.ID
	mf.Content = m.opts.Content
	mf.AddedSnapshotID = m.opts.SnapshotID
	mf.MinSequenceNumber = m.minSeq
	mf.Partitions = make([]iceberg.FieldSummary, 0, len(m.summaries))
	for i, s := range m.summaries {
		fs, err := s.result()
		if err != nil {
			return iceberg.ManifestFile{}, fmt.Errorf("manifest: partition field %s summary: %w", m.part.Fields[i].Name, err)
		}
		mf.Partitions = append(mf.Partitions, fs)
	}
	return mf, nil
}
