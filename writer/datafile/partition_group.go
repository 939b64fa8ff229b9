package datafile

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
)

// partGroup is the rows of a batch that share a partition tuple.
type partGroup struct {
	key   string // the tuple's identity across batches
	tuple []any
	rows  []int64
}

// groups splits a batch's rows by partition tuple, in order of first
// appearance. Each spec field first codes its column: the distinct
// transformed values of the batch get small integers (0 is null), with
// fast paths that skip boxing for identity and the time transforms; rows
// are then grouped by their codes, and tuples and keys are built once
// per group, not per row.
func (p *partitioner) groups(batch arrow.RecordBatch) ([]partGroup, error) {
	n := int(batch.NumRows())
	nf := len(p.fields)
	codes := make([]uint32, n*nf)
	dicts := make([][]any, nf)
	for j := range p.fields {
		d, err := p.fields[j].code(batch, codes, j, nf)
		if err != nil {
			return nil, fmt.Errorf("partition field %s: %w", p.fields[j].name, err)
		}
		dicts[j] = d
	}
	index := map[string]int{}
	var groups []partGroup
	buf := make([]byte, 4*nf)
	for i := 0; i < n; i++ {
		for j := 0; j < nf; j++ {
			binary.LittleEndian.PutUint32(buf[4*j:], codes[i*nf+j])
		}
		g, ok := index[string(buf)]
		if !ok {
			g = len(groups)
			index[string(buf)] = g
			tuple := make([]any, nf)
			for j := 0; j < nf; j++ {
				if c := codes[i*nf+j]; c > 0 {
					tuple[j] = dicts[j][c-1]
				}
			}
			groups = append(groups, partGroup{tuple: tuple})
		}
		groups[g].rows = append(groups[g].rows, int64(i))
	}
	for g := range groups {
		k, err := p.tupleKey(groups[g].tuple)
		if err != nil {
			return nil, err
		}
		groups[g].key = k
	}
	return groups, nil
}

// tupleKey encodes a tuple as a map key: each value's single-value
// serialization, length-prefixed, or a null marker.
func (p *partitioner) tupleKey(tuple []any) (string, error) {
	var sb strings.Builder
	for j, v := range tuple {
		if v == nil {
			sb.WriteString("\x00N")
			continue
		}
		b, err := iceberg.EncodeValue(p.resType[j], v)
		if err != nil {
			return "", fmt.Errorf("partition field %s: %w", p.fields[j].name, err)
		}
		sb.WriteString("\x00V")
		sb.WriteString(strconv.Itoa(len(b)))
		sb.WriteByte(':')
		sb.Write(b)
	}
	return sb.String(), nil
}

// coder gives distinct values codes from 1, in order of appearance.
type coder[K comparable] struct {
	codes map[K]uint32
	dict  []any
}

func newCoder[K comparable]() *coder[K] { return &coder[K]{codes: map[K]uint32{}} }

func (c *coder[K]) code(k K, v func() any) uint32 {
	if x, ok := c.codes[k]; ok {
		return x
	}
	c.dict = append(c.dict, v())
	x := uint32(len(c.dict))
	c.codes[k] = x
	return x
}

// code writes the field's code of every row into codes[i*stride+j] and
// returns the values of the codes.
func (f *partField) code(batch arrow.RecordBatch, codes []uint32, j, stride int) ([]any, error) {
	if f.unused {
		return nil, nil
	}
	col, parents := f.sourceColumn(batch)
	n := col.Len()
	valid := func(i int) bool { return col.IsValid(i) && !anyNull(parents, i) }
	switch tr := f.tr.(type) {
	case iceberg.IdentityTransform:
		switch a := col.(type) {
		case *array.String:
			c := newCoder[string]()
			for i := 0; i < n; i++ {
				if valid(i) {
					s := a.Value(i)
					codes[i*stride+j] = c.code(s, func() any { return strings.Clone(s) })
				}
			}
			return c.dict, nil
		case *array.Int32:
			c := newCoder[int32]()
			for i := 0; i < n; i++ {
				if valid(i) {
					v := a.Value(i)
					codes[i*stride+j] = c.code(v, func() any { return v })
				}
			}
			return c.dict, nil
		case *array.Int64:
			c := newCoder[int64]()
			for i := 0; i < n; i++ {
				if valid(i) {
					v := a.Value(i)
					codes[i*stride+j] = c.code(v, func() any { return v })
				}
			}
			return c.dict, nil
		case *array.Date32:
			c := newCoder[int32]()
			for i := 0; i < n; i++ {
				if valid(i) {
					v := int32(a.Value(i))
					codes[i*stride+j] = c.code(v, func() any { return v })
				}
			}
			return c.dict, nil
		}
	case iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform, iceberg.HourTransform:
		if unit, ok := f.timeUnitFunc(col, tr); ok {
			c := newCoder[int32]()
			for i := 0; i < n; i++ {
				if valid(i) {
					v := unit(i)
					codes[i*stride+j] = c.code(v, func() any { return v })
				}
			}
			return c.dict, nil
		}
	}
	// Any other transform or type: through the iceberg package's literals.
	c := newCoder[any]()
	for i := 0; i < n; i++ {
		if !valid(i) {
			continue
		}
		v, err := literalAt(col, i, f.src)
		if err != nil {
			return nil, err
		}
		out, err := iceberg.ApplyTransform(f.tr, f.src, v)
		if err != nil {
			return nil, err
		}
		if out == nil {
			continue
		}
		k := out
		if b, ok := out.([]byte); ok {
			k = string(b) // a slice is not comparable
		}
		codes[i*stride+j] = c.code(k, func() any {
			if s, ok := out.(string); ok {
				// A string of the batch shares its buffer, which is released
				// long before the file's tuple is.
				return strings.Clone(s)
			}
			return out
		})
	}
	return c.dict, nil
}

// timeUnitFunc returns a function computing the time transform tr of row
// i of a date or timestamp column without boxing: whole days or hours by
// floor division, months and years from the civil date of the day (cached
// for the previous row, as sorted or clustered input repeats days).
func (f *partField) timeUnitFunc(col arrow.Array, tr iceberg.Transform) (func(int) int32, bool) {
	var perDay, perHour int64
	var raw func(int) int64
	switch a := col.(type) {
	case *array.Date32:
		if _, hour := tr.(iceberg.HourTransform); hour {
			return nil, false
		}
		perDay = 1
		raw = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Timestamp:
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Microsecond:
			perDay, perHour = 86_400_000_000, 3_600_000_000
		case arrow.Nanosecond:
			perDay, perHour = 86_400_000_000_000, 3_600_000_000_000
		default:
			return nil, false
		}
		raw = func(i int) int64 { return int64(a.Value(i)) }
	default:
		return nil, false
	}
	switch tr.(type) {
	case iceberg.HourTransform:
		return func(i int) int32 { return int32(floorDiv64(raw(i), perHour)) }, true
	case iceberg.DayTransform:
		return func(i int) int32 { return int32(floorDiv64(raw(i), perDay)) }, true
	}
	_, year := tr.(iceberg.YearTransform)
	lastDay, last := int64(0), int32(0)
	have := false
	return func(i int) int32 {
		d := floorDiv64(raw(i), perDay)
		if have && d == lastDay {
			return last
		}
		t := time.Unix(d*86400, 0).UTC()
		v := int32(t.Year() - 1970)
		if !year {
			v = v*12 + int32(t.Month()) - 1
		}
		lastDay, last, have = d, v, true
		return v
	}, true
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
