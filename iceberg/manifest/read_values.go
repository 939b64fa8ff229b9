package manifest

import (
	"fmt"
	"math"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// This file holds the pieces that manifest and manifest list decoding share:
// resolving the writer's record fields by Iceberg field id or name, compiled
// record layouts, typed readers of single fields over Avro's binary
// encoding, and the arena that decoded values are copied into.

// fieldIndex finds a record field by field id, else by the first matching
// name; -1 when the record has no such field (or s is no record).
func fieldIndex(s *avro.Schema, id int, names ...string) int {
	if s == nil || s.Kind != avro.KindRecord {
		return -1
	}
	if id >= 0 {
		for i, f := range s.Fields {
			if f.ID() == id {
				return i
			}
		}
	}
	for _, n := range names {
		for i, f := range s.Fields {
			if f.Name == n {
				return i
			}
		}
	}
	return -1
}

// fieldOp is one field of the writer's record, in writer order, and the
// fields of our table it gives (by field id); a field that gives none is
// skipped. A field found for several (only in odd schemas) is decoded once
// for each.
type fieldOp struct {
	name string
	typ  *avro.Schema
	ids  []int     // the fields of fields.go it gives
	kv   *kvLayout // map-valued fields
}

// recordLayout is a compiled record: the operation for each of the writer's
// fields and which of our table's fields the writer has at all.
type recordLayout struct {
	ops     []fieldOp
	present idSet
}

// idSet is a set of the field ids of the tables of fields.go, all below
// 1024 (TestFieldTables).
type idSet [16]uint64

func (s *idSet) add(id int)      { s[id>>6&15] |= 1 << (id & 63) }
func (s *idSet) has(id int) bool { return id >= 0 && id < 1024 && s[id>>6]&(1<<(id&63)) != 0 }

// decode reads one record in writer order: a field that gives no field of
// ours is skipped, a field that gives several is read once for each from
// the same offset. fn must read or skip the value of the field with the
// given id. It stops at fn's first error, or after a field once the reader
// has failed (the reader keeps that error too).
func (l *recordLayout) decode(r *valueReader, fn func(op *fieldOp, id int) error) error {
	for i := range l.ops {
		op := &l.ops[i]
		if len(op.ids) == 0 {
			r.d.Skip(op.typ)
			continue
		}
		start := r.d.Offset()
		for j, id := range op.ids {
			if j > 0 {
				r.d.Seek(start)
			}
			if err := fn(op, id); err != nil {
				return err
			}
		}
		if !r.ok() {
			return r.failed()
		}
	}
	return nil
}

// compileRecord finds the fields of a table (fields.go) in record s, the
// writer's: by field id, else by name or alias.
func compileRecord(s *avro.Schema, table []field) *recordLayout {
	l := &recordLayout{}
	if s == nil || s.Kind != avro.KindRecord {
		return l
	}
	l.ops = make([]fieldOp, len(s.Fields))
	for i, f := range s.Fields {
		l.ops[i] = fieldOp{name: f.Name, typ: f.Type}
	}
	for _, f := range table {
		if l.present.has(f.id) {
			continue // a field the table has in two places (manifest_file's partitions)
		}
		if i := fieldIndex(s, f.id, f.names()...); i >= 0 {
			l.ops[i].ids = append(l.ops[i].ids, f.id)
			l.present.add(f.id)
		}
	}
	return l
}

// field returns the writer's field of a field id, or nil.
func (l *recordLayout) field(id int) *fieldOp {
	for i := range l.ops {
		for _, t := range l.ops[i].ids {
			if t == id {
				return &l.ops[i]
			}
		}
	}
	return nil
}

// valueReader reads typed fields of records over an Avro decoder. Damaged
// bytes are the decoder's error; values that do not fit the Iceberg field
// (a string where a long belongs, a null where a value is required) are
// the reader's, the first one kept, so a record decodes in straight-line
// code and is checked once.
type valueReader struct {
	d     avro.Decoder
	err   error
	arena avroArena
	// metrics are the columns whose metric map entries are kept; the
	// others are read and checked, then dropped.
	metrics iceberg.MetricColumns
	// countBuf and boundBuf gather one metric map's kept entries before
	// they are ordered and copied into the arena; reused map after map.
	countBuf []iceberg.ColumnCount
	boundBuf []iceberg.ColumnBound
}

func (r *valueReader) fail(msg string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", iceberg.ErrInvalidMetadata, msg)
	}
}

// failed reports the first error, damaged bytes first.
func (r *valueReader) failed() error {
	if err := r.d.Err(); err != nil {
		return fmt.Errorf("%w: %v", iceberg.ErrInvalidMetadata, err)
	}
	return r.err
}

// ok reports whether no error has been met.
func (r *valueReader) ok() bool { return r.err == nil && r.d.Err() == nil }

// branch resolves a union to the branch the value takes; nil on damage.
func (r *valueReader) branch(s *avro.Schema) *avro.Schema {
	if s.Kind == avro.KindUnion {
		return r.d.Union(s)
	}
	return s
}

// mismatch skips a value of an unexpected type and records the error.
func (r *valueReader) mismatch(s *avro.Schema, name, want string) {
	r.d.Skip(s)
	r.fail(fmt.Sprintf("%s: expected %s, got Avro %s", name, want, s.Type))
}

// optLong reads an int or long; ok is false for a null.
func (r *valueReader) optLong(s *avro.Schema, name string) (v int64, ok bool) {
	s = r.branch(s)
	switch {
	case s == nil || s.Kind == avro.KindNull:
		return 0, false
	case s.Kind == avro.KindLong:
		return r.d.Long(), true
	case s.Kind == avro.KindInt:
		return int64(r.d.Int()), true
	}
	r.mismatch(s, name, "an int or long")
	return 0, false
}

// strBytes reads a string (or an enum's symbol); ok is false for a null.
// The bytes alias the block.
func (r *valueReader) strBytes(s *avro.Schema, name string) (b []byte, ok bool) {
	s = r.branch(s)
	switch {
	case s == nil || s.Kind == avro.KindNull:
		return nil, false
	case s.Kind == avro.KindString:
		return r.d.Bytes(), true
	case s.Kind == avro.KindEnum:
		i := r.d.Long()
		if i < 0 || i >= int64(len(s.Symbols)) {
			r.d.Fail(fmt.Errorf("enum symbol %d of %d", i, len(s.Symbols)))
			return nil, false
		}
		return []byte(s.Symbols[i]), true
	}
	r.mismatch(s, name, "a string")
	return nil, false
}

// str reads a string field; a null in a required one is an error.
func (r *valueReader) str(s *avro.Schema, name string, required bool) string {
	b, ok := r.strBytes(s, name)
	if !ok && required && r.ok() {
		r.fail(name + ": expected a string, got null")
	}
	return string(b)
}

// rawBytes reads a bytes or fixed value, aliasing the block; ok is false
// for a null.
func (r *valueReader) rawBytes(s *avro.Schema, name string) (b []byte, ok bool) {
	s = r.branch(s)
	switch {
	case s == nil || s.Kind == avro.KindNull:
		return nil, false
	case s.Kind == avro.KindBytes:
		return r.d.Bytes(), true
	case s.Kind == avro.KindFixed:
		return r.d.Fixed(s.Size), true
	}
	r.mismatch(s, name, "bytes")
	return nil, false
}

// bytes reads a bytes or fixed field into the arena; nil for a null.
func (r *valueReader) bytes(s *avro.Schema, name string) []byte {
	b, ok := r.rawBytes(s, name)
	if !ok || !r.ok() {
		return nil
	}
	return r.arena.copy(b)
}

// boolean reads a boolean field; false for a null or another type.
func (r *valueReader) boolean(s *avro.Schema) (v, ok bool) {
	s = r.branch(s)
	switch {
	case s == nil || s.Kind == avro.KindNull:
		return false, false
	case s.Kind == avro.KindBoolean:
		return r.d.Boolean(), true
	}
	r.d.Skip(s)
	return false, true
}

// longs reads a list of ints or longs; nil for a null.
func (r *valueReader) longs(s *avro.Schema, name string) []int64 {
	s = r.branch(s)
	switch {
	case s == nil || s.Kind == avro.KindNull:
		return nil
	case s.Kind != avro.KindArray:
		r.mismatch(s, name, "a list")
		return nil
	}
	var out []int64
	for n := r.d.BlockCount(); n > 0; n = r.d.BlockCount() {
		at := len(out)
		out = r.arena.growLongs(out, int(n))
		for i := range int(n) {
			v, ok := r.optLong(s.Items, name)
			if !ok && r.ok() {
				r.fail(name + ": expected an int or long, got null")
			}
			if !r.ok() {
				return nil
			}
			out[at+i] = v
		}
	}
	if out == nil && r.ok() {
		out = r.arena.growLongs(nil, 0)
	}
	return out
}

// avroArena holds the bytes and numbers of decoded entries in a few large
// allocations rather than one per value. Slices handed out have their
// capacity cut to their length, so appending to one never overwrites the
// next.
type avroArena struct {
	bytes []byte
	longs []int64
	ints  []int
	// Column metrics of manifest entries.
	colCounts []iceberg.ColumnCount
	colBounds []iceberg.ColumnBound
	// What manifest lists hold: their entries' partition field summaries,
	// contains_nan flags and paths.
	summaries []iceberg.FieldSummary
	bools     []bool
	strs      strings.Builder
}

const arenaChunk = 4 << 10

// copy returns a copy of b in the arena; an empty b gives an empty,
// non-nil slice.
func (a *avroArena) copy(b []byte) []byte {
	if a.bytes == nil || len(b) > cap(a.bytes)-len(a.bytes) {
		a.bytes = make([]byte, 0, max(len(b), arenaChunk))
	}
	at := len(a.bytes)
	a.bytes = append(a.bytes, b...)
	return a.bytes[at:len(a.bytes):len(a.bytes)]
}

// growLongs returns s extended by n zeros. A nil s starts in the arena;
// a slice that outgrows its place moves to a new one.
func (a *avroArena) growLongs(s []int64, n int) []int64 {
	if n > math.MaxInt32 {
		n = math.MaxInt32
	}
	need := len(s) + n
	if s != nil && need <= cap(s) {
		return s[:need]
	}
	if a.longs == nil || need > cap(a.longs)-len(a.longs) {
		a.longs = make([]int64, 0, max(need, arenaChunk/8))
	}
	at := len(a.longs)
	a.longs = append(a.longs, s...)
	a.longs = a.longs[:at+need]
	return a.longs[at : at+need : at+need]
}

// long returns a pointer to v, held in the arena.
func (a *avroArena) long(v int64) *int64 {
	s := a.growLongs(nil, 1)
	s[0] = v
	return &s[0]
}

// int returns a pointer to v, held in the arena.
func (a *avroArena) int(v int) *int {
	if len(a.ints) == cap(a.ints) {
		a.ints = make([]int, 0, arenaChunk/8)
	}
	a.ints = append(a.ints, v)
	return &a.ints[len(a.ints)-1]
}

// noCounts and noBounds are the metrics of a map present but empty (or
// holding no kept column), shared since metrics are read-only.
var (
	noCounts = iceberg.ColumnCounts{}
	noBounds = iceberg.ColumnBounds{}
)

// counts returns a copy of c in the arena; noCounts when c is empty.
func (a *avroArena) counts(c iceberg.ColumnCounts) iceberg.ColumnCounts {
	if len(c) == 0 {
		return noCounts
	}
	if len(c) > cap(a.colCounts)-len(a.colCounts) {
		a.colCounts = make([]iceberg.ColumnCount, 0, max(len(c), arenaChunk/16))
	}
	at := len(a.colCounts)
	a.colCounts = append(a.colCounts, c...)
	return a.colCounts[at:len(a.colCounts):len(a.colCounts)]
}

// bounds returns a copy of b in the arena, values too; noBounds when b is
// empty.
func (a *avroArena) bounds(b iceberg.ColumnBounds) iceberg.ColumnBounds {
	if len(b) == 0 {
		return noBounds
	}
	if len(b) > cap(a.colBounds)-len(a.colBounds) {
		a.colBounds = make([]iceberg.ColumnBound, 0, max(len(b), arenaChunk/32))
	}
	at := len(a.colBounds)
	for _, e := range b {
		a.colBounds = append(a.colBounds, iceberg.ColumnBound{ID: e.ID, Value: a.copy(e.Value)})
	}
	return a.colBounds[at:len(a.colBounds):len(a.colBounds)]
}
