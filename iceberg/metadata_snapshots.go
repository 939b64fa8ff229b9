package iceberg

import (
	"slices"
	"strings"
)

// A table that commits often keeps thousands of snapshots, and they are
// most of its metadata file (a thousand appends by Iceberg Java make 800 KB,
// 98% of it snapshots); their summaries alone are fifteen strings each. A
// generic decoder allocates every one of those strings and spends most of a
// cold table load on them, so the snapshots and the logs have their own
// decoder here: it reads the file's text once and hands out strings that
// share it; each summary stays text until asked for (see Summary). It
// reads them as encoding/json would read them into the
// structs: unknown keys are ignored, keys match case-insensitively when no
// key matches exactly, and null leaves a value unset.

// bulkMembers are the long arrays of a metadata file, decoded here rather
// than by the generic decoder; found tells which the file has.
type bulkMembers struct {
	snapshots   []Snapshot
	snapshotLog []SnapshotLogEntry
	metadataLog []MetadataLogEntry
	found       struct{ snapshots, snapshotLog, metadataLog bool }
}

// splitBulk cuts the snapshots and the snapshot and metadata logs out of a
// metadata file's text: it returns the file's other members as a JSON
// object, for a generic decoder, and those arrays, decoded. On an error the
// caller decodes the whole text generically instead, which reports it as
// that decoder does.
func splitBulk(text string) (rest []byte, bulk bulkMembers, err error) {
	d := jsonText{s: text}
	if d.peek() != '{' {
		return nil, bulk, d.errorf("expected an object")
	}
	d.pos++
	rest = make([]byte, 0, 8192)
	rest = append(rest, '{')
	for i := 0; d.peek() != '}'; i++ {
		if i > 0 {
			if d.peek() != ',' {
				return nil, bulk, d.errorf("expected ',' or '}'")
			}
			d.pos++
		}
		d.space()
		start := d.pos
		key, err := d.str()
		if err != nil {
			return nil, bulk, err
		}
		if d.peek() != ':' {
			return nil, bulk, d.errorf("expected ':'")
		}
		d.pos++
		switch foldKey(key, "snapshots", "snapshot-log", "metadata-log") {
		case "snapshots":
			bulk.snapshots, err = d.snapshots()
			bulk.found.snapshots = true
		case "snapshot-log":
			bulk.snapshotLog, err = d.snapshotLog()
			bulk.found.snapshotLog = true
		case "metadata-log":
			bulk.metadataLog, err = d.metadataLog()
			bulk.found.metadataLog = true
		default:
			if err = d.skip(); err == nil {
				if len(rest) > 1 {
					rest = append(rest, ',')
				}
				rest = append(rest, d.s[start:d.pos]...)
			}
		}
		if err != nil {
			return nil, bulk, err
		}
	}
	d.pos++
	d.space()
	if d.pos < len(d.s) {
		return nil, bulk, d.errorf("data after the metadata object")
	}
	return append(rest, '}'), bulk, nil
}

// snapshotLog reads the snapshot-log array.
func (d *jsonText) snapshotLog() ([]SnapshotLogEntry, error) {
	if d.null() {
		return nil, nil
	}
	out := []SnapshotLogEntry{}
	err := d.each('[', func(string) error {
		out = append(out, SnapshotLogEntry{})
		e := &out[len(out)-1]
		if d.null() {
			return nil
		}
		return d.each('{', func(key string) error {
			switch foldKey(key, "timestamp-ms", "snapshot-id") {
			case "timestamp-ms":
				return d.long(&e.TimestampMs)
			case "snapshot-id":
				return d.long(&e.SnapshotID)
			}
			return d.skip()
		})
	})
	return out, err
}

// metadataLog reads the metadata-log array.
func (d *jsonText) metadataLog() ([]MetadataLogEntry, error) {
	if d.null() {
		return nil, nil
	}
	out := []MetadataLogEntry{}
	err := d.each('[', func(string) error {
		out = append(out, MetadataLogEntry{})
		e := &out[len(out)-1]
		if d.null() {
			return nil
		}
		return d.each('{', func(key string) error {
			switch foldKey(key, "timestamp-ms", "metadata-file") {
			case "timestamp-ms":
				return d.long(&e.TimestampMs)
			case "metadata-file":
				return d.string(&e.MetadataFile)
			}
			return d.skip()
		})
	})
	return out, err
}

// foldKey returns the name among names that key spells, exactly or else
// without regard to case (encoding/json's rule), or key itself.
func foldKey(key string, names ...string) string {
	for _, name := range names {
		if key == name {
			return name
		}
	}
	for _, name := range names {
		if strings.EqualFold(key, name) {
			return name
		}
	}
	return key
}

// snapshotKeys are the keys of a snapshot object, in Snapshot's tags.
var snapshotKeys = []string{"snapshot-id", "parent-snapshot-id", "sequence-number", "timestamp-ms",
	"manifest-list", "manifests", "summary", "schema-id", "first-row-id", "added-rows"}

// Bounds of the guess at a snapshots array's length: a snapshot takes at
// least minSnapshotText bytes of text, and no guess goes beyond
// maxSnapshotHint snapshots.
const (
	minSnapshotText = 64
	maxSnapshotHint = 1 << 16
)

// snapshots reads the array of snapshots.
func (d *jsonText) snapshots() ([]Snapshot, error) {
	if d.null() {
		return nil, nil
	}
	out := []Snapshot{}
	var longs []int64 // the optional numbers share allocations
	optional := func() (*int64, error) {
		if d.null() {
			return nil, nil
		}
		v, err := d.int()
		if err != nil {
			return nil, err
		}
		if len(longs) == cap(longs) {
			longs = make([]int64, 0, 256)
		}
		longs = append(longs, v)
		return &longs[len(longs)-1], nil
	}
	var ints []int // the schema ids share allocations too
	first := -1
	err := d.each('[', func(string) error {
		if len(out) == 1 {
			// Size the array by the first snapshot's length in the text:
			// growing it by doubling would allocate twice its size over
			// again, and a thousand snapshots take 100 KB.
			out = slices.Grow(out, min((len(d.s)-d.pos)/max(d.pos-first, minSnapshotText), maxSnapshotHint))
		}
		first = d.pos
		out = append(out, Snapshot{})
		s := &out[len(out)-1]
		if d.null() {
			return nil
		}
		return d.each('{', func(key string) error {
			var err error
			switch foldKey(key, snapshotKeys...) {
			case "snapshot-id":
				err = d.long(&s.SnapshotID)
			case "parent-snapshot-id":
				s.ParentSnapshotID, err = optional()
			case "sequence-number":
				err = d.long(&s.SequenceNumber)
			case "timestamp-ms":
				err = d.long(&s.TimestampMs)
			case "manifest-list":
				err = d.string(&s.ManifestList)
			case "manifests":
				s.Manifests, err = d.strings()
			case "summary":
				s.Summary, err = d.summary()
			case "schema-id":
				var id *int64
				if id, err = optional(); id != nil {
					if int64(int(*id)) != *id {
						return d.errorf("schema-id %d out of range", *id)
					}
					if len(ints) == cap(ints) {
						ints = make([]int, 0, 256)
					}
					ints = append(ints, int(*id))
					s.SchemaID = &ints[len(ints)-1]
				} else {
					s.SchemaID = nil
				}
			case "first-row-id":
				s.FirstRowID, err = optional()
			case "added-rows":
				s.AddedRows, err = optional()
			default:
				err = d.skip()
			}
			return err
		})
	})
	return out, err
}
