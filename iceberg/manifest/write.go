package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// WriterOptions describe the manifest a Writer writes.
type WriterOptions struct {
	// FormatVersion is the table's format version (1, 2 or 3).
	FormatVersion int
	// Content is data or deletes (deletes need version 2 or later).
	Content iceberg.ManifestContent
	// Schema is the table schema the entries were written with; it is
	// written as the "schema" metadata key and types the partition tuple.
	Schema *iceberg.Schema
	// Spec is the partition spec of every entry.
	Spec iceberg.PartitionSpec
	// SnapshotID is the snapshot that adds the manifest.
	SnapshotID int64
}

// Writer writes one manifest: an Avro container file of manifest_entry
// records with the spec's schema of the format version (field ids
// included) and the metadata keys Iceberg Java requires.
type Writer struct {
	opts      WriterOptions
	part      *iceberg.StructType
	entry     []field // manifest_entry's fields in the version
	file      []field // data_file's
	c         *avro.ContainerWriter
	enc       recordEncoder
	summaries []*summary
	mf        iceberg.ManifestFile
	minSeq    int64 // of live entries with a sequence number; 0 for none
	closed    bool
	err       error // the first write error; the manifest is unusable after it
}

// NewWriter validates the options and writes the manifest's header to w.
func NewWriter(w io.Writer, opts WriterOptions) (*Writer, error) {
	v := opts.FormatVersion
	if v < 1 || v > 3 {
		return nil, fmt.Errorf("manifest: format version %d is not 1, 2 or 3", v)
	}
	if opts.Content != iceberg.ManifestContentData && opts.Content != iceberg.ManifestContentDeletes {
		return nil, fmt.Errorf("manifest: unknown content %d", opts.Content)
	}
	if opts.Content == iceberg.ManifestContentDeletes && v < 2 {
		return nil, errors.New("manifest: delete manifests need format version 2 or later")
	}
	if opts.Schema == nil {
		return nil, errors.New("manifest: no table schema")
	}
	part := opts.Spec.PartitionType(opts.Schema)
	schema, icebergSchema, err := avroSchemas("manifest_entry", entryType(v, part))
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
		"format-version":    strconv.Itoa(v),
		"iceberg.schema":    icebergSchema,
	}
	if v >= 2 {
		meta["content"] = opts.Content.String()
	}
	// Deflate: Iceberg Java's default codec.
	c, err := avro.NewContainerWriter(w, avro.ContainerWriterOptions{Schema: schema, Codec: "deflate", Metadata: meta})
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	m := &Writer{opts: opts, part: part, entry: fieldsOf(entryFields, v), file: fieldsOf(dataFileFields, v),
		c: c, enc: recordEncoder{version: v}}
	for _, f := range part.Fields {
		m.summaries = append(m.summaries, newSummary(f.Type))
	}
	return m, nil
}

// Add appends an entry. ADDED entries are written with the writer's
// snapshot id, a null file sequence number, a null data sequence number
// unless SequenceNumber is set (data that logically belongs to an older
// sequence number), and a null first_row_id in v3: readers inherit them
// from the manifest list. EXISTING and DELETED entries keep their sequence
// numbers (and first_row_id); DELETED ones take the writer's snapshot id.
func (m *Writer) Add(e iceberg.ManifestEntry) error {
	if m.closed {
		return errors.New("manifest: add after close")
	}
	if m.err != nil {
		return m.err
	}
	if err := m.encodeEntry(&e); err != nil {
		return fmt.Errorf("manifest entry %s: %w", e.DataFile.Path, err)
	}
	if err := m.c.Append(m.enc.Encoded()); err != nil {
		m.err = fmt.Errorf("manifest: %w", err)
		return m.err
	}
	m.count(e)
	return nil
}

// count adds an entry to the manifest's summary.
func (m *Writer) count(e iceberg.ManifestEntry) {
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
func (m *Writer) dataSeq(e iceberg.ManifestEntry) (int64, bool) {
	if m.opts.FormatVersion == 1 {
		return 0, false
	}
	if e.Status == iceberg.EntryAdded && e.SequenceNumber <= 0 {
		return 0, false
	}
	return e.SequenceNumber, true
}

// Close finishes the manifest and returns its manifest-list entry: counts
// by status, partition field summaries, MinSequenceNumber of live entries
// with sequence numbers (0 when all inherit), Length the bytes written.
// The caller sets Path, and SequenceNumber is assigned by WriteList.
func (m *Writer) Close() (iceberg.ManifestFile, error) {
	if m.closed {
		return iceberg.ManifestFile{}, errors.New("manifest: closed twice")
	}
	m.closed = true
	if m.err != nil {
		return iceberg.ManifestFile{}, m.err
	}
	if err := m.c.Close(); err != nil {
		return iceberg.ManifestFile{}, fmt.Errorf("manifest: %w", err)
	}
	mf := m.mf
	mf.Length = m.c.Size()
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
