package reader

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
)

// Spec: Column Projection. A field that a data file lacks reads as its
// identity-partition value when the task has one, else as its
// initial-default, else as null; a required field with none of these is an
// error.

// partitionConstants decodes the task's identity-partition values for the
// fields of the projected schema, keyed by source field id. A constant
// without a value is null.
func partitionConstants(schema *iceberg.Schema, task *Task) (map[int]any, error) {
	out := make(map[int]any, len(task.Constants))
	for _, c := range task.Constants {
		f, ok := schema.FieldByID(int(c.FieldID))
		if !ok {
			continue
		}
		if c.Value == nil {
			out[f.ID] = nil
			continue
		}
		v, err := iceberg.DecodeValue(f.Type, c.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: partition value of field %q (id %d) for %s: %v", ErrInvalidTask, f.Name, f.ID, task.Path, err)
		}
		out[f.ID] = v
	}
	return out, nil
}

// initialDefault returns the value of a field missing from a data file. A
// struct's initial-default is null or {}: null makes the whole struct null,
// {} makes it present with each sub-field at its own default.
func initialDefault(f iceberg.NestedField, path string) (any, error) {
	v, err := iceberg.ParseJSONValue(f.Type, f.InitialDefault)
	if err != nil {
		return nil, fmt.Errorf("initial-default of field %q (id %d): %w", f.Name, f.ID, err)
	}
	if v == nil {
		if _, unknown := f.Type.(iceberg.UnknownType); f.Required && !unknown {
			return nil, fmt.Errorf("%w: required field %q (id %d) is missing from data file %s and has no initial-default",
				ErrSchemaMismatch, f.Name, f.ID, path)
		}
		return nil, nil
	}
	if st, ok := f.Type.(*iceberg.StructType); ok {
		m, _ := v.(map[int]any)
		if m == nil {
			m = make(map[int]any)
		}
		for _, c := range st.Fields {
			if m[c.ID] != nil {
				continue
			}
			if m[c.ID], err = initialDefault(c, path); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	return v, nil
}

// fillArray returns n rows of p's fill value. The array built for the first
// call is kept in p and sliced for later calls that need no more rows, so
// a constant column costs one build per read.
func fillArray(mem memory.Allocator, p *fieldPlan, n int) (arrow.Array, error) {
	if p.cache == nil || p.cache.Len() < n {
		if p.cache != nil {
			p.cache.Release()
			p.cache = nil
		}
		arr, err := constArray(mem, p.field.Type, p.target, p.fill, n)
		if err != nil {
			return nil, err
		}
		p.cache = arr
	}
	if p.cache.Len() == n {
		p.cache.Retain()
		return p.cache, nil
	}
	return array.NewSlice(p.cache, 0, int64(n)), nil
}

// constArray builds an array of n copies of the literal v.
func constArray(mem memory.Allocator, t iceberg.Type, dt arrow.DataType, v any, n int) (arrow.Array, error) {
	if v == nil {
		return array.MakeArrayOfNull(mem, dt, n), nil
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if err := iceberg.AppendLiteral(b, t, v); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidTask, err)
		}
	}
	return b.NewArray(), nil
}
