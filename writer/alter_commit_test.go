package writer

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

func TestAlterCommits(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, false, nil)
		f.write(Append, "", span(0, 6)...)
		head := f.current().SnapshotID
		tb, err := f.w.Alter(context.Background(), f.id, AlterRequest{
			Schema: []SchemaChange{
				{Op: "add_column", Path: "extra", Type: json.RawMessage(`{"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":"int"}]}`), Doc: "more"},
				{Op: "update_doc", Path: "p", Doc: "id mod 3"},
				{Op: "set_identifier_fields", Fields: []string{"id"}},
			},
			PartitionSpec:    []SpecChange{{Op: "add_field", Source: "id", Transform: "bucket[4]"}},
			SortOrder:        []SortField{{Source: "id", Direction: "desc"}},
			SetProperties:    map[string]string{"owner": "maint"},
			RemoveProperties: []string{"absent"},
			Refs:             []RefChange{{Op: "create_branch", Name: "audit", MaxRefAgeMs: ptr(int64(86400000))}},
		})
		if err != nil {
			t.Fatal(err)
		}
		md := tb.Metadata
		s := md.CurrentSchema()
		extra, ok := s.FieldByPath("extra.a")
		if s.ID != 1 || md.LastColumnID != 5 || !ok || extra.ID != 5 || !slices.Equal(s.IdentifierFieldIDs, []int{1}) {
			t.Fatalf("schema %d %s last %d identifiers %v", s.ID, s, md.LastColumnID, s.IdentifierFieldIDs)
		}
		if p, _ := s.FieldByPath("p"); p.Doc != "id mod 3" {
			t.Errorf("p's doc is %q", p.Doc)
		}
		spec, _ := md.SpecByID(md.DefaultSpecID)
		if md.DefaultSpecID != 1 || len(spec.Fields) != 1 || spec.Fields[0].Name != "id_bucket_4" || spec.Fields[0].FieldID != 1000 || md.LastPartitionID != 1000 {
			t.Errorf("spec %d %+v last %d", md.DefaultSpecID, spec, md.LastPartitionID)
		}
		if md.DefaultSortOrderID != 1 || md.Properties["owner"] != "maint" {
			t.Errorf("sort order %d props %v", md.DefaultSortOrderID, md.Properties)
		}
		if r := md.Refs["audit"]; r.SnapshotID != head || r.Type != iceberg.RefBranch || r.MaxRefAgeMs == nil {
			t.Errorf("audit = %+v", r)
		}
		// Old rows read under the new schema, and new rows go to the new
		// spec's partitions.
		f.wantIDs(span(0, 6))
		f.write(Append, "", 6, 7)
		f.wantIDs(span(0, 8))
		if got := f.current().SchemaID; got == nil || *got != 1 {
			t.Errorf("the append's snapshot has schema %v", got)
		}
		f.wantNoOrphans()

		// A refused change commits nothing.
		before := f.load().MetadataLocation
		_, err = f.w.Alter(context.Background(), f.id, AlterRequest{
			SetProperties: map[string]string{"x": "y"},
			Schema:        []SchemaChange{{Op: "drop_column", Path: "id"}},
		})
		if !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("dropping an identifier field: %v", err)
		}
		if f.load().MetadataLocation != before || f.load().Metadata.Properties["x"] != "" {
			t.Fatal("a refused alter committed")
		}
	})
}

// An alter that races another alter of the schema retries on the fresh
// schema and keeps both changes (the requirement caught the race).
func TestAlterRetriesOnAConcurrentSchemaChange(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, false, map[string]string{propMinWait: "1", propMaxWait: "2"})
		other := f.newWriter(nil)
		var rc *racingCatalog
		w := f.newWriter(func(c Catalog) Catalog {
			rc = &racingCatalog{Catalog: c}
			return rc
		})
		rc.race = func() error {
			_, err := other.Alter(context.Background(), f.id, AlterRequest{Schema: []SchemaChange{{Op: "add_column", Path: "first", Type: json.RawMessage(`"string"`)}}})
			return err
		}
		rc.races.Store(1)
		tb, err := w.Alter(context.Background(), f.id, AlterRequest{Schema: []SchemaChange{{Op: "add_column", Path: "second", Type: json.RawMessage(`"string"`)}}})
		if err != nil {
			t.Fatal(err)
		}
		s := tb.Metadata.CurrentSchema()
		first, ok1 := s.FieldByPath("first")
		second, ok2 := s.FieldByPath("second")
		if !ok1 || !ok2 || first.ID != 4 || second.ID != 5 || tb.Metadata.LastColumnID != 5 {
			t.Fatalf("schema %s (last %d): want first=4 then second=5", s, tb.Metadata.LastColumnID)
		}
		if _, err := w.Alter(context.Background(), f.id, AlterRequest{Refs: []RefChange{{Op: "fast_forward", Name: "nope", Target: "main"}}}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("fast-forward of a missing branch: %v", err)
		}
	})
}
