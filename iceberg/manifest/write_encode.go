package manifest

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// recordEncoder encodes the records of one format version in Avro's binary
// encoding, each field as that version has it (fields.go): a required
// field as its type, an optional one as the union ["null", type] that
// avroConverter writes, branch 0 for null and 1 for a value. Int and long
// share their encoding (a zig-zag varint), so number writes both.
type recordEncoder struct {
	avro.Encoder
	version int
	err     error // the record's first error; the record is not written
}

// start begins a record.
func (e *recordEncoder) start() {
	e.Reset()
	e.err = nil
}

func (e *recordEncoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// union begins the value of field f, which has one when ok: for an optional
// field it writes the union branch. It reports whether the value follows.
// A required field without a value is an error.
func (e *recordEncoder) union(f *field, ok bool) bool {
	if f.required.has(e.version) {
		if !ok {
			e.fail(fmt.Errorf("%s is unknown; v%d requires it", f.name, e.version))
		}
		return ok
	}
	if !ok {
		e.UnionIndex(0)
		return false
	}
	e.UnionIndex(1)
	return true
}

// unknown fails a record with a field that its writer does not know how to
// fill: fields.go and the writer disagree.
func (e *recordEncoder) unknown(f *field) {
	e.fail(fmt.Errorf("field %d %s has no value in the v%d writer", f.id, f.name, e.version))
}

// number writes an int or long field, as the table types it.
func (e *recordEncoder) number(f *field, v int64, ok bool) {
	if _, isInt := f.typ.(iceberg.IntType); isInt && v != int64(int32(v)) {
		e.fail(fmt.Errorf("%s %d is out of the range of an int", f.name, v))
		return
	}
	if e.union(f, ok) {
		e.Long(v)
	}
}

// optLong writes a long field; nil is null.
func (e *recordEncoder) optLong(f *field, p *int64) {
	if e.union(f, p != nil) {
		e.Long(*p)
	}
}

// string writes a string field.
func (e *recordEncoder) string(f *field, s string, ok bool) {
	if e.union(f, ok) {
		e.String(s)
	}
}

// boolean writes a boolean field.
func (e *recordEncoder) boolean(f *field, v, ok bool) {
	if e.union(f, ok) {
		e.Boolean(v)
	}
}

// bytes writes a binary field; nil is null.
func (e *recordEncoder) bytes(f *field, b []byte) {
	if e.union(f, b != nil) {
		e.Bytes(b)
	}
}

// longs writes a list<long> field; nil is null, an empty list is empty.
func (e *recordEncoder) longs(f *field, s []int64) {
	if !e.union(f, s != nil) {
		return
	}
	if len(s) > 0 {
		e.BlockCount(len(s))
		for _, v := range s {
			e.Long(v)
		}
	}
	e.BlockCount(0)
}

// ints writes a list<int> field; nil is null, an empty list is empty.
func (e *recordEncoder) ints(f *field, s []int) {
	if !e.union(f, s != nil) {
		return
	}
	if len(s) > 0 {
		e.BlockCount(len(s))
		for _, v := range s {
			e.Long(int64(v))
		}
	}
	e.BlockCount(0)
}

// counts writes a map<int, long> of column metrics, an array of key/value
// records as Iceberg Java writes such maps; nil is null, and an empty map
// read from a manifest stays an empty map.
func (e *recordEncoder) counts(f *field, c iceberg.ColumnCounts) {
	if !e.union(f, c != nil) {
		return
	}
	if len(c) > 0 {
		e.BlockCount(len(c))
		for _, kv := range c {
			e.Long(int64(kv.ID))
			e.Long(kv.Count)
		}
	}
	e.BlockCount(0)
}

// bounds writes a map<int, binary> of column bounds as counts writes
// counts.
func (e *recordEncoder) bounds(f *field, b iceberg.ColumnBounds) {
	if !e.union(f, b != nil) {
		return
	}
	if len(b) > 0 {
		e.BlockCount(len(b))
		for _, kv := range b {
			e.Long(int64(kv.ID))
			e.Bytes(kv.Value)
		}
	}
	e.BlockCount(0)
}
