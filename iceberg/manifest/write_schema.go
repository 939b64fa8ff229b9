package manifest

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/iceflight/iceflight/iceberg"
)

// The Avro schemas of manifests and manifest lists are derived from the
// Iceberg structs of the spec, as Iceberg Java's AvroSchemaUtil derives
// them: a struct is a record named "r" plus its field id (the top record
// takes the spec's name), an optional field is a union with null first and
// a null default, every field carries its "field-id", a list is an array
// with "element-id", and a map with non-string keys is an array of
// key/value records named "k<key-id>_v<value-id>" with logicalType "map".
// Java and PyIceberg resolve fields by these ids, so they are what matter;
// the names follow Java so that files look alike.

// avroConverter turns Iceberg types into Avro schemas (as JSON values).
// Avro forbids defining a name twice; where Java would refer to an earlier
// decimal(9,2) by its name, a second one is defined here under a name of
// its own (typeName), because PyIceberg 0.12 cannot resolve a reference to
// a named type. Readers match fields by id, so the name is only a label.
type avroConverter struct {
	defined map[string]bool
}

func newAvroConverter() *avroConverter { return &avroConverter{defined: map[string]bool{}} }

// record converts a struct to a record of the given name.
func (c *avroConverter) record(name string, t *iceberg.StructType) (map[string]any, error) {
	c.defined[name] = true
	fields := make([]any, 0, len(t.Fields))
	for _, f := range t.Fields {
		ft, err := c.typ(f.Type, f.ID)
		if err != nil {
			return nil, fmt.Errorf("field %d %s: %w", f.ID, f.Name, err)
		}
		field := map[string]any{"name": f.Name, "field-id": f.ID}
		if f.Required {
			field["type"] = ft
		} else {
			field["type"] = []any{"null", ft}
			field["default"] = nil
		}
		if f.Doc != "" {
			field["doc"] = f.Doc
		}
		fields = append(fields, field)
	}
	return map[string]any{"type": "record", "name": name, "fields": fields}, nil
}

// named returns a named type's definition, under the name typeName gives
// it.
func (c *avroConverter) named(base string, id int, def map[string]any) any {
	name := typeName(base, id, c.defined)
	c.defined[name] = true
	def["name"] = name
	return def
}

// typeName names a fixed type of the field with the given id: Java's name
// for it (base), or when that is taken, base and the field id.
func typeName(base string, id int, defined map[string]bool) string {
	if !defined[base] {
		return base
	}
	return base + "_" + strconv.Itoa(id)
}

// typ converts a type; id is the field id of the field holding it, which
// names a struct's record.
func (c *avroConverter) typ(t iceberg.Type, id int) (any, error) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return "boolean", nil
	case iceberg.IntType:
		return "int", nil
	case iceberg.LongType:
		return "long", nil
	case iceberg.FloatType:
		return "float", nil
	case iceberg.DoubleType:
		return "double", nil
	case iceberg.StringType:
		return "string", nil
	case iceberg.BinaryType:
		return "bytes", nil
	case iceberg.DateType:
		return map[string]any{"type": "int", "logicalType": "date"}, nil
	case iceberg.TimeType:
		return map[string]any{"type": "long", "logicalType": "time-micros"}, nil
	case iceberg.TimestampType:
		return map[string]any{"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": false}, nil
	case iceberg.TimestampTzType:
		return map[string]any{"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": true}, nil
	case iceberg.TimestampNsType:
		return map[string]any{"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": false}, nil
	case iceberg.TimestampTzNsType:
		return map[string]any{"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": true}, nil
	case iceberg.UUIDType:
		return c.named("uuid_fixed", id, map[string]any{"type": "fixed", "size": 16, "logicalType": "uuid"}), nil
	case iceberg.FixedType:
		return c.named("fixed_"+strconv.Itoa(t.Length), id, map[string]any{"type": "fixed", "size": t.Length}), nil
	case iceberg.DecimalType:
		return c.named(decimalName(t), id, map[string]any{"type": "fixed", "size": decimalSize(t.Precision),
			"logicalType": "decimal", "precision": t.Precision, "scale": t.Scale}), nil
	case *iceberg.StructType:
		return c.record("r"+strconv.Itoa(id), t)
	case *iceberg.ListType:
		elem, err := c.typ(t.Element, t.ElementID)
		if err != nil {
			return nil, err
		}
		if !t.ElementRequired {
			elem = []any{"null", elem}
		}
		return map[string]any{"type": "array", "items": elem, "element-id": t.ElementID}, nil
	case *iceberg.MapType:
		kv := &iceberg.StructType{Fields: []iceberg.NestedField{t.KeyField(), t.ValueField()}}
		name := "k" + strconv.Itoa(t.KeyID) + "_v" + strconv.Itoa(t.ValueID)
		rec, err := c.record(name, kv)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": rec, "logicalType": "map"}, nil
	}
	return nil, fmt.Errorf("type %v has no Avro form in a manifest", t)
}

func decimalName(t iceberg.DecimalType) string {
	return "decimal_" + strconv.Itoa(t.Precision) + "_" + strconv.Itoa(t.Scale)
}

// decimalSize is the fewest bytes whose two's complement holds every
// unscaled value of the precision, the fixed size Java gives a decimal.
func decimalSize(precision int) int {
	for n := 1; n < 16; n++ {
		// The largest magnitude n bytes hold is 2^(8n-1) - 1; compare its
		// digit count with the precision.
		if maxDigits(n) >= precision {
			return n
		}
	}
	return 16
}

// maxDigits is the number of decimal digits every value of n signed bytes
// can have: floor(log10(2^(8n-1) - 1)).
func maxDigits(n int) int {
	// log10(2) ≈ 0.30103; exact enough for n ≤ 16 (no power of two is
	// within rounding of a power of ten there).
	return int(float64(8*n-1) * 0.30102999566398120)
}

// avroSchemas renders a top struct as the Avro schema of the file
// ("avro.schema") and as the Iceberg schema JSON Java writes under
// "iceberg.schema".
func avroSchemas(name string, t *iceberg.StructType) (avroSchema, icebergSchema string, err error) {
	rec, err := newAvroConverter().record(name, t)
	if err != nil {
		return "", "", err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return "", "", err
	}
	ib, err := iceberg.NewSchema(0, t.Fields...).MarshalJSON()
	if err != nil {
		return "", "", err
	}
	return string(b), string(ib), nil
}
