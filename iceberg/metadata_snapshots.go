package iceberg

import (
	"slices"
	"strings"

	"github.com/iceflight/iceflight/internal/panics"
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

// parallelSnapshotsText is the length of text, from the snapshots array on,
// from which its second half is read on another goroutine: a table with a
// long history spends most of a cold load reading its snapshots, and a
// half takes far longer than starting a goroutine.
const parallelSnapshotsText = 128 << 10

// snapshots reads the array of snapshots.
func (d *jsonText) snapshots() ([]Snapshot, error) {
	if d.null() {
		return nil, nil
	}
	if d.peek() != '[' {
		return nil, d.errorf("expected '['")
	}
	d.pos++
	if d.peek() == ']' {
		d.pos++
		return []Snapshot{}, nil
	}
	split := -1
	if len(d.s)-d.pos >= parallelSnapshotsText {
		split = snapshotSplit(d.s, d.pos)
	}
	if split < 0 {
		var r snapshotReader
		out, _, err := r.elements(d, -1)
		return out, err
	}
	// The second half starts at what looks like a snapshot's start. It is
	// one only if the first half, read in order, ends an element exactly
	// there; otherwise the guess fell inside a string or past the array,
	// and the first half reads on as if there had been no split.
	type half struct {
		snaps []Snapshot
		end   int
		err   error
	}
	second := make(chan half, 1)
	go func() {
		// A panic here would end the process: it comes back as the
		// half's error, and the first half then reads on in order.
		var h half
		defer func() { second <- h }()
		defer panics.Recover(&h.err, "read snapshots")
		var r snapshotReader
		d2 := jsonText{s: d.s, pos: split + 1}
		h.snaps, _, h.err = r.elements(&d2, -1)
		h.end = d2.pos
	}()
	var r snapshotReader
	out, stopped, err := r.elements(d, split)
	h := <-second
	if err != nil || !stopped {
		return out, err
	}
	if h.err == nil {
		d.pos = h.end
		return append(out, h.snaps...), nil
	}
	// The second half met an error: read on from the split in order, so
	// that the error and its offset are the ones a reading in order gives.
	d.pos++
	rest, _, err := r.elements(d, -1)
	return append(out, rest...), err
}

// snapshotSplit returns the offset of what may be the comma between two
// snapshots near the middle of s[from:], as writers lay them out (no white
// space), or -1 when there is none to be found nearby.
func snapshotSplit(s string, from int) int {
	const sep = `},{"`
	mid := from + (len(s)-from)*9/20 // the logs that follow the array take some of the rest
	i := strings.Index(s[mid:min(len(s), mid+64<<10)], sep)
	if i < 0 {
		return -1
	}
	return mid + i + 1
}

// snapshotReader reads snapshot objects; their optional numbers share
// allocations.
type snapshotReader struct {
	longs []int64
	ints  []int
}

// elements reads the elements of a snapshots array from d, which is at the
// start of one, to the array's end. When stopAt is the offset of the comma
// after an element, it stops there instead, with d at that comma, and
// reports that it stopped.
func (r *snapshotReader) elements(d *jsonText, stopAt int) (out []Snapshot, stopped bool, err error) {
	out = []Snapshot{}
	first := d.pos
	for {
		if len(out) == 1 {
			// Size the array by the first snapshot's length in the text:
			// growing it by doubling would allocate twice its size over
			// again, and a thousand snapshots take 100 KB.
			out = slices.Grow(out, min((len(d.s)-d.pos)/max(d.pos-first, minSnapshotText), maxSnapshotHint))
		}
		out = append(out, Snapshot{})
		if err := r.snapshot(d, &out[len(out)-1]); err != nil {
			return out, false, err
		}
		switch d.peek() {
		case ',':
			if d.pos == stopAt {
				return out, true, nil
			}
			d.pos++
		case ']':
			d.pos++
			return out, false, nil
		default:
			return out, false, d.errorf("expected ',' or ']'")
		}
	}
}

// snapshot reads one snapshot object into s; null leaves s zero.
func (r *snapshotReader) snapshot(d *jsonText, s *Snapshot) error {
	if d.null() {
		return nil
	}
	return d.each('{', func(key string) error {
		var err error
		switch foldKey(key, snapshotKeys...) {
		case "snapshot-id":
			err = d.long(&s.SnapshotID)
		case "parent-snapshot-id":
			s.ParentSnapshotID, err = r.optional(d)
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
			if id, err = r.optional(d); id != nil {
				if int64(int(*id)) != *id {
					return d.errorf("schema-id %d out of range", *id)
				}
				if len(r.ints) == cap(r.ints) {
					r.ints = make([]int, 0, 256)
				}
				r.ints = append(r.ints, int(*id))
				s.SchemaID = &r.ints[len(r.ints)-1]
			} else {
				s.SchemaID = nil
			}
		case "first-row-id":
			s.FirstRowID, err = r.optional(d)
		case "added-rows":
			s.AddedRows, err = r.optional(d)
		default:
			err = d.skip()
		}
		return err
	})
}

// optional reads an integer that may be null (nil).
func (r *snapshotReader) optional(d *jsonText) (*int64, error) {
	if d.null() {
		return nil, nil
	}
	v, err := d.int()
	if err != nil {
		return nil, err
	}
	if len(r.longs) == cap(r.longs) {
		r.longs = make([]int64, 0, 256)
	}
	r.longs = append(r.longs, v)
	return &r.longs[len(r.longs)-1], nil
}
