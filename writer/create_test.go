package writer

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

var createSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "loc", Type: arrow.StructOf(arrow.Field{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

// Names as Iceberg Java's PartitionSpec.Builder derives them.
func TestCreateTablePartitionNamesAsJava(t *testing.T) {
	t.Parallel()
	md, err := newMetadata(CreateTable{Schema: createSchema, PartitionBy: []PartitionField{
		{Source: "id", Transform: "bucket[16]"},
		{Source: "name", Transform: "truncate[4]"},
		{Source: "ts", Transform: "day"},
		{Source: "ts", Transform: "hour"},
		{Source: "ts", Transform: "month", Name: "m"},
		{Source: "ts", Transform: "year"},
		{Source: "loc.city", Transform: "identity"},
		{Source: "score", Transform: "void"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, transform, source string
	}{
		{"id_bucket", "bucket[16]", "id"}, {"name_trunc", "truncate[4]", "name"}, {"ts_day", "day", "ts"},
		{"ts_hour", "hour", "ts"}, {"m", "month", "ts"}, {"ts_year", "year", "ts"}, {"loc.city", "identity", "city"},
		{"score_null", "void", "score"},
	}
	spec := md.Specs[0]
	if len(spec.Fields) != len(want) {
		t.Fatalf("%d partition fields, want %d", len(spec.Fields), len(want))
	}
	schema := md.CurrentSchema()
	for i, w := range want {
		f := spec.Fields[i]
		src, ok := schema.FieldByID(f.SourceID)
		if f.Name != w.name || f.Transform.String() != w.transform || !ok || src.Name != w.source || f.FieldID != 1000+i {
			t.Errorf("field %d: %s %s of %d (%s) id %d, want %s %s of %s id %d", i, f.Name, f.Transform, f.SourceID, src.Name, f.FieldID, w.name, w.transform, w.source, 1000+i)
		}
	}
	if md.FormatVersion != 2 || md.DefaultSortOrderID != 0 {
		t.Fatalf("format version %d, sort order %d; want 2 and unsorted", md.FormatVersion, md.DefaultSortOrderID)
	}
}

func TestCreateTableSortOrderDefaults(t *testing.T) {
	t.Parallel()
	md, err := newMetadata(CreateTable{Schema: createSchema, FormatVersion: 3, SortBy: []SortField{
		{Source: "id"}, {Source: "ts", Direction: "desc"}, {Source: "name", Transform: "truncate[2]", NullOrder: "nulls-last"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var order iceberg.SortOrder
	for _, o := range md.SortOrders {
		if o.OrderID == md.DefaultSortOrderID {
			order = o
		}
	}
	want := []iceberg.SortField{
		{Transform: "identity", Direction: "asc", NullOrder: "nulls-first"},
		{Transform: "identity", Direction: "desc", NullOrder: "nulls-last"},
		{Transform: "truncate[2]", Direction: "asc", NullOrder: "nulls-last"},
	}
	if order.OrderID != 1 || len(order.Fields) != 3 {
		t.Fatalf("sort order %+v, want id 1 with 3 fields", order)
	}
	for i, w := range want {
		g := order.Fields[i]
		if g.Transform != w.Transform || g.Direction != w.Direction || g.NullOrder != w.NullOrder {
			t.Errorf("sort field %d: %+v, want %+v", i, g, w)
		}
	}
	if md.FormatVersion != 3 {
		t.Fatalf("format version %d", md.FormatVersion)
	}
}

func TestCreateTableRefusesBadRequests(t *testing.T) {
	t.Parallel()
	cases := map[string]CreateTable{
		"no schema":                       {},
		"unknown partition source":        {Schema: createSchema, PartitionBy: []PartitionField{{Source: "nope", Transform: "identity"}}},
		"unknown transform":               {Schema: createSchema, PartitionBy: []PartitionField{{Source: "id", Transform: "zorder"}}},
		"bucket of a double":              {Schema: createSchema, PartitionBy: []PartitionField{{Source: "score", Transform: "bucket[4]"}}},
		"day of a string":                 {Schema: createSchema, PartitionBy: []PartitionField{{Source: "name", Transform: "day"}}},
		"identity of a struct":            {Schema: createSchema, PartitionBy: []PartitionField{{Source: "loc", Transform: "identity"}}},
		"a partition name twice":          {Schema: createSchema, PartitionBy: []PartitionField{{Source: "id", Transform: "identity"}, {Source: "name", Transform: "identity", Name: "id"}}},
		"a bad sort direction":            {Schema: createSchema, SortBy: []SortField{{Source: "id", Direction: "up"}}},
		"format version 4":                {Schema: createSchema, FormatVersion: 4},
		"format version and property too": {Schema: createSchema, FormatVersion: 3, Properties: map[string]string{"format-version": "2"}},
	}
	for name, req := range cases {
		if _, err := newMetadata(req); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
}

func TestCreateTableIfNotExists(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, false, nil)
		before := f.load()
		if _, err := f.w.CreateTable(context.Background(), f.id, CreateTable{Schema: createSchema}); !errors.Is(err, catalog.ErrTableExists) {
			t.Fatalf("second create: %v, want ErrTableExists", err)
		}
		got, err := f.w.CreateTable(context.Background(), f.id, CreateTable{Schema: createSchema, IfNotExists: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.Metadata.TableUUID != before.Metadata.TableUUID || len(got.Metadata.CurrentSchema().Fields) != 3 {
			t.Fatal("IfNotExists did not return the existing table")
		}
	})
}
