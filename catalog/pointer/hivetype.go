package pointer

import (
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
