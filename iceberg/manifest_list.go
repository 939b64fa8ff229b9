package iceberg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ManifestContent is the kind of files a manifest tracks.
type ManifestContent int

// Manifest contents, as the manifest list's content field encodes them.
const (
	ManifestContentData    ManifestContent = 0
	ManifestContentDeletes ManifestContent = 1
)

// String returns the content as the manifest header names it ("data", "deletes").
func (c ManifestContent) String() string {
	switch c {
	case ManifestContentData:
		return "data"
	case ManifestContentDeletes:
		return "deletes"
	}
	return "content(" + strconv.Itoa(int(c)) + ")"
}

// FieldSummary summarizes one partition field's values across a manifest.
// Bounds are in the single-value binary serialization of the partition
// field's type; nil when absent.
type FieldSummary struct {
	ContainsNull bool
	// ContainsNaN is nil when the writer did not record it.
	ContainsNaN            *bool
	LowerBound, UpperBound []byte
}

// ManifestFile is one entry of a manifest list: a manifest and its summary.
type ManifestFile struct {
	Path   string
	Length int64
	SpecID int
	// Content is data or deletes; always data in v1.
	Content ManifestContent
	// SequenceNumber is the sequence number of the commit that added the
	// manifest; MinSequenceNumber the lowest data sequence number of its live
	// files. Both are 0 in v1 manifest lists.
	SequenceNumber, MinSequenceNumber int64
	AddedSnapshotID                   int64
	// File and row counts by entry status; -1 when absent (optional in v1).
	AddedFilesCount, ExistingFilesCount, DeletedFilesCount int64
	AddedRowsCount, ExistingRowsCount, DeletedRowsCount    int64
	// Partitions has one summary per field of the manifest's partition spec.
	Partitions  []FieldSummary
	KeyMetadata []byte
	// FirstRowID is the v3 row-lineage start for the manifest's data files
	// that inherit one; nil for delete manifests and before v3.
	FirstRowID *int64
}

// HasAddedFiles reports whether the manifest may hold ADDED entries (an
// absent count may be non-zero).
func (m ManifestFile) HasAddedFiles() bool { return m.AddedFilesCount != 0 }

// HasExistingFiles reports whether the manifest may hold EXISTING entries.
func (m ManifestFile) HasExistingFiles() bool { return m.ExistingFilesCount != 0 }

// manifestListLayout resolves the fields of a manifest list's manifest_file
// record, by field id with the spec's names (and older writers' names) as a
// fallback.
type manifestListLayout struct {
	path, length, specID, content, seq, minSeq, snapshotID  avroSlot
	added, existing, deleted, addedRows, existRows, delRows avroSlot
	partitions, keyMetadata, firstRowID                     avroSlot
	containsNull, containsNaN, lowerBound, upperBound       avroSlot
}

func newManifestListLayout(s *avroSchema) (*manifestListLayout, error) {
	if s.kind != "record" {
		return nil, fmt.Errorf("%w: manifest list schema is %s, not a record", ErrInvalidMetadata, s.kind)
	}
	l := &manifestListLayout{
		path:        s.slot(500, "manifest_path"),
		length:      s.slot(501, "manifest_length"),
		specID:      s.slot(502, "partition_spec_id"),
		snapshotID:  s.slot(503, "added_snapshot_id"),
		added:       s.slot(504, "added_files_count", "added_data_files_count"),
		existing:    s.slot(505, "existing_files_count", "existing_data_files_count"),
		deleted:     s.slot(506, "deleted_files_count", "deleted_data_files_count"),
		partitions:  s.slot(507, "partitions"),
		addedRows:   s.slot(512, "added_rows_count"),
		existRows:   s.slot(513, "existing_rows_count"),
		delRows:     s.slot(514, "deleted_rows_count"),
		seq:         s.slot(515, "sequence_number"),
		minSeq:      s.slot(516, "min_sequence_number"),
		content:     s.slot(517, "content"),
		keyMetadata: s.slot(519, "key_metadata"),
		firstRowID:  s.slot(520, "first_row_id"),
	}
	if !l.path.present() || !l.specID.present() {
		return nil, fmt.Errorf("%w: manifest list schema lacks manifest_path or partition_spec_id", ErrInvalidMetadata)
	}
	if l.partitions.present() {
		summary := avroElement(l.partitions.typ)
		l.containsNull = summary.slot(509, "contains_null")
		l.containsNaN = summary.slot(518, "contains_nan")
		l.lowerBound = summary.slot(510, "lower_bound")
		l.upperBound = summary.slot(511, "upper_bound")
	}
	return l, nil
}

// avroElement returns the item schema of an array, looking through a
// nullable union.
func avroElement(s *avroSchema) *avroSchema {
	if s.kind == "union" {
		for _, b := range s.branches {
			if b.kind == "array" {
				return b.items
			}
		}
	}
	if s.kind == "array" {
		return s.items
	}
	return nil
}

// ReadManifestList decodes a manifest list (v1, v2 or v3).
//
// Spec (Manifest Lists): sequence numbers are 0 when reading v1 manifest
// lists (formatVersion 1, or a list whose own "format-version" is 1, as in a
// table upgraded from v1). In a v2+ list, an entry whose sequence_number or
// min_sequence_number is absent or null inherits the snapshot's sequence
// number, and a null added_snapshot_id the snapshot's id; snapshot may be
// nil when nothing needs inheriting. Errors wrap ErrInvalidMetadata and name
// the entry; the caller names the file.
func ReadManifestList(r io.Reader, formatVersion int, snapshot *Snapshot) ([]ManifestFile, error) {
	c, err := openAvroContainer(r)
	if err == nil {
		err = c.prepare()
	}
	if err != nil {
		return nil, err
	}
	layout, err := newManifestListLayout(c.schema)
	if err != nil {
		return nil, err
	}
	v1 := formatVersion <= 1 || string(c.meta["format-version"]) == "1"
	var out []ManifestFile
	for i := 0; ; i++ {
		v, err := c.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("manifest list entry %d: %w", i, err)
		}
		mf, err := layout.decode(v, v1, snapshot)
		if err != nil {
			return nil, fmt.Errorf("manifest list entry %d: %w", i, err)
		}
		out = append(out, mf)
	}
}

func (l *manifestListLayout) decode(v any, v1 bool, snapshot *Snapshot) (ManifestFile, error) {
	rec, err := avroRecord(v)
	if err != nil {
		return ManifestFile{}, err
	}
	d := avroDecoder{rec: rec}
	mf := ManifestFile{
		Path:               d.str(l.path, true),
		Length:             d.long(l.length, -1),
		SpecID:             int(d.long(l.specID, 0)),
		Content:            ManifestContent(d.long(l.content, 0)),
		AddedFilesCount:    d.long(l.added, -1),
		ExistingFilesCount: d.long(l.existing, -1),
		DeletedFilesCount:  d.long(l.deleted, -1),
		AddedRowsCount:     d.long(l.addedRows, -1),
		ExistingRowsCount:  d.long(l.existRows, -1),
		DeletedRowsCount:   d.long(l.delRows, -1),
		KeyMetadata:        d.bytes(l.keyMetadata),
		FirstRowID:         d.optLong(l.firstRowID),
	}
	if id := d.optLong(l.snapshotID); id != nil {
		mf.AddedSnapshotID = *id
	} else if snapshot != nil {
		mf.AddedSnapshotID = snapshot.SnapshotID
	} else {
		d.fail("added_snapshot_id is null and there is no snapshot to inherit from")
	}
	if !v1 {
		inherit := func(sl avroSlot) int64 {
			if n := d.optLong(sl); n != nil {
				return *n
			}
			if snapshot == nil {
				d.fail(sl.name + " is absent and there is no snapshot to inherit from")
				return 0
			}
			return snapshot.SequenceNumber
		}
		mf.SequenceNumber = inherit(l.seq)
		if l.minSeq.present() {
			mf.MinSequenceNumber = inherit(l.minSeq)
		} else {
			mf.MinSequenceNumber = mf.SequenceNumber
		}
	}
	if mf.Content != ManifestContentData && mf.Content != ManifestContentDeletes {
		d.fail(fmt.Sprintf("content %d is neither data (0) nor deletes (1)", mf.Content))
	}
	if pv, _, err := l.partitions.get(rec); err != nil {
		d.err = errors.Join(d.err, err)
	} else if pv != nil {
		items, ok := pv.([]any)
		if !ok {
			d.fail(fmt.Sprintf("partitions is %T", pv))
		}
		for _, item := range items {
			srec, err := avroRecord(item)
			if err != nil {
				d.err = errors.Join(d.err, err)
				break
			}
			sd := avroDecoder{rec: srec}
			fs := FieldSummary{
				ContainsNull: sd.boolean(l.containsNull),
				LowerBound:   sd.bytes(l.lowerBound),
				UpperBound:   sd.bytes(l.upperBound),
			}
			if nan, _, _ := l.containsNaN.get(srec); nan != nil {
				b, _ := nan.(bool)
				fs.ContainsNaN = &b
			}
			mf.Partitions = append(mf.Partitions, fs)
			d.err = errors.Join(d.err, sd.err)
		}
	}
	return mf, d.err
}

// DataManifestsFromPaths builds the manifest files of a v1 snapshot that
// lists its manifests directly (the "manifests" field) rather than in a
// manifest list. open returns a manifest's bytes, which it reads only up to
// the end of the Avro header for the "partition-spec-id" (0 when absent, as
// in the oldest writers) and closes. Lengths and counts are unknown (-1);
// sequence numbers are 0, as for any v1 manifest.
func DataManifestsFromPaths(snapshot *Snapshot, open func(path string) (io.ReadCloser, error)) ([]ManifestFile, error) {
	out := make([]ManifestFile, 0, len(snapshot.Manifests))
	for _, p := range snapshot.Manifests {
		rc, err := open(p)
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", p, err)
		}
		meta, err := ManifestMetadata(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", p, err)
		}
		spec := 0
		if s, ok := meta["partition-spec-id"]; ok {
			if spec, err = strconv.Atoi(s); err != nil {
				return nil, fmt.Errorf("manifest %s: %w: partition-spec-id %q", p, ErrInvalidMetadata, s)
			}
		}
		out = append(out, ManifestFile{
			Path: p, Length: -1, SpecID: spec, Content: ManifestContentData,
			AddedSnapshotID: snapshot.SnapshotID,
			AddedFilesCount: -1, ExistingFilesCount: -1, DeletedFilesCount: -1,
			AddedRowsCount: -1, ExistingRowsCount: -1, DeletedRowsCount: -1,
		})
	}
	return out, nil
}

// avroDecoder reads typed fields of one record and keeps the first error,
// so a record decodes in straight-line code.
type avroDecoder struct {
	rec map[string]any
	err error
}

func (d *avroDecoder) fail(msg string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrInvalidMetadata, msg)
	}
}

func (d *avroDecoder) get(sl avroSlot) (any, *avroSchema) {
	v, s, err := sl.get(d.rec)
	if err != nil && d.err == nil {
		d.err = err
	}
	return v, s
}

// optLong returns an int or long field, nil when absent or null.
func (d *avroDecoder) optLong(sl avroSlot) *int64 {
	v, _ := d.get(sl)
	if v == nil {
		return nil
	}
	n, err := avroLong(v)
	if err != nil {
		d.fail(sl.name + ": " + err.Error())
		return nil
	}
	return &n
}

// long returns an int or long field, def when absent or null.
func (d *avroDecoder) long(sl avroSlot, def int64) int64 {
	if n := d.optLong(sl); n != nil {
		return *n
	}
	return def
}

// str returns a string field; a required one that is absent is an error.
func (d *avroDecoder) str(sl avroSlot, required bool) string {
	v, _ := d.get(sl)
	s, ok := v.(string)
	if !ok && (v != nil || required) {
		d.fail(fmt.Sprintf("%s: expected a string, got %T", sl.name, v))
	}
	return s
}

func (d *avroDecoder) boolean(sl avroSlot) bool {
	v, _ := d.get(sl)
	b, _ := v.(bool)
	return b
}

// bytes returns a copy of a bytes or fixed field (goavro's slices alias the
// decoded block), nil when absent or null.
func (d *avroDecoder) bytes(sl avroSlot) []byte {
	v, _ := d.get(sl)
	switch v := v.(type) {
	case []byte:
		return bytes.Clone(v)
	case nil:
		return nil
	}
	d.fail(fmt.Sprintf("%s: expected bytes, got %T", sl.name, v))
	return nil
}

// countMap reads a map<int, long> field (an Avro array of key/value records,
// or an Avro map with string keys); nil when absent or null.
func (d *avroDecoder) countMap(sl avroSlot) map[int]int64 {
	var out map[int]int64
	d.eachKeyValue(sl, func(k int, v any) {
		n, err := avroLong(v)
		if err != nil {
			d.fail(sl.name + ": " + err.Error())
		}
		if out == nil {
			out = map[int]int64{}
		}
		out[k] = n
	})
	return out
}

// boundMap reads a map<int, binary> field; nil when absent or null.
func (d *avroDecoder) boundMap(sl avroSlot) map[int][]byte {
	var out map[int][]byte
	d.eachKeyValue(sl, func(k int, v any) {
		b, ok := v.([]byte)
		if !ok {
			d.fail(fmt.Sprintf("%s: expected bytes, got %T", sl.name, v))
		}
		if out == nil {
			out = map[int][]byte{}
		}
		out[k] = bytes.Clone(b)
	})
	return out
}

func (d *avroDecoder) eachKeyValue(sl avroSlot, fn func(k int, v any)) {
	v, s := d.get(sl)
	if v == nil {
		return
	}
	switch {
	case s.kind == "array" && s.items != nil && s.items.kind == "record":
		items, _ := v.([]any)
		key, val := s.items.slot(-1, "key"), s.items.slot(-1, "value")
		if !key.present() || !val.present() {
			d.fail(sl.name + ": map entries lack key or value")
			return
		}
		for _, item := range items {
			rec, err := avroRecord(item)
			if err != nil {
				d.fail(sl.name + ": " + err.Error())
				return
			}
			kd := avroDecoder{rec: rec}
			k, vv := kd.long(key, 0), any(nil)
			vv, _ = kd.get(val)
			if d.err == nil {
				d.err = kd.err
			}
			fn(int(k), vv)
		}
	case s.kind == "map":
		m, _ := v.(map[string]any)
		for ks, vv := range m {
			k, err := strconv.Atoi(ks)
			if err != nil {
				d.fail(fmt.Sprintf("%s: map key %q is not a field id", sl.name, ks))
				return
			}
			uv, err := avroUnwrap(vv, s.values)
			if err != nil {
				d.fail(sl.name + ": " + err.Error())
				return
			}
			fn(k, uv.val)
		}
	default:
		d.fail(fmt.Sprintf("%s: expected a map, got Avro %s", sl.name, s.kind))
	}
}

// longs reads a list of ints or longs; nil when absent or null.
func (d *avroDecoder) longs(sl avroSlot) []int64 {
	v, s := d.get(sl)
	items, ok := v.([]any)
	if v == nil || !ok {
		if v != nil {
			d.fail(fmt.Sprintf("%s: expected a list, got %T", sl.name, v))
		}
		return nil
	}
	out := make([]int64, 0, len(items))
	for _, it := range items {
		uv, err := avroUnwrap(it, s.items)
		if err == nil {
			var n int64
			if n, err = avroLong(uv.val); err == nil {
				out = append(out, n)
				continue
			}
		}
		d.fail(sl.name + ": " + err.Error())
		return nil
	}
	return out
}
