package iceberg

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// EntryStatus tells whether a manifest entry's file was added or deleted by
// the snapshot that wrote the manifest, or carried over from an earlier one.
type EntryStatus int

// Entry statuses, as the manifest's status field encodes them.
const (
	EntryExisting EntryStatus = 0
	EntryAdded    EntryStatus = 1
	EntryDeleted  EntryStatus = 2
)

// String returns the status as the spec names it ("ADDED").
func (s EntryStatus) String() string {
	switch s {
	case EntryExisting:
		return "EXISTING"
	case EntryAdded:
		return "ADDED"
	case EntryDeleted:
		return "DELETED"
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// FileContent is the kind of rows a file holds.
type FileContent int

// File contents, as data_file.content encodes them (v1 files are all data).
const (
	FileContentData            FileContent = 0
	FileContentPositionDeletes FileContent = 1
	FileContentEqualityDeletes FileContent = 2
)

// String returns the content as the spec names it ("POSITION_DELETES").
func (c FileContent) String() string {
	switch c {
	case FileContentData:
		return "DATA"
	case FileContentPositionDeletes:
		return "POSITION_DELETES"
	case FileContentEqualityDeletes:
		return "EQUALITY_DELETES"
	}
	return "content(" + strconv.Itoa(int(c)) + ")"
}

// DataFile describes a data or delete file: the data_file struct of a
// manifest entry.
type DataFile struct {
	Content FileContent
	Path    string
	// Format is upper-case: PARQUET, AVRO, ORC or PUFFIN.
	Format string
	// Partition holds one literal per field of the manifest's partition
	// spec, in spec order (see literal.go for the Go types); nil is null.
	Partition          []any
	RecordCount        int64
	FileSize           int64
	ColumnSizes        map[int]int64
	ValueCounts        map[int]int64
	NullValueCounts    map[int]int64
	NaNValueCounts     map[int]int64
	LowerBounds        map[int][]byte // single-value serialization, undecoded
	UpperBounds        map[int][]byte
	KeyMetadata        []byte
	SplitOffsets       []int64
	EqualityIDs        []int
	SortOrderID        *int
	SpecID             int // from the manifest file
	FirstRowID         *int64
	ReferencedDataFile string
	ContentOffset      *int64
	ContentSizeInBytes *int64
}

// ManifestEntry is one entry of a manifest, with inherited values filled in.
type ManifestEntry struct {
	Status     EntryStatus
	SnapshotID int64
	// SequenceNumber is the data sequence number, FileSequenceNumber the
	// sequence number of the commit that added the file.
	SequenceNumber, FileSequenceNumber int64
	DataFile                           DataFile
}

// manifestLayout resolves the fields of a manifest's manifest_entry record
// by field id, with the spec's names as a fallback: writers differ in
// record names and field order.
type manifestLayout struct {
	status, snapshotID, seq, fileSeq, dataFile                      avroSlot
	content, path, format, recordCount, fileSize, partition         avroSlot
	columnSizes, valueCounts, nullCounts, nanCounts, lower, upper   avroSlot
	keyMetadata, splitOffsets, equalityIDs, sortOrderID, firstRowID avroSlot
	referenced, contentOffset, contentSize                          avroSlot
	partFields                                                      []avroSlot
	partTypes                                                       []Type
}

func newManifestLayout(s *avroSchema, pt *StructType) (*manifestLayout, error) {
	l := &manifestLayout{
		status:     s.slot(0, "status"),
		snapshotID: s.slot(1, "snapshot_id"),
		seq:        s.slot(3, "sequence_number"),
		fileSeq:    s.slot(4, "file_sequence_number"),
	}
	l.dataFile = s.slot(2, "data_file")
	d := l.dataFile.typ
	if !l.status.present() || d == nil || d.kind != "record" {
		return nil, fmt.Errorf("%w: manifest schema lacks status or a data_file record", ErrInvalidMetadata)
	}
	l.content = d.slot(134, "content")
	l.path = d.slot(100, "file_path")
	l.format = d.slot(101, "file_format")
	l.partition = d.slot(102, "partition")
	l.recordCount = d.slot(103, "record_count")
	l.fileSize = d.slot(104, "file_size_in_bytes")
	l.columnSizes = d.slot(108, "column_sizes")
	l.valueCounts = d.slot(109, "value_counts")
	l.nullCounts = d.slot(110, "null_value_counts")
	l.nanCounts = d.slot(137, "nan_value_counts")
	l.lower = d.slot(125, "lower_bounds")
	l.upper = d.slot(128, "upper_bounds")
	l.keyMetadata = d.slot(131, "key_metadata")
	l.splitOffsets = d.slot(132, "split_offsets")
	l.equalityIDs = d.slot(135, "equality_ids")
	l.sortOrderID = d.slot(140, "sort_order_id")
	l.firstRowID = d.slot(142, "first_row_id")
	l.referenced = d.slot(143, "referenced_data_file")
	l.contentOffset = d.slot(144, "content_offset")
	l.contentSize = d.slot(145, "content_size_in_bytes")
	for _, sl := range []avroSlot{l.path, l.format, l.recordCount, l.fileSize} {
		if !sl.present() {
			return nil, fmt.Errorf("%w: manifest schema lacks file_path, file_format, record_count or file_size_in_bytes", ErrInvalidMetadata)
		}
	}
	l.mapPartition(pt)
	return l, nil
}

// mapPartition matches the spec's partition fields to the Avro partition
// record's fields: by field-id when the writer recorded them (the spec asks
// for the partition field ids), else by name, else by position. Without a
// partition type the Avro fields are taken in order, typed by Avro alone.
func (l *manifestLayout) mapPartition(pt *StructType) {
	rec := l.partition.typ
	if rec != nil && rec.kind == "union" {
		for _, b := range rec.branches {
			if b.kind == "record" {
				rec = b
			}
		}
	}
	if rec == nil || rec.kind != "record" {
		rec = &avroSchema{kind: "record"}
	}
	if pt == nil {
		for _, f := range rec.fields {
			l.partFields = append(l.partFields, avroSlot{name: f.name, typ: f.typ})
			l.partTypes = append(l.partTypes, UnknownType{})
		}
		return
	}
	hasIDs := false
	for _, f := range rec.fields {
		hasIDs = hasIDs || f.id >= 0
	}
	for i, f := range pt.Fields {
		sl := rec.slot(f.ID, f.Name)
		if !sl.present() && !hasIDs && i < len(rec.fields) {
			sl = avroSlot{name: rec.fields[i].name, typ: rec.fields[i].typ}
		}
		l.partFields = append(l.partFields, sl)
		l.partTypes = append(l.partTypes, f.Type)
	}
}

// ReadManifest decodes every entry of a manifest, DELETED ones included
// (scans skip them), and applies the spec's inheritance from the manifest
// list entry mf:
//
//   - a null snapshot_id inherits mf.AddedSnapshotID;
//   - Spec (Sequence Number Inheritance): null data and file sequence numbers
//     inherit mf.SequenceNumber when the entry is ADDED; EXISTING and DELETED
//     entries must carry them, so a null there is an error. Manifests with no
//     sequence number column (v1) read 0, and so does every entry of a
//     manifest whose own sequence number is 0 (written before an upgrade to
//     v2), as Iceberg Java reads them. A manifest from writers that predate
//     file_sequence_number gives non-ADDED entries their data sequence number.
//   - Spec (First Row ID Inheritance, v3): a null first_row_id of an ADDED or
//     EXISTING data file is mf.FirstRowID plus the record counts of the data
//     files before it that also inherited.
//
// partitionType is the spec's partition tuple type, spec.PartitionType(schema);
// partition values become literals of those types (with nil, the Avro
// types alone decide). Errors wrap ErrInvalidMetadata and name the entry;
// the caller names the manifest.
func ReadManifest(r io.Reader, mf ManifestFile, partitionType *StructType) ([]ManifestEntry, error) {
	c, err := openAvroContainer(r)
	if err == nil {
		err = c.prepare()
	}
	if err != nil {
		return nil, err
	}
	l, err := newManifestLayout(c.schema, partitionType)
	if err != nil {
		return nil, err
	}
	v1 := !l.seq.present() || string(c.meta["format-version"]) == "1"
	var out []ManifestEntry
	for i := 0; ; i++ {
		v, err := c.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			var e ManifestEntry
			if e, err = l.decode(v, mf, v1); err == nil {
				out = append(out, e)
				continue
			}
		}
		return nil, fmt.Errorf("manifest entry %d: %w", i, err)
	}
	if mf.FirstRowID != nil {
		next := *mf.FirstRowID
		for i := range out {
			f := &out[i].DataFile
			if out[i].Status == EntryDeleted || f.Content != FileContentData || f.FirstRowID != nil {
				continue
			}
			id := next
			f.FirstRowID = &id
			next += f.RecordCount
		}
	}
	return out, nil
}

func (l *manifestLayout) decode(v any, mf ManifestFile, v1 bool) (ManifestEntry, error) {
	rec, err := avroRecord(v)
	if err != nil {
		return ManifestEntry{}, err
	}
	d := avroDecoder{rec: rec}
	e := ManifestEntry{Status: EntryStatus(d.long(l.status, -1))}
	if e.Status < EntryExisting || e.Status > EntryDeleted {
		d.fail(fmt.Sprintf("status %d", e.Status))
	}
	e.SnapshotID = mf.AddedSnapshotID
	if id := d.optLong(l.snapshotID); id != nil {
		e.SnapshotID = *id
	}
	if !v1 {
		seq, fileSeq := d.optLong(l.seq), d.optLong(l.fileSeq)
		inherit := e.Status == EntryAdded || mf.SequenceNumber == 0
		switch {
		case seq != nil:
			e.SequenceNumber = *seq
		case inherit:
			e.SequenceNumber = mf.SequenceNumber
		default:
			d.fail(fmt.Sprintf("%v entry has a null sequence_number", e.Status))
		}
		switch {
		case fileSeq != nil:
			e.FileSequenceNumber = *fileSeq
		case inherit:
			e.FileSequenceNumber = mf.SequenceNumber
		case !l.fileSeq.present():
			e.FileSequenceNumber = e.SequenceNumber
		default:
			d.fail(fmt.Sprintf("%v entry has a null file_sequence_number", e.Status))
		}
	}
	dv, _ := d.get(l.dataFile)
	if d.err != nil {
		return e, d.err
	}
	frec, err := avroRecord(dv)
	if err != nil {
		return e, fmt.Errorf("data_file: %w", err)
	}
	e.DataFile, err = l.decodeFile(frec, mf)
	return e, err
}

func (l *manifestLayout) decodeFile(rec map[string]any, mf ManifestFile) (DataFile, error) {
	d := avroDecoder{rec: rec}
	f := DataFile{
		Content:            FileContent(d.long(l.content, 0)),
		Path:               d.str(l.path, true),
		Format:             strings.ToUpper(d.str(l.format, true)),
		RecordCount:        d.long(l.recordCount, -1),
		FileSize:           d.long(l.fileSize, -1),
		ColumnSizes:        d.countMap(l.columnSizes),
		ValueCounts:        d.countMap(l.valueCounts),
		NullValueCounts:    d.countMap(l.nullCounts),
		NaNValueCounts:     d.countMap(l.nanCounts),
		LowerBounds:        d.boundMap(l.lower),
		UpperBounds:        d.boundMap(l.upper),
		KeyMetadata:        d.bytes(l.keyMetadata),
		SplitOffsets:       d.longs(l.splitOffsets),
		SpecID:             mf.SpecID,
		FirstRowID:         d.optLong(l.firstRowID),
		ReferencedDataFile: d.str(l.referenced, false),
		ContentOffset:      d.optLong(l.contentOffset),
		ContentSizeInBytes: d.optLong(l.contentSize),
	}
	if f.Content < FileContentData || f.Content > FileContentEqualityDeletes {
		d.fail(fmt.Sprintf("data_file content %d", f.Content))
	}
	if f.RecordCount < 0 || f.FileSize < 0 {
		d.fail("data_file lacks record_count or file_size_in_bytes")
	}
	for _, id := range d.longs(l.equalityIDs) {
		f.EqualityIDs = append(f.EqualityIDs, int(id))
	}
	if id := d.optLong(l.sortOrderID); id != nil {
		n := int(*id)
		f.SortOrderID = &n
	}
	if d.err != nil {
		return f, d.err
	}
	pv, _ := d.get(l.partition)
	prec, _ := pv.(map[string]any)
	f.Partition = make([]any, len(l.partFields))
	for i, sl := range l.partFields {
		v, s, err := sl.get(prec)
		if err == nil {
			f.Partition[i], err = avroLiteral(v, s, l.partTypes[i])
		}
		if err != nil {
			return f, fmt.Errorf("partition field %d (%s): %w", i, sl.name, err)
		}
	}
	return f, nil
}

// ManifestMetadata returns the key/value metadata of a manifest's Avro
// header ("schema", "partition-spec", "partition-spec-id", "format-version",
// "content", and Avro's own "avro.schema" and "avro.codec"). It decodes no
// further than the header.
func ManifestMetadata(r io.Reader) (map[string]string, error) {
	c, err := openAvroContainer(r)
	if err != nil {
		return nil, err
	}
	return c.metadata(), nil
}
