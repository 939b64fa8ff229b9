package glue

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue/types"

	"github.com/iceflight/iceflight/catalog/pointer"
	"github.com/iceflight/iceflight/iceberg"
)

// The parameters of a mirrored column, as Iceberg Java's
// IcebergToGlueConverter and PyIceberg's glue.py name them.
const (
	fieldIDParam       = "iceberg.field.id"
	fieldOptionalParam = "iceberg.field.optional"
	fieldCurrentParam  = "iceberg.field.current"
)

// commentProperty is the table property Java copies into the Glue table's
// Description (IcebergToGlueConverter.GLUE_DESCRIPTION_KEY).
const commentProperty = "comment"

// additionalLocationProperties are the table properties whose values Java
// lists as the storage descriptor's AdditionalLocations: where a table
// writes outside its location.
var additionalLocationProperties = []string{
	"write.data.path", "write.metadata.path", "write.object-storage.path", "write.folder-storage.path",
}

// storageDescriptor mirrors md into a Glue storage descriptor as Iceberg
// Java's IcebergToGlueConverter.setTableInputInformation does, for people
// and tools that browse Glue: the table's location, the locations it
// writes to besides, and its columns. The metadata file stays the only
// truth; nothing reads these back. old is the Glue table being replaced,
// or nil: its columns' comments are kept where the schema has no doc.
func storageDescriptor(md *iceberg.TableMetadata, old *types.Table) *types.StorageDescriptor {
	// Java sends the list even when it is empty.
	sd := &types.StorageDescriptor{Location: aws.String(md.Location), Columns: columns(md, old), AdditionalLocations: []string{}}
	for _, p := range additionalLocationProperties {
		if v, ok := md.Properties[p]; ok && !slices.Contains(sd.AdditionalLocations, v) {
			sd.AdditionalLocations = append(sd.AdditionalLocations, v)
		}
	}
	// Java collects them in a set, in no order; sorted, a commit that
	// changes none of them sends the same list.
	slices.Sort(sd.AdditionalLocations)
	return sd
}

// description returns the Glue table's Description: the table's comment
// property, else the description old has (nil: none).
func description(md *iceberg.TableMetadata, old *types.Table) *string {
	if c, ok := md.Properties[commentProperty]; ok {
		return aws.String(c)
	}
	if old != nil {
		return old.Description
	}
	return nil
}

// columns lists the top-level fields of the current schema, then those of
// older schemas whose names it has not listed yet, each with its Glue type
// and its field id, optionality and currency as parameters.
func columns(md *iceberg.TableMetadata, old *types.Table) []types.Column {
	comments := map[string]string{}
	if old != nil && old.StorageDescriptor != nil {
		for _, c := range old.StorageDescriptor.Columns {
			if c.Name != nil && c.Comment != nil {
				comments[*c.Name] = *c.Comment
			}
		}
	}
	var out []types.Column
	seen := map[string]bool{}
	add := func(f iceberg.NestedField, current bool) {
		if seen[f.Name] {
			return
		}
		seen[f.Name] = true
		c := types.Column{
			Name: aws.String(f.Name),
			Type: aws.String(glueType(f.Type)),
			Parameters: map[string]string{
				fieldIDParam:       strconv.Itoa(f.ID),
				fieldOptionalParam: strconv.FormatBool(!f.Required),
				fieldCurrentParam:  strconv.FormatBool(current),
			},
		}
		if f.Doc != "" {
			c.Comment = aws.String(f.Doc)
		} else if cm, ok := comments[f.Name]; ok {
			c.Comment = aws.String(cm)
		}
		out = append(out, c)
	}
	for _, s := range md.Schemas {
		if s.ID == md.CurrentSchemaID {
			for _, f := range s.Fields {
				add(f, true)
			}
		}
	}
	for _, s := range md.Schemas {
		if s.ID != md.CurrentSchemaID {
			for _, f := range s.Fields {
				add(f, false)
			}
		}
	}
	return out
}

// glueType spells t as Glue (and Hive) type strings do, as Java's
// IcebergToGlueConverter.toTypeString does: time and uuid are strings,
// both timestamps are timestamp, fixed is binary, and a type Hive has no
// name for is Java's name of its type id in lower case.
func glueType(t iceberg.Type) string { return pointer.HiveTypeString(t, gluePrimitive) }

// gluePrimitive is glueType of a primitive type.
func gluePrimitive(t iceberg.Type) string {
	if name, ok := pointer.HivePrimitive(t); ok {
		return name
	}
	switch t.(type) {
	case iceberg.TimestampType, iceberg.TimestampTzType:
		return "timestamp"
	case iceberg.FixedType, iceberg.BinaryType:
		return "binary"
	// Java's TypeID names (Type.TypeID), lower-cased.
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return "timestamp_nano"
	case iceberg.GeometryType:
		return "geometry"
	case iceberg.GeographyType:
		return "geography"
	case iceberg.VariantType:
		return "variant"
	case iceberg.UnknownType:
		return "unknown"
	}
	return strings.ToLower(t.String())
}
