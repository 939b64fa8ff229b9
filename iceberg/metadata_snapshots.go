package iceberg

import (
	"slices"
	"strings"

	"github.com/iceflight/iceflight/internal/jsontext"
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
	d := jsontext.Scanner{Text: text}
	if d.Peek() != '{' {
		return nil, bulk, d.Errorf("expected an object")
	}
	d.Pos++
	rest = make([]byte, 0, 8192)
	rest = append(rest, '{')
	for i := 0; d.Peek() != '}'; i++ {
		if i > 0 {
			if d.Peek() != ',' {
				return nil, bulk, d.Errorf("expected ',' or '}'")
			}
			d.Pos++
		}
		d.Space()
		start := d.Pos
		key, err := d.Str()
		if err != nil {
			return nil, bulk, err
		}
		if d.Peek() != ':' {
			return nil, bulk, d.Errorf("expected ':'")
		}
		d.Pos++
		switch jsontext.FoldKey(key, "snapshots", "snapshot-log", "metadata-log") {
		case "snapshots":
			bulk.snapshots, err = readSnapshots(&d)
			bulk.found.snapshots = true
		case "snapshot-log":
			bulk.snapshotLog, err = readSnapshotLog(&d)
			bulk.found.snapshotLog = true
		case "metadata-log":
			bulk.metadataLog, err = readMetadataLog(&d)
			bulk.found.metadataLog = true
		default:
			if err = d.Skip(); err == nil {
				if len(rest) > 1 {
					rest = append(rest, ',')
				}
				rest = append(rest, d.Text[start:d.Pos]...)
			}
		}
		if err != nil {
			return nil, bulk, err
		}
	}
	d.Pos++
	d.Space()
	if d.Pos < len(d.Text) {
		return nil, bulk, d.Errorf("data after the metadata object")
	}
	return append(rest, '}'), bulk, nil
}

// snapshotLog reads the snapshot-log array.
func readSnapshotLog(d *jsontext.Scanner) ([]SnapshotLogEntry, error) {
	if d.Null() {
		return nil, nil
	}
	out := []SnapshotLogEntry{}
	err := d.Each('[', func(string) error {
		out = append(out, SnapshotLogEntry{})
		e := &out[len(out)-1]
		if d.Null() {
			return nil
		}
		return d.Each('{', func(key string) error {
			switch jsontext.FoldKey(key, "timestamp-ms", "snapshot-id") {
			case "timestamp-ms":
				return d.LongOrNull(&e.TimestampMs)
			case "snapshot-id":
				return d.LongOrNull(&e.SnapshotID)
			}
			return d.Skip()
		})
	})
	return out, err
}

// metadataLog reads the metadata-log array.
func readMetadataLog(d *jsontext.Scanner) ([]MetadataLogEntry, error) {
	if d.Null() {
		return nil, nil
	}
	out := []MetadataLogEntry{}
	err := d.Each('[', func(string) error {
		out = append(out, MetadataLogEntry{})
		e := &out[len(out)-1]
		if d.Null() {
			return nil
		}
		return d.Each('{', func(key string) error {
			switch jsontext.FoldKey(key, "timestamp-ms", "metadata-file") {
			case "timestamp-ms":
				return d.LongOrNull(&e.TimestampMs)
			case "metadata-file":
				return d.StringOrNull(&e.MetadataFile)
			}
			return d.Skip()
		})
	})
	return out, err
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
func readSnapshots(d *jsontext.Scanner) ([]Snapshot, error) {
	if d.Null() {
		return nil, nil
	}
	if d.Peek() != '[' {
		return nil, d.Errorf("expected '['")
	}
	d.Pos++
	if d.Peek() == ']' {
		d.Pos++
		return []Snapshot{}, nil
	}
	split := -1
	if len(d.Text)-d.Pos >= parallelSnapshotsText {
		split = snapshotSplit(d.Text, d.Pos)
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
		d2 := jsontext.Scanner{Text: d.Text, Pos: split + 1}
		h.snaps, _, h.err = r.elements(&d2, -1)
		h.end = d2.Pos
	}()
	var r snapshotReader
	out, stopped, err := r.elements(d, split)
	h := <-second
	if err != nil || !stopped {
		return out, err
	}
	if h.err == nil {
		d.Pos = h.end
		return append(out, h.snaps...), nil
	}
	// The second half met an error: read on from the split in order, so
	// that the error and its offset are the ones a reading in order gives.
	d.Pos++
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
func (r *snapshotReader) elements(d *jsontext.Scanner, stopAt int) (out []Snapshot, stopped bool, err error) {
	out = []Snapshot{}
	first := d.Pos
	for {
		if len(out) == 1 {
			// Size the array by the first snapshot's length in the text:
			// growing it by doubling would allocate twice its size over
			// again, and a thousand snapshots take 100 KB.
			out = slices.Grow(out, min((len(d.Text)-d.Pos)/max(d.Pos-first, minSnapshotText), maxSnapshotHint))
		}
		out = append(out, Snapshot{})
		if err := r.snapshot(d, &out[len(out)-1]); err != nil {
			return out, false, err
		}
		switch d.Peek() {
		case ',':
			if d.Pos == stopAt {
				return out, true, nil
			}
			d.Pos++
		case ']':
			d.Pos++
			return out, false, nil
		default:
			return out, false, d.Errorf("expected ',' or ']'")
		}
	}
}

// snapshot reads one snapshot object into s; null leaves s zero.
func (r *snapshotReader) snapshot(d *jsontext.Scanner, s *Snapshot) error {
	if d.Null() {
		return nil
	}
	return d.Each('{', func(key string) error {
		var err error
		switch jsontext.FoldKey(key, snapshotKeys...) {
		case "snapshot-id":
			err = d.LongOrNull(&s.SnapshotID)
		case "parent-snapshot-id":
			s.ParentSnapshotID, err = r.optional(d)
		case "sequence-number":
			err = d.LongOrNull(&s.SequenceNumber)
		case "timestamp-ms":
			err = d.LongOrNull(&s.TimestampMs)
		case "manifest-list":
			err = d.StringOrNull(&s.ManifestList)
		case "manifests":
			s.Manifests, err = d.Strings()
		case "summary":
			s.Summary, err = readSummary(d)
		case "schema-id":
			var id *int64
			if id, err = r.optional(d); id != nil {
				if int64(int(*id)) != *id {
					return d.Errorf("schema-id %d out of range", *id)
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
			err = d.Skip()
		}
		return err
	})
}

// optional reads an integer that may be null (nil).
func (r *snapshotReader) optional(d *jsontext.Scanner) (*int64, error) {
	if d.Null() {
		return nil, nil
	}
	v, err := d.Int()
	if err != nil {
		return nil, err
	}
	if len(r.longs) == cap(r.longs) {
		r.longs = make([]int64, 0, 256)
	}
	r.longs = append(r.longs, v)
	return &r.longs[len(r.longs)-1], nil
}
