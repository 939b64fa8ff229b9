package parquet

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// INT96 timestamps (Impala, Hive and old Spark) hold a Julian day and the
// nanoseconds of that day. pqarrow turns them into nanoseconds since the
// epoch, which fails for instants outside 1677-2262 that Impala writes
// (its range is 1400-9999). A top-level INT96 column is therefore read here,
// straight into the target unit; an INT96 column nested in a struct or list
// goes through pqarrow and its range.

const (
	julianUnixEpoch = 2_440_588
	nanosPerDay     = 86_400 * 1_000_000_000
)

// Int96Column reads one flat INT96 column of the selected row groups in
// step with pqarrow's record reader.
type Int96Column struct {
	pf        *file.Reader
	col       int
	rowGroups []int
	next      int // index into rowGroups of the next chunk to open
	chunk     *file.Int96ColumnChunkReader
	maxDef    int16
	target    *arrow.TimestampType
	values    []parquet.Int96
	defs      []int16
	path      string
	name      string
}

// NewInt96Column returns a reader of leaf column col of pf, named name in
// messages, in the given row groups, as timestamps of target, which must
// be an *arrow.TimestampType. path names the file in messages.
func NewInt96Column(pf *file.Reader, col int, rowGroups []int, target arrow.DataType, path, name string) (*Int96Column, error) {
	ts, ok := target.(*arrow.TimestampType)
	if !ok {
		return nil, fmt.Errorf("%w: INT96 column %q of %s cannot be read as %s", ErrSchemaMismatch, name, path, target)
	}
	return &Int96Column{
		pf:        pf,
		col:       col,
		rowGroups: rowGroups,
		maxDef:    pf.MetaData().Schema.Column(col).MaxDefinitionLevel(),
		target:    ts,
		path:      path,
		name:      name,
	}, nil
}

// Read returns the next n rows, allocated from mem; the caller releases
// the array.
func (c *Int96Column) Read(mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewTimestampBuilder(mem, c.target)
	defer b.Release()
	b.Reserve(n)
	if cap(c.values) < n {
		c.values = make([]parquet.Int96, n)
		c.defs = make([]int16, n)
	}
	for got := 0; got < n; {
		if c.chunk == nil || !c.chunk.HasNext() {
			if err := c.Close(); err != nil {
				return nil, fmt.Errorf("read column %q of %s: %w", c.name, c.path, err)
			}
			if c.next >= len(c.rowGroups) {
				return nil, fmt.Errorf("%w: INT96 column %q of %s ended after fewer rows than the file claims", ErrInvalidFile, c.name, c.path)
			}
			rg := c.pf.RowGroup(c.rowGroups[c.next])
			c.next++
			cr, err := rg.Column(c.col)
			if err != nil {
				return nil, fmt.Errorf("read column %q of %s: %w", c.name, c.path, err)
			}
			chunk, ok := cr.(*file.Int96ColumnChunkReader)
			if !ok {
				return nil, fmt.Errorf("%w: column %q of %s is not INT96", ErrSchemaMismatch, c.name, c.path)
			}
			c.chunk = chunk
			continue
		}
		levels, _, err := c.chunk.ReadBatch(int64(n-got), c.values[:n-got], c.defs[:n-got], nil)
		if err != nil {
			return nil, fmt.Errorf("read column %q of %s: %w", c.name, c.path, err)
		}
		vi := 0
		for i := 0; i < int(levels); i++ {
			if c.maxDef > 0 && c.defs[i] < c.maxDef {
				b.AppendNull()
				continue
			}
			v, err := int96To(c.values[vi], c.target.Unit)
			if err != nil {
				return nil, fmt.Errorf("%w: column %q of %s: %v", ErrInvalidFile, c.name, c.path, err)
			}
			b.Append(arrow.Timestamp(v))
			vi++
		}
		got += int(levels)
	}
	return b.NewArray(), nil
}

// int96To converts an INT96 timestamp to ticks of unit since the epoch.
func int96To(v parquet.Int96, unit arrow.TimeUnit) (int64, error) {
	nanos := int64(binary.LittleEndian.Uint64(v[:8]))
	days := int64(binary.LittleEndian.Uint32(v[8:])) - julianUnixEpoch
	if nanos < 0 || nanos >= nanosPerDay {
		return 0, fmt.Errorf("INT96 value has %d nanoseconds in a day", nanos)
	}
	per := int64(unit.Multiplier())
	perDay := nanosPerDay / per
	if days > math.MaxInt64/perDay || days < math.MinInt64/perDay+1 {
		return 0, fmt.Errorf("INT96 value %d days from 1970 does not fit %s", days, unit)
	}
	return days*perDay + nanos/per, nil
}

// Close releases the open column chunk, reporting a read error it ended on.
func (c *Int96Column) Close() error {
	if c.chunk == nil {
		return nil
	}
	err := c.chunk.Err()
	if cerr := c.chunk.Close(); err == nil {
		err = cerr
	}
	c.chunk = nil
	return err
}
