package pqwrite

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// kind is how a column's values are laid out, in Arrow and in Parquet.
type kind uint8

const (
	kindBool    kind = iota // BOOLEAN from a boolean array
	kindInt32               // INT32 from int32 and date32
	kindInt64               // INT64 from int64, time64 and timestamp
	kindFloat32             // FLOAT
	kindFloat64             // DOUBLE
	kindBytes               // BYTE_ARRAY from string and binary
	kindFixed               // FIXED_LEN_BYTE_ARRAY from fixed-size binary
	kindDecimal             // FIXED_LEN_BYTE_ARRAY from decimal128, big-endian
)

// Supported reports whether a ColumnWriter encodes the Parquet leaf descr
// from Arrow arrays of type dt: a top-level required or optional column
// whose physical type is the one pqarrow.ToParquet gives dt, with values
// stored as they are in Arrow (no unit conversion).
func Supported(descr *schema.Column, dt arrow.DataType) bool {
	_, err := kindOf(descr, dt)
	return err == nil
}

func kindOf(descr *schema.Column, dt arrow.DataType) (kind, error) {
	if !littleEndian {
		return 0, fmt.Errorf("column %s: not encoded on a big-endian host", descr.Path())
	}
	if descr.MaxRepetitionLevel() != 0 || descr.MaxDefinitionLevel() > 1 {
		return 0, fmt.Errorf("column %s: levels (%d, %d) are not a flat column's", descr.Path(),
			descr.MaxDefinitionLevel(), descr.MaxRepetitionLevel())
	}
	pt := descr.PhysicalType()
	want := func(k kind, t parquet.Type) (kind, error) {
		if pt != t {
			return 0, fmt.Errorf("column %s: physical type %s for Arrow %s", descr.Path(), pt, dt)
		}
		return k, nil
	}
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return want(kindBool, parquet.Types.Boolean)
	case *arrow.Int32Type, *arrow.Date32Type:
		return want(kindInt32, parquet.Types.Int32)
	case *arrow.Int64Type:
		return want(kindInt64, parquet.Types.Int64)
	case *arrow.Time64Type:
		lt, ok := descr.LogicalType().(schema.TimeLogicalType)
		if !ok || !sameUnit(t.Unit, lt.TimeUnit()) {
			return 0, fmt.Errorf("column %s: logical type %s for Arrow %s", descr.Path(), descr.LogicalType(), dt)
		}
		return want(kindInt64, parquet.Types.Int64)
	case *arrow.TimestampType:
		lt, ok := descr.LogicalType().(schema.TimestampLogicalType)
		if !ok || !sameUnit(t.Unit, lt.TimeUnit()) {
			return 0, fmt.Errorf("column %s: logical type %s for Arrow %s", descr.Path(), descr.LogicalType(), dt)
		}
		return want(kindInt64, parquet.Types.Int64)
	case *arrow.Float32Type:
		return want(kindFloat32, parquet.Types.Float)
	case *arrow.Float64Type:
		return want(kindFloat64, parquet.Types.Double)
	case *arrow.StringType, *arrow.BinaryType:
		return want(kindBytes, parquet.Types.ByteArray)
	case *arrow.FixedSizeBinaryType:
		if descr.TypeLength() != t.ByteWidth {
			return 0, fmt.Errorf("column %s: length %d for Arrow %s", descr.Path(), descr.TypeLength(), dt)
		}
		return want(kindFixed, parquet.Types.FixedLenByteArray)
	case *arrow.Decimal128Type:
		if descr.TypeLength() != int(pqarrow.DecimalSize(t.Precision)) {
			return 0, fmt.Errorf("column %s: length %d for Arrow %s", descr.Path(), descr.TypeLength(), dt)
		}
		return want(kindDecimal, parquet.Types.FixedLenByteArray)
	}
	return 0, fmt.Errorf("column %s: Arrow type %s is not covered", descr.Path(), dt)
}

func sameUnit(u arrow.TimeUnit, p schema.TimeUnitType) bool {
	switch u {
	case arrow.Millisecond:
		return p == schema.TimeUnitMillis
	case arrow.Microsecond:
		return p == schema.TimeUnitMicros
	case arrow.Nanosecond:
		return p == schema.TimeUnitNanos
	}
	return false
}
