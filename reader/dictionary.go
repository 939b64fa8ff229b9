package reader

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
)

// Dictionary pass-through: a scan may ask for some top-level string and
// binary columns as Arrow dictionaries (Scan.Dictionary). Parquet chunks
// that are dictionary-encoded then travel as they were stored, indices
// and the chunk's dictionary, instead of being unpacked into one string
// per row; every other source of such a column (a chunk with plain pages,
// an Avro or ORC file, a column filled with nulls or its default) is
// encoded on the way, so that every batch of every endpoint has the one
// type the FlightInfo announced: dictionary<int32, string|binary>. A
// batch's dictionary is that of its row group (or batch), so dictionaries
// differ from batch to batch; the IPC stream sends each new one as a
// replacement, which Arrow stream readers accept.

// dictionaryIndex is the index type of every dictionary column, as pqarrow
// reads Parquet dictionaries.
var dictionaryIndex = arrow.PrimitiveTypes.Int32

// OutputSchema returns the Arrow schema of the batches Read emits for scan:
// iceberg.ArrowSchema(scan.Schema), with the fields of scan.Dictionary as
// dictionaries.
func OutputSchema(scan Scan) (*arrow.Schema, error) {
	if scan.Schema == nil {
		return nil, fmt.Errorf("%w: no projected schema", ErrInvalidTask)
	}
	out, err := iceberg.ArrowSchema(scan.Schema)
	if err != nil {
		return nil, err
	}
	return withDictionaries(out, scan.Schema, scan.dictionarySet())
}

// dictionarySet returns scan.Dictionary as a set, nil when empty.
func (scan Scan) dictionarySet() map[int]bool {
	if len(scan.Dictionary) == 0 {
		return nil
	}
	set := make(map[int]bool, len(scan.Dictionary))
	for _, id := range scan.Dictionary {
		set[id] = true
	}
	return set
}

// withDictionaries returns out, the Arrow form of schema, with the
// top-level fields whose ids are in set typed as dictionaries of their
// value type. Every id of set must be a top-level string or binary field
// of schema.
func withDictionaries(out *arrow.Schema, schema *iceberg.Schema, set map[int]bool) (*arrow.Schema, error) {
	if len(set) == 0 {
		return out, nil
	}
	fields := out.Fields()
	found := 0
	for i, f := range schema.Fields {
		if !set[f.ID] {
			continue
		}
		if !iceberg.IsStringOrBinary(f.Type) {
			return nil, fmt.Errorf("%w: field %d (%s) is %s: only string and binary fields are read as dictionaries",
				ErrInvalidTask, f.ID, f.Name, f.Type)
		}
		fields[i].Type = &arrow.DictionaryType{IndexType: dictionaryIndex, ValueType: fields[i].Type}
		found++
	}
	if found != len(set) {
		return nil, fmt.Errorf("%w: a dictionary field id is not a top-level field of the schema", ErrInvalidTask)
	}
	md := out.Metadata()
	return arrow.NewSchema(fields, &md), nil
}

// dictionaryFor returns col as a column of type want: col itself when want
// is not a dictionary or col already is one, else col encoded. It takes
// over col's reference either way, releasing col when it encodes it.
func dictionaryFor(ctx context.Context, mem memory.Allocator, col arrow.Array, want arrow.DataType) (arrow.Array, error) {
	dt, ok := want.(*arrow.DictionaryType)
	if !ok || col.DataType().ID() == arrow.DICTIONARY {
		return col, nil
	}
	defer col.Release()
	return asDictionary(ctx, mem, col, dt)
}

// asDictionary returns col, of dictionary type dt's value type, encoded as
// a dictionary of type dt; the caller owns the result.
func asDictionary(ctx context.Context, mem memory.Allocator, col arrow.Array, dt *arrow.DictionaryType) (arrow.Array, error) {
	if !arrow.TypeEqual(col.DataType(), dt.ValueType) {
		return nil, fmt.Errorf("dictionary of %s from a column of %s (internal error)", dt.ValueType, col.DataType())
	}
	return compute.DictionaryEncodeArray(withComputeAllocator(ctx, mem), compute.DictionaryEncodeOptions{}, col)
}

// passDictionary reports whether d, as pqarrow read it, can be emitted as
// it is for an output column of value type target: it must be indexed by
// int32 and hold target values.
func passDictionary(d *array.Dictionary, target arrow.DataType) bool {
	dt := d.DataType().(*arrow.DictionaryType)
	return arrow.TypeEqual(dt.IndexType, dictionaryIndex) && arrow.TypeEqual(dt.ValueType, target)
}

// checkIndices returns an error when an index of d points outside its
// dictionary: a hostile file's indices pass through to the client
// unread otherwise, where unpacking would have refused them.
func checkIndices(d *array.Dictionary) error {
	idx, ok := d.Indices().(*array.Int32)
	if !ok {
		return fmt.Errorf("%w: dictionary indexed by %s", ErrUnsupported, d.Indices().DataType())
	}
	nd := int32(d.Dictionary().Len())
	for i, k := range idx.Int32Values() {
		if (k < 0 || k >= nd) && idx.IsValid(i) {
			return fmt.Errorf("%w: dictionary index %d out of range of %d values", ErrInvalidTask, k, nd)
		}
	}
	return nil
}
