package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/linkedin/goavro/v2"

	"github.com/iceflight/iceflight/iceberg"
)

// blockRecords is how many records go in one Avro block: goavro writes a
// block per Append, and a block per record would cost a sync marker and a
// deflate stream each.
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
// buffered into blocks.
type container struct {
	out     *countingWriter
	ocf     *goavro.OCFWriter
	pending []any
}

func newContainer(w io.Writer, schema string, meta map[string]string) (*container, error) {
	c := &container{out: &countingWriter{w: w}}
	md := make(map[string][]byte, len(meta))
	for k, v := range meta {
		md[k] = []byte(v)
	}
	ocf, err := goavro.NewOCFWriter(goavro.OCFConfig{
		W:               c.out,
		Schema:          schema,
		CompressionName: goavro.CompressionDeflateLabel, // Iceberg Java's default codec
		MetaData:        md,
	})
	if err != nil {
		return nil, err
	}
	c.ocf = ocf
	return c, nil
}

func (c *container) append(rec map[string]any) error {
	c.pending = append(c.pending, rec)
	if len(c.pending) >= blockRecords {
		return c.flush()
	}
	return nil
}

func (c *container) flush() error {
	if len(c.pending) == 0 {
		return nil
	}
	err := c.ocf.Append(c.pending)
	c.pending = c.pending[:0]
	return err
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
	avroSchema, icebergSchema, err := avroSchemas("manifest_entry", entryType(opts.FormatVersion, part))
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
	c, err := newContainer(w, avroSchema, meta)
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
