package reader

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Spec: Equality Delete Files. An equality delete file holds rows of the
// columns its equality_ids name; a data row is deleted when its values of
// those columns equal a delete row's, with null equal to null. Values are
// compared as Iceberg Java's StructLikeSet compares them: by the natural
// order of the column type, so every NaN equals every NaN (Float.compareTo)
// while -0.0 and 0.0 differ. Both sides are read as the type the equality
// schema gives the field, so a column promoted since (int to long) still
// compares equal.

// keyPath locates an equality field in a batch: the index of its top-level
// column, then the index of each struct field on the way down.
type keyPath []int

// equalityField finds field id, with the structs that hold it: its type
// from the scan's equality schema (or, for tickets without one, the
// projected schema), its place from whichever of the two nests it deeper,
// so that an equality schema that lists a nested field at its top level
// still finds the field inside its struct. Equality fields may sit in
// structs, but not in lists or maps.
func equalityField(scan Scan, id int) ([]iceberg.NestedField, error) {
	var chain []iceberg.NestedField
	for _, s := range []*iceberg.Schema{scan.EqualitySchema, scan.FilterSchema, scan.Schema} {
		if s == nil {
			continue
		}
		c := fieldChain(s.Fields, id)
		switch {
		case c == nil:
		case chain == nil:
			chain = c
		case len(c) > len(chain):
			leaf := chain[len(chain)-1]
			chain = append(c[:len(c)-1:len(c)-1], leaf)
		}
	}
	if chain == nil {
		return nil, fmt.Errorf("%w: equality field %d is in neither the equality or filter schema nor the projection", ErrInvalidTask, id)
	}
	return chain, nil
}

func fieldChain(fields []iceberg.NestedField, id int) []iceberg.NestedField {
	for _, f := range fields {
		if f.ID == id {
			return []iceberg.NestedField{f}
		}
		if st, ok := f.Type.(*iceberg.StructType); ok {
			if tail := fieldChain(st.Fields, id); tail != nil {
				return append([]iceberg.NestedField{f}, tail...)
			}
		}
	}
	return nil
}

// addEqualityKeyField is addKeyField for an equality delete's key, which
// must be a primitive.
func addEqualityKeyField(fields []iceberg.NestedField, id int, scan Scan) ([]iceberg.NestedField, keyPath, error) {
	chain, err := equalityField(scan, id)
	if err != nil {
		return fields, nil, err
	}
	if _, prim := chain[len(chain)-1].Type.(iceberg.PrimitiveType); !prim {
		return fields, nil, fmt.Errorf("%w: equality field %d has type %s, not a primitive", ErrUnsupported, id, chain[len(chain)-1].Type)
	}
	return addKeyField(fields, id, scan)
}

// addKeyField returns the path of equality field id among fields, adding
// to fields what the path needs when they do not already hold the field
// with the equality schema's type.
func addKeyField(fields []iceberg.NestedField, id int, scan Scan) ([]iceberg.NestedField, keyPath, error) {
	chain, err := equalityField(scan, id)
	if err != nil {
		return fields, nil, err
	}
	if path := findPath(fields, chain); path != nil {
		return fields, path, nil
	}
	// An extra field: the chain's top-level field pruned to the path, all
	// optional so that a file that lacks it reads its initial-default or
	// nulls rather than failing.
	f := chain[len(chain)-1]
	f.Required = false
	path := keyPath{len(fields)}
	for i := len(chain) - 2; i >= 0; i-- {
		parent := chain[i]
		parent.Type, parent.Required, parent.InitialDefault = &iceberg.StructType{Fields: []iceberg.NestedField{f}}, false, nil
		f = parent
		path = append(path, 0)
	}
	return append(fields, f), path, nil
}

// findPath returns the path of chain's last field among fields, or nil
// when fields do not hold it with chain's type.
func findPath(fields []iceberg.NestedField, chain []iceberg.NestedField) keyPath {
	var path keyPath
	for depth, want := range chain {
		idx := -1
		for i, f := range fields {
			if f.ID == want.ID {
				idx = i
				break
			}
		}
		if idx < 0 {
			return nil
		}
		path = append(path, idx)
		if depth == len(chain)-1 {
			if fields[idx].Type.String() != want.Type.String() {
				return nil
			}
			return path
		}
		st, ok := fields[idx].Type.(*iceberg.StructType)
		if !ok {
			return nil
		}
		fields = st.Fields
	}
	return nil
}

// keySet is the set of key tuples of one equality delete file.
type keySet struct {
	keys map[string]struct{}
	// bytes estimates the set's memory.
	bytes int64

	// A set of single integer keys (the common case: a long id) is also
	// kept as integers, which a row looks up without building a key.
	intsOnce sync.Once
	ints     map[uint64]struct{}
	intWidth int  // 4 or 8 bytes; 0 when the keys are not single integers
	nullKey  bool // the set holds the null key
}

// intKeys prepares the integer form of a set whose every key is one
// non-null 32- or 64-bit value (or the null key), and reports the width.
func (s *keySet) intKeys() int {
	s.intsOnce.Do(func() {
		width := 0
		for k := range s.keys {
			switch {
			case k == "\x00":
				continue
			case len(k) != 5 && len(k) != 9 || k[0] != 1 || width != 0 && len(k)-1 != width:
				return
			}
			width = len(k) - 1
		}
		ints := make(map[uint64]struct{}, len(s.keys))
		for k := range s.keys {
			if k == "\x00" {
				s.nullKey = true
				continue
			}
			var v uint64
			for i := len(k) - 1; i >= 1; i-- {
				v = v<<8 | uint64(k[i])
			}
			ints[v] = struct{}{}
		}
		s.ints, s.intWidth = ints, width
	})
	return s.intWidth
}

// setEntryOverhead estimates a Go map entry of a string key beyond the
// key's bytes.
const setEntryOverhead = 48

func (s *keySet) add(key []byte) {
	if _, ok := s.keys[string(key)]; !ok {
		s.keys[string(key)] = struct{}{}
		s.bytes += int64(len(key)) + setEntryOverhead
	}
}

func (s *keySet) contains(key []byte) bool {
	_, ok := s.keys[string(key)]
	return ok
}

// equalitySet returns the key set of equality delete file d from the
// reader's cache, loading it on first use.
func (r *Reader) equalitySet(ctx context.Context, scan Scan, d *DeleteFile) (*keySet, string, error) {
	var fields []iceberg.NestedField
	paths := make([]keyPath, len(d.EqualityIDs))
	var types strings.Builder
	for i, id := range d.EqualityIDs {
		var err error
		if fields, paths[i], err = addEqualityKeyField(fields, int(id), scan); err != nil {
			return nil, "", fmt.Errorf("equality delete file %s: %w", d.Path, err)
		}
		chain, _ := equalityField(scan, int(id))
		types.WriteByte('|')
		for _, f := range chain {
			fmt.Fprintf(&types, "%d.", f.ID)
		}
		types.WriteString(chain[len(chain)-1].Type.String())
	}
	// The same file read with other key types (after a promotion) or paths
	// builds another set.
	key := deleteKey(d, types.String())
	set, err := r.deletes.get(ctx, key, func(ctx context.Context) (*keySet, error) {
		return r.loadEqualitySet(ctx, scan, d, iceberg.NewSchema(0, fields...), paths)
	})
	return set, key, err
}

// unionSet returns one set holding the keys of several equality delete
// files of the same key columns, cached under their keys: every delete a
// task carries applies to all its rows (the planner chose them), so a row
// needs one lookup instead of one per delete file. Tasks of one snapshot
// share their delete files, so the union is built once for many of them.
func (r *Reader) unionSet(ctx context.Context, keys []string, sets []*keySet) (*keySet, error) {
	if len(sets) == 1 {
		return sets[0], nil
	}
	sorted := append([]string(nil), keys...)
	sort.Strings(sorted)
	return r.deletes.get(ctx, "union\x00"+strings.Join(sorted, "\x00"), func(context.Context) (*keySet, error) {
		n := 0
		for _, s := range sets {
			n += len(s.keys)
		}
		u := &keySet{keys: make(map[string]struct{}, n)}
		for _, s := range sets {
			for k := range s.keys {
				if _, ok := u.keys[k]; !ok {
					u.keys[k] = struct{}{}
					u.bytes += int64(len(k)) + setEntryOverhead
				}
			}
		}
		return u, nil
	})
}

// loadEqualitySet reads the key tuples of equality delete file d.
func (r *Reader) loadEqualitySet(ctx context.Context, scan Scan, d *DeleteFile, schema *iceberg.Schema, paths []keyPath) (*keySet, error) {
	f, src, err := fileio.OpenRecorded(ctx, r.fio, d.Path, knownSize(d.FileSize), func(f fileio.File) (source, error) {
		return openSource(ctx, f, d.Format, &sourceConfig{
			path:      d.Path,
			schema:    schema,
			mapping:   scan.NameMapping,
			batchSize: r.batchSize,
			maxRead:   r.maxRead,
			mem:       r.mem,
			pages:     !r.arrowGo,
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read equality delete file %s: %w", d.Path, err)
	}
	defer f.Close()
	defer src.close()
	set := &keySet{keys: make(map[string]struct{})}
	var buf []byte
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, _, err := src.next(ctx)
		if errors.Is(err, io.EOF) {
			return set, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read equality delete file %s: %w", d.Path, err)
		}
		enc, err := newKeyEncoder(batch, paths)
		if err != nil {
			batch.Release()
			return nil, fmt.Errorf("read equality delete file %s: %w", d.Path, err)
		}
		for i := 0; i < int(batch.NumRows()); i++ {
			buf = enc.appendKey(buf[:0], i)
			set.add(buf)
		}
		batch.Release()
	}
}

// keyEncoder writes the key tuple of a batch's rows as bytes: per field a
// null marker, then the value in a fixed form, so that equal tuples (by
// the rules above) give equal bytes.
type keyEncoder struct {
	cols []keyColumn
}

type keyColumn struct {
	// levels are the structs holding the field, outermost first, then the
	// field's own array; a null at any level makes the value null.
	levels []arrow.Array
	put    func(b []byte, i int) []byte
}

func newKeyEncoder(batch arrow.RecordBatch, paths []keyPath) (*keyEncoder, error) {
	e := &keyEncoder{cols: make([]keyColumn, len(paths))}
	for c, path := range paths {
		arr := batch.Column(path[0])
		levels := []arrow.Array{arr}
		for _, idx := range path[1:] {
			sa, ok := arr.(*array.Struct)
			if !ok || idx >= sa.NumField() {
				return nil, fmt.Errorf("equality key column is %s, not a struct (internal error)", arr.DataType())
			}
			arr = sa.Field(idx)
			levels = append(levels, arr)
		}
		put, err := valueEncoder(arr)
		if err != nil {
			return nil, err
		}
		e.cols[c] = keyColumn{levels: levels, put: put}
	}
	return e, nil
}

// appendKey appends row i's key to b.
func (e *keyEncoder) appendKey(b []byte, i int) []byte {
	for _, c := range e.cols {
		null := false
		for _, l := range c.levels {
			if l.IsNull(i) {
				null = true
				break
			}
		}
		if null {
			b = append(b, 0)
			continue
		}
		b = c.put(append(b, 1), i)
	}
	return b
}

// Canonical NaNs: Java's Float.compareTo and Double.compareTo treat every
// NaN as one value.
const (
	canonicalNaN32 = 0x7fc00000
	canonicalNaN64 = 0x7ff8000000000000
)

// valueEncoder returns a function that appends the value of row i of arr.
func valueEncoder(arr arrow.Array) (func(b []byte, i int) []byte, error) {
	switch a := arr.(type) {
	case *array.Boolean:
		return func(b []byte, i int) []byte {
			if a.Value(i) {
				return append(b, 1)
			}
			return append(b, 0)
		}, nil
	case *array.Int32:
		return func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(a.Value(i))) }, nil
	case *array.Date32:
		return func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(a.Value(i))) }, nil
	case *array.Int64:
		return func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint64(b, uint64(a.Value(i))) }, nil
	case *array.Time64:
		return func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint64(b, uint64(a.Value(i))) }, nil
	case *array.Timestamp:
		return func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint64(b, uint64(a.Value(i))) }, nil
	case *array.Float32:
		return func(b []byte, i int) []byte {
			v := a.Value(i)
			bits := math.Float32bits(v)
			if v != v {
				bits = canonicalNaN32
			}
			return binary.LittleEndian.AppendUint32(b, bits)
		}, nil
	case *array.Float64:
		return func(b []byte, i int) []byte {
			v := a.Value(i)
			bits := math.Float64bits(v)
			if v != v {
				bits = canonicalNaN64
			}
			return binary.LittleEndian.AppendUint64(b, bits)
		}, nil
	case *array.Decimal128:
		return func(b []byte, i int) []byte {
			v := a.Value(i)
			b = binary.LittleEndian.AppendUint64(b, v.LowBits())
			return binary.LittleEndian.AppendUint64(b, uint64(v.HighBits()))
		}, nil
	case *array.String:
		return func(b []byte, i int) []byte {
			v := a.Value(i)
			return append(binary.AppendUvarint(b, uint64(len(v))), v...)
		}, nil
	case *array.Binary:
		return func(b []byte, i int) []byte {
			v := a.Value(i)
			return append(binary.AppendUvarint(b, uint64(len(v))), v...)
		}, nil
	case *array.FixedSizeBinary:
		return func(b []byte, i int) []byte { return append(b, a.Value(i)...) }, nil
	case *array.Null:
		return func(b []byte, _ int) []byte { return b }, nil
	case *array.Dictionary:
		// A column read as a dictionary (Scan.Dictionary) keys by value.
		put, err := valueEncoder(a.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(b []byte, i int) []byte { return put(b, a.GetValueIndex(i)) }, nil
	}
	return nil, fmt.Errorf("%w: equality delete on a column of type %s", ErrUnsupported, arr.DataType())
}
