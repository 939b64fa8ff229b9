package pointer

import (
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// HiveTypeString spells t as the Hive Metastore and Glue spell column
// types: struct<a:int,b:string>, array<...>, map<...,...> around the
// names primitive gives each primitive type. Metastores mirror a table's
// schema in their columns this way; Java's Glue and Hive catalogs name
// some primitives differently, so each store passes its own.
func HiveTypeString(t iceberg.Type, primitive func(iceberg.Type) string) string {
	switch t := t.(type) {
	case *iceberg.StructType:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = f.Name + ":" + HiveTypeString(f.Type, primitive)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	case *iceberg.ListType:
		return "array<" + HiveTypeString(t.Element, primitive) + ">"
	case *iceberg.MapType:
		return "map<" + HiveTypeString(t.Key, primitive) + "," + HiveTypeString(t.Value, primitive) + ">"
	}
	return primitive(t)
}

// HivePrimitive names the primitive types the Hive Metastore and Glue
// spell alike (boolean, int, bigint, float, double, date, decimal(p,s),
// and string for strings, times and UUIDs, as Java's converters spell
// them), and reports false for those each store names its own way
// (timestamps, binary types, the v3 types).
func HivePrimitive(t iceberg.Type) (string, bool) {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return "boolean", true
	case iceberg.IntType:
		return "int", true
	case iceberg.LongType:
		return "bigint", true
	case iceberg.FloatType:
		return "float", true
	case iceberg.DoubleType:
		return "double", true
	case iceberg.DateType:
		return "date", true
	case iceberg.TimeType, iceberg.StringType, iceberg.UUIDType:
		return "string", true
	case iceberg.DecimalType:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale), true
	}
	return "", false
}
