package manifest

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// Partition values decode from Avro straight into the literal
// representation of literal.go. How an Avro value becomes a literal of an
// Iceberg type is decided once per (writer's Avro type, Iceberg type) when
// a manifest's schema is compiled, into a litOp that the per-value decoder
// switches on.
//
// The rules are those the manifest reader has always applied: Avro logical
// types are honoured where they name a unit (date, time-millis,
// time-micros, timestamp-millis, timestamp-micros, decimal), a value reads
// as a wider type where the spec allows promotion (int to long, float to
// double), and a type the writer's Avro does not fit is an error for each
// non-null value.

// litOp is one way of turning an Avro value into a literal.
type litOp uint8

const (
	litFail        litOp = iota // skip the value, then fail
	litNull                     // null → nil
	litBool                     // boolean → bool
	litInt                      // int → int32
	litIntToLong                // int → int64
	litLong                     // long → int64
	litLongTimes                // long × scale → int64 (timestamp units)
	litTimeMillis               // time-millis int → µs, as a Duration would
	litTimeMicros               // time-micros long → µs, as a Duration would
	litFloat                    // float → float32
	litFloatDouble              // float → float64
	litDouble                   // double → float64
	litDecimal                  // bytes or fixed, two's complement → decimal128.Num
	litString                   // string or enum → string; bytes → string
	litUUID                     // fixed or bytes of 16, or a uuid string → [16]byte
	litBinary                   // bytes or fixed → []byte; string → []byte
)

// literalPlan decodes one Avro value (of a non-union type) to a literal.
type literalPlan struct {
	op    litOp
	s     *avro.Schema // the writer's type
	scale int64        // litLongTimes: the factor; litDecimal: the target scale
	from  int          // litDecimal: the scale of the written value
	err   string       // litFail: why
}

// avroClass is how goavro, which decoded manifests before, presented a
// value of an Avro type: the logical types it knows change the Go type.
type avroClass uint8

const (
	classOther avroClass = iota
	classBool
	classInt32
	classInt64
	classFloat32
	classFloat64
	classBytes
	classString
	classDate      // int date: a time.Time at midnight UTC
	classTimeMs    // int time-millis: a time.Duration
	classTimeUs    // long time-micros: a time.Duration
	classTsMs      // long timestamp-millis: a time.Time
	classTsUs      // long timestamp-micros: a time.Time
	classRat       // bytes or fixed decimal: a *big.Rat
	classNull      // null
	classUnsupport // a record, array, map or union: never a literal
)

func classOf(s *avro.Schema) avroClass {
	switch s.Kind {
	case avro.KindNull:
		return classNull
	case avro.KindBoolean:
		return classBool
	case avro.KindInt:
		switch s.Logical {
		case "date":
			return classDate
		case "time-millis":
			return classTimeMs
		}
		return classInt32
	case avro.KindLong:
		switch s.Logical {
		case "time-micros":
			return classTimeUs
		case "timestamp-millis":
			return classTsMs
		case "timestamp-micros":
			return classTsUs
		}
		return classInt64
	case avro.KindFloat:
		return classFloat32
	case avro.KindDouble:
		return classFloat64
	case avro.KindBytes, avro.KindFixed:
		if s.Logical == "decimal" {
			return classRat
		}
		return classBytes
	case avro.KindString, avro.KindEnum:
		return classString
	}
	return classUnsupport
}

// compileLiteral decides how a value of Avro type s (not a union) becomes a
// literal of Iceberg type t; a nil or unknown t takes the type from the
// Avro schema alone, as for a partition field whose source column was
// dropped.
func compileLiteral(s *avro.Schema, t iceberg.Type) literalPlan {
	if _, unknown := t.(iceberg.UnknownType); unknown || t == nil {
		t = avroIcebergType(s)
	}
	c := classOf(s)
	if c == classNull {
		return literalPlan{op: litNull, s: s}
	}
	p := literalPlan{s: s, err: fmt.Sprintf("Avro %s value does not convert to %v", s.Type, t)}
	set := func(op litOp) literalPlan { p.op = op; return p }
	switch t := t.(type) {
	case iceberg.BooleanType:
		if c == classBool {
			return set(litBool)
		}
	case iceberg.IntType:
		if c == classInt32 {
			return set(litInt)
		}
	case iceberg.DateType:
		if c == classInt32 || c == classDate {
			return set(litInt)
		}
	case iceberg.LongType:
		switch c {
		case classInt32:
			return set(litIntToLong)
		case classInt64:
			return set(litLong)
		}
	case iceberg.TimeType:
		switch c {
		case classTimeMs:
			return set(litTimeMillis)
		case classTimeUs:
			return set(litTimeMicros)
		case classInt64:
			return set(litLong)
		}
	case iceberg.TimestampType, iceberg.TimestampTzType:
		switch c {
		case classTsMs:
			p.scale = 1000
			return set(litLongTimes)
		case classTsUs:
			return set(litLong)
		case classInt64:
			if strings.HasSuffix(s.Logical, "timestamp-millis") {
				p.scale = 1000
				return set(litLongTimes)
			}
			return set(litLong)
		}
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		switch c {
		case classInt64:
			return set(litLong)
		case classTsMs:
			p.scale = 1_000_000
			return set(litLongTimes)
		case classTsUs:
			p.scale = 1000
			return set(litLongTimes)
		}
	case iceberg.FloatType:
		if c == classFloat32 {
			return set(litFloat)
		}
	case iceberg.DoubleType:
		switch c {
		case classFloat64:
			return set(litDouble)
		case classFloat32:
			return set(litFloatDouble)
		}
	case iceberg.DecimalType:
		p.scale, p.from = int64(t.Scale), t.Scale
		switch c {
		case classRat:
			p.from = s.Scale
			return set(litDecimal)
		case classBytes:
			return set(litDecimal)
		}
		p.err = fmt.Sprintf("decimal value of Avro %s", s.Type)
	case iceberg.StringType:
		if c == classString || c == classBytes {
			return set(litString)
		}
	case iceberg.UUIDType:
		if c == classBytes || c == classString {
			return set(litUUID)
		}
		p.err = fmt.Sprintf("uuid value of Avro %s", s.Type)
	case iceberg.FixedType, iceberg.BinaryType:
		if c == classBytes || c == classString {
			return set(litBinary)
		}
	}
	return set(litFail)
}

// avroIcebergType is the Iceberg type an Avro schema stands for.
func avroIcebergType(s *avro.Schema) iceberg.Type {
	switch s.Kind {
	case avro.KindBoolean:
		return iceberg.BooleanType{}
	case avro.KindInt:
		switch s.Logical {
		case "date":
			return iceberg.DateType{}
		case "time-millis":
			return iceberg.TimeType{}
		}
		return iceberg.IntType{}
	case avro.KindLong:
		switch s.Logical {
		case "time-micros":
			return iceberg.TimeType{}
		case "timestamp-micros", "timestamp-millis", "local-timestamp-micros", "local-timestamp-millis":
			return iceberg.TimestampType{}
		case "timestamp-nanos", "local-timestamp-nanos":
			return iceberg.TimestampNsType{}
		}
		return iceberg.LongType{}
	case avro.KindFloat:
		return iceberg.FloatType{}
	case avro.KindDouble:
		return iceberg.DoubleType{}
	case avro.KindString, avro.KindEnum:
		if s.Logical == "uuid" {
			return iceberg.UUIDType{}
		}
		return iceberg.StringType{}
	case avro.KindBytes, avro.KindFixed:
		switch {
		case s.Logical == "decimal":
			return iceberg.DecimalType{Precision: s.Precision, Scale: s.Scale}
		case s.Logical == "uuid" && s.Kind == avro.KindFixed:
			return iceberg.UUIDType{}
		case s.Kind == avro.KindFixed:
			return iceberg.FixedType{Length: s.Size}
		}
		return iceberg.BinaryType{}
	}
	return iceberg.UnknownType{}
}

// decode reads one value and returns its literal.
func (p *literalPlan) decode(r *valueReader) (any, error) {
	d := &r.d
	switch p.op {
	case litNull:
		return nil, nil
	case litBool:
		return d.Boolean(), nil
	case litInt:
		return d.Int(), nil
	case litIntToLong:
		return int64(d.Int()), nil
	case litLong:
		return d.Long(), nil
	case litLongTimes:
		return d.Long() * p.scale, nil
	case litTimeMillis:
		return (time.Duration(d.Int()) * time.Millisecond).Microseconds(), nil
	case litTimeMicros:
		return (time.Duration(d.Long()) * time.Microsecond).Microseconds(), nil
	case litFloat:
		return d.Float(), nil
	case litFloatDouble:
		return float64(d.Float()), nil
	case litDouble:
		return d.Double(), nil
	case litDecimal:
		b, _ := r.rawBytes(p.s, "")
		if !r.ok() {
			return nil, nil
		}
		return decodeDecimal(b, p.from, int(p.scale))
	case litString:
		b, _ := r.strOrBytes(p.s)
		return string(b), nil
	case litUUID:
		b, isString := r.strOrBytes(p.s)
		if !r.ok() {
			return nil, nil
		}
		return parseUUID(b, isString)
	case litBinary:
		b, _ := r.strOrBytes(p.s)
		if !r.ok() {
			return nil, nil
		}
		return append([]byte{}, b...), nil
	}
	d.Skip(p.s)
	return nil, fmt.Errorf("%w: %s", iceberg.ErrInvalidMetadata, p.err)
}

// strOrBytes reads a string, enum symbol, bytes or fixed value, aliasing
// the block.
func (r *valueReader) strOrBytes(s *avro.Schema) (b []byte, isString bool) {
	switch s.Kind {
	case avro.KindString, avro.KindEnum:
		b, _ = r.strBytes(s, "")
		return b, true
	}
	b, _ = r.rawBytes(s, "")
	return b, false
}

// maxDecimalScale bounds the scales decodeDecimal accepts, far beyond the
// 38 digits of an Iceberg decimal.
const maxDecimalScale = 1000

// decodeDecimal returns the unscaled value at scale to of a two's-complement
// big-endian unscaled value at scale from. It must be exact and fit in 128
// bits.
func decodeDecimal(b []byte, from, to int) (any, error) {
	if from > maxDecimalScale || to > maxDecimalScale {
		// Scales this large come only from damaged schemas; computing
		// their powers of ten would take a long time.
		return nil, fmt.Errorf("%w: decimal scale %d or %d out of range", iceberg.ErrInvalidMetadata, from, to)
	}
	if from == to && len(b) <= 8 {
		var v int64
		if len(b) > 0 && b[0]&0x80 != 0 {
			v = -1
		}
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return decimal128.FromI64(v), nil
	}
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	r := new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(from)), nil))
	n = new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(to)), nil))
	q, m := n.QuoRem(n, r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		return nil, fmt.Errorf("%w: decimal %s is not exact at scale %d", iceberg.ErrInvalidMetadata, r.RatString(), to)
	}
	if q.BitLen() > 127 {
		return nil, fmt.Errorf("%w: decimal %s does not fit in 128 bits", iceberg.ErrInvalidMetadata, r.RatString())
	}
	return decimal128.FromBigInt(q), nil
}

// parseUUID reads a uuid written as 16 bytes or as a string.
func parseUUID(b []byte, isString bool) (any, error) {
	var u [16]byte
	if !isString && len(b) == 16 {
		copy(u[:], b)
		return u, nil
	}
	if isString && len(b) <= 64 {
		h := strings.ReplaceAll(string(b), "-", "")
		if len(h) == 32 {
			if _, err := hex.Decode(u[:], []byte(h)); err == nil {
				return u, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: uuid value %q", iceberg.ErrInvalidMetadata, b)
}
