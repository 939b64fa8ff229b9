package manifest

import (
	"fmt"
	"strconv"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// Column metrics are maps from field id to a count or a bound. Their decoders
// gather the kept columns' entries in a buffer the reader reuses, order
// them by field id (see column_metrics.go) and copy them into the arena,
// with a fast path for the layout Iceberg Java writes.

// kvLayout is a compiled map<int, V> field: Iceberg Java writes such maps
// as arrays of key/value records (logicalType "map"); other writers as Avro
// maps with string keys.
type kvLayout struct {
	array      *avro.Schema // the array (or map) branch of the field's type
	key, value int          // field indexes in the array's item record
	keyType    *avro.Schema
	valueType  *avro.Schema
	err        string // why the field cannot be read as such a map
	// simple is set for the layout Iceberg Java writes: entries of exactly
	// a key then a value, neither of them a union.
	simple bool
}

// compileKV compiles the map layout of a field of type s.
func compileKV(name string, s *avro.Schema) *kvLayout {
	kv := &kvLayout{key: -1, value: -1}
	var shape *avro.Schema
	switch s.Kind {
	case avro.KindArray, avro.KindMap:
		shape = s
	case avro.KindUnion:
		for _, b := range s.Branches {
			if b.Kind == avro.KindArray || b.Kind == avro.KindMap {
				shape = b
				break
			}
		}
	}
	switch {
	case shape == nil:
		kv.err = fmt.Sprintf("%s: expected a map, got Avro %s", name, s.Type)
	case shape.Kind == avro.KindMap:
		kv.array, kv.valueType = shape, shape.Values
	case shape.Items == nil || shape.Items.Kind != avro.KindRecord:
		kv.array, kv.err = shape, fmt.Sprintf("%s: expected a map, got Avro array", name)
	default:
		kv.array = shape
		kv.key, kv.value = fieldIndex(shape.Items, -1, "key"), fieldIndex(shape.Items, -1, "value")
		if kv.key < 0 || kv.value < 0 {
			kv.err = name + ": map entries lack key or value"
			break
		}
		kv.keyType, kv.valueType = shape.Items.Fields[kv.key].Type, shape.Items.Fields[kv.value].Type
		kv.simple = len(shape.Items.Fields) == 2 && kv.key == 0 && kv.value == 1 &&
			(kv.keyType.Kind == avro.KindInt || kv.keyType.Kind == avro.KindLong)
	}
	return kv
}

// eachKV reads a map<int, V> field, calling fn for each entry, and
// reports whether the field held a map rather than null; the value's
// schema is resolved from a union, and a null value has a nil schema.
func (r *valueReader) eachKV(op *fieldOp, fn func(k int, vs *avro.Schema)) bool {
	kv := op.kv
	s := r.branch(op.typ)
	if s == nil || s.Kind == avro.KindNull {
		return false
	}
	if kv.err != "" || s != kv.array {
		r.d.Skip(s)
		if kv.err != "" {
			r.fail(kv.err)
		} else {
			r.fail(fmt.Sprintf("%s: expected a map, got Avro %s", op.name, s.Type))
		}
		return false
	}
	for n := r.d.BlockCount(); n > 0 && r.ok(); n = r.d.BlockCount() {
		for ; n > 0 && r.ok(); n-- {
			if s.Kind == avro.KindMap {
				key := r.d.Bytes()
				k, err := strconv.Atoi(string(key))
				if err != nil && r.ok() {
					r.fail(fmt.Sprintf("%s: map key %q is not a field id", op.name, key))
				}
				fn(k, r.branch(kv.valueType))
				continue
			}
			r.entry(s.Items, kv, op.name, fn)
		}
	}
	return true
}

// entry reads one key/value record of a map written as an array, calling
// fn with the decoder at the value; a value written before its key is read
// after it.
func (r *valueReader) entry(item *avro.Schema, kv *kvLayout, name string, fn func(k int, vs *avro.Schema)) {
	var k int64
	haveKey, valueAt := false, -1
	for i, f := range item.Fields {
		switch {
		case i == kv.key:
			k, _ = r.optLong(f.Type, name)
			haveKey = true
		case i == kv.value && haveKey:
			fn(int(k), r.branch(f.Type))
		case i == kv.value:
			valueAt = r.d.Offset()
			r.d.Skip(f.Type)
		default:
			r.d.Skip(f.Type)
		}
		if !r.ok() {
			return
		}
	}
	if valueAt >= 0 {
		end := r.d.Offset()
		r.d.Seek(valueAt)
		fn(int(k), r.branch(kv.valueType))
		r.d.Seek(end)
	}
}

// countMap reads a map<int, long> field into the arena, the kept columns
// only; nil when null, empty (not nil) when no kept column has an entry:
// Iceberg Java tells an empty map from a null one, and so do the metadata
// tables that show them.
func (r *valueReader) countMap(op *fieldOp) iceberg.ColumnCounts {
	if kv := op.kv; kv.simple && (kv.valueType.Kind == avro.KindLong || kv.valueType.Kind == avro.KindInt) {
		return r.simpleCountMap(op)
	}
	buf := r.countBuf[:0]
	present := r.eachKV(op, func(k int, vs *avro.Schema) {
		var v int64
		switch {
		case vs == nil || vs.Kind == avro.KindNull:
			r.fail(op.name + ": expected an int or long, got null")
		case vs.Kind == avro.KindLong:
			v = r.d.Long()
		case vs.Kind == avro.KindInt:
			v = int64(r.d.Int())
		default:
			r.mismatch(vs, op.name, "an int or long")
		}
		if r.ok() && r.metrics.Has(k) {
			buf = append(buf, iceberg.ColumnCount{ID: k, Count: v})
		}
	})
	r.countBuf = buf
	if !r.ok() || !present {
		return nil
	}
	return r.arena.counts(iceberg.NewColumnCounts(buf))
}

// simpleCountMap is countMap for the simple layout.
func (r *valueReader) simpleCountMap(op *fieldOp) iceberg.ColumnCounts {
	s := r.branch(op.typ)
	if s != op.kv.array {
		r.notMap(op, s)
		return nil
	}
	buf := r.countBuf[:0]
	longKey, longValue := op.kv.keyType.Kind == avro.KindLong, op.kv.valueType.Kind == avro.KindLong
	for n := r.d.BlockCount(); n > 0; n = r.d.BlockCount() {
		for ; n > 0; n-- {
			k, v := r.intOrLong(longKey), r.intOrLong(longValue)
			if r.d.Err() != nil {
				r.countBuf = buf
				return nil
			}
			if r.metrics.Has(int(k)) {
				buf = append(buf, iceberg.ColumnCount{ID: int(k), Count: v})
			}
		}
	}
	r.countBuf = buf
	return r.arena.counts(iceberg.NewColumnCounts(buf))
}

// boundMap reads a map<int, binary> field into the arena, the kept columns
// only; nil when null, empty (not nil) when no kept column has an entry.
func (r *valueReader) boundMap(op *fieldOp) iceberg.ColumnBounds {
	if kv := op.kv; kv.simple && kv.valueType.Kind == avro.KindBytes {
		return r.simpleBoundMap(op)
	}
	buf := r.boundBuf[:0]
	present := r.eachKV(op, func(k int, vs *avro.Schema) {
		var b []byte
		switch {
		case vs == nil || vs.Kind == avro.KindNull:
			r.fail(op.name + ": expected bytes, got null")
		case vs.Kind == avro.KindBytes:
			b = r.d.Bytes()
		case vs.Kind == avro.KindFixed:
			b = r.d.Fixed(vs.Size)
		default:
			r.mismatch(vs, op.name, "bytes")
		}
		if r.ok() && r.metrics.Has(k) {
			// The value aliases the block until the arena copies it.
			buf = append(buf, iceberg.ColumnBound{ID: k, Value: b})
		}
	})
	r.boundBuf = buf
	if !r.ok() || !present {
		return nil
	}
	return r.arena.bounds(iceberg.NewColumnBounds(buf))
}

// simpleBoundMap is boundMap for the simple layout.
func (r *valueReader) simpleBoundMap(op *fieldOp) iceberg.ColumnBounds {
	s := r.branch(op.typ)
	if s != op.kv.array {
		r.notMap(op, s)
		return nil
	}
	buf := r.boundBuf[:0]
	longKey := op.kv.keyType.Kind == avro.KindLong
	for n := r.d.BlockCount(); n > 0; n = r.d.BlockCount() {
		for ; n > 0; n-- {
			k, b := r.intOrLong(longKey), r.d.Bytes()
			if r.d.Err() != nil {
				r.boundBuf = buf
				return nil
			}
			if r.metrics.Has(int(k)) {
				buf = append(buf, iceberg.ColumnBound{ID: int(k), Value: b})
			}
		}
	}
	r.boundBuf = buf
	return r.arena.bounds(iceberg.NewColumnBounds(buf))
}

// notMap handles, for the fast paths, a map field whose value is null or
// of an unexpected type.
func (r *valueReader) notMap(op *fieldOp, s *avro.Schema) {
	if s != nil && s.Kind != avro.KindNull {
		r.mismatch(s, op.name, "a map")
	}
}

// intOrLong reads an Avro long, or an int.
func (r *valueReader) intOrLong(long bool) int64 {
	if long {
		return r.d.Long()
	}
	return int64(r.d.Int())
}
