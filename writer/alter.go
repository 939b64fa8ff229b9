package writer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// Alter changes the table's schema, partition spec, sort order,
// properties, format version and refs in one commit, built afresh on each
// retry. The requirements are those of Iceberg Java's UpdateSchema,
// UpdatePartitionSpec, ReplaceSortOrder and ManageSnapshots commits
// (current schema id and last column id, default spec id and last
// partition id, default sort order id, each changed ref's head), so a
// concurrent change to the same part of the metadata is a conflict that
// is retried on the fresh table, and one to another part is not.
func (w *Writer) Alter(ctx context.Context, id catalog.Identifier, req AlterRequest) (*catalog.Table, error) {
	if err := req.check(); err != nil {
		return nil, fmt.Errorf("alter %s: %w", id, err)
	}
	return w.commitUpdates(ctx, id, func(_ context.Context, t *catalog.Table) ([]iceberg.Requirement, []iceberg.Update, error) {
		reqs, updates, err := alterUpdates(t.Metadata, req)
		if err != nil {
			return nil, nil, fmt.Errorf("alter %s: %w", id, err)
		}
		return reqs, updates, nil
	})
}

// check rejects what no table could accept before anything is loaded.
func (req AlterRequest) check() error {
	for _, c := range req.Schema {
		if c.Op == "add_column" || c.Op == "update_type" {
			if _, err := iceberg.ParseTypeJSON(c.Type); err != nil {
				return fmt.Errorf("%w: %s %s: type %s: %v", ErrInvalidArgument, c.Op, c.Path, c.Type, err)
			}
		}
	}
	if req.FormatVersion < 0 || req.FormatVersion > iceberg.MaxFormatVersion {
		return fmt.Errorf("%w: format version %d", ErrInvalidArgument, req.FormatVersion)
	}
	return nil
}

// invalid wraps a builder's error as the caller's mistake.
func invalid(err error) error { return fmt.Errorf("%w: %w", ErrInvalidArgument, err) }

// alterUpdates turns req into the requirements and updates of one commit
// on md. It changes nothing in md.
func alterUpdates(md *iceberg.TableMetadata, req AlterRequest) ([]iceberg.Requirement, []iceberg.Update, error) {
	var reqs []iceberg.Requirement
	var updates []iceberg.Update
	if md.TableUUID != "" {
		reqs = append(reqs, iceberg.AssertTableUUID{UUID: md.TableUUID})
	}
	// The builders see the table at its new format version, so that a v3
	// default can come with the upgrade to v3.
	view := *md
	version := req.FormatVersion
	setProps := maps.Clone(req.SetProperties)
	if v, ok := setProps["format-version"]; ok {
		// Java treats the reserved property as an upgrade request.
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: format-version %q", ErrInvalidArgument, v)
		}
		version = max(version, n)
		delete(setProps, "format-version")
	}
	if version != 0 && version != md.FormatVersion {
		if version < md.FormatVersion {
			return nil, nil, fmt.Errorf("%w: cannot downgrade format version %d to %d", ErrInvalidArgument, md.FormatVersion, version)
		}
		if version > iceberg.MaxFormatVersion {
			return nil, nil, fmt.Errorf("%w: format version %d", ErrInvalidArgument, version)
		}
		view.FormatVersion = version
		updates = append(updates, iceberg.UpgradeFormatVersion{FormatVersion: version})
	}

	schema := md.CurrentSchema()
	if len(req.Schema) > 0 {
		s, last, changed, err := evolveSchema(&view, req.Schema)
		if err != nil {
			return nil, nil, err
		}
		if changed {
			schema = s
			reqs = append(reqs, iceberg.AssertCurrentSchemaID{CurrentSchemaID: md.CurrentSchemaID},
				iceberg.AssertLastAssignedFieldID{LastAssignedFieldID: md.LastColumnID})
			updates = append(updates, iceberg.AddSchema{Schema: s, LastColumnID: last}, iceberg.SetCurrentSchema{SchemaID: -1})
		}
	}
	if len(req.PartitionSpec) > 0 {
		spec, _, changed, err := evolveSpec(&view, schema, req.PartitionSpec)
		if err != nil {
			return nil, nil, err
		}
		if changed {
			reqs = append(reqs, iceberg.AssertDefaultSpecID{DefaultSpecID: md.DefaultSpecID},
				iceberg.AssertLastAssignedPartitionID{LastAssignedPartitionID: md.LastPartitionID})
			updates = append(updates, iceberg.AddSpec{Spec: spec}, iceberg.SetDefaultSpec{SpecID: -1})
		}
	}
	if len(req.SortOrder) > 0 {
		u, err := sortOrderUpdates(md, schema, req.SortOrder)
		if err != nil {
			return nil, nil, err
		}
		if len(u) > 0 {
			reqs = append(reqs, iceberg.AssertDefaultSortOrderID{DefaultSortOrderID: md.DefaultSortOrderID})
			updates = append(updates, u...)
		}
	}
	if len(setProps) > 0 {
		updates = append(updates, iceberg.SetProperties{Updates: setProps})
	}
	if len(req.RemoveProperties) > 0 {
		updates = append(updates, iceberg.RemoveProperties{Removals: slices.Clone(req.RemoveProperties)})
	}
	if len(req.Refs) > 0 {
		r, u, err := refUpdates(md, req.Refs)
		if err != nil {
			return nil, nil, err
		}
		reqs = append(reqs, r...)
		updates = append(updates, u...)
	}
	return reqs, updates, nil
}

// evolveSchema applies the schema changes in order.
func evolveSchema(md *iceberg.TableMetadata, changes []SchemaChange) (*iceberg.Schema, int, bool, error) {
	u := iceberg.NewSchemaUpdate(md)
	for i, c := range changes {
		if err := applySchemaChange(u, c); err != nil {
			return nil, 0, false, invalid(fmt.Errorf("schema change %d (%s): %w", i, c.Op, err))
		}
	}
	s, last, changed, err := u.Apply()
	if err != nil {
		return nil, 0, false, invalid(err)
	}
	return s, last, changed, nil
}

func applySchemaChange(u *iceberg.SchemaUpdate, c SchemaChange) error {
	typ := func() (iceberg.Type, error) { return iceberg.ParseTypeJSON(c.Type) }
	switch c.Op {
	case "add_column":
		t, err := typ()
		if err != nil {
			return err
		}
		return u.AddColumn(c.Path, t, c.Required, c.Doc, c.Default)
	case "drop_column":
		return u.DropColumn(c.Path)
	case "rename_column":
		return u.RenameColumn(c.Path, c.Name)
	case "update_type":
		t, err := typ()
		if err != nil {
			return err
		}
		return u.UpdateType(c.Path, t)
	case "make_optional":
		return u.MakeOptional(c.Path)
	case "make_required":
		return u.MakeRequired(c.Path)
	case "update_doc":
		return u.UpdateDoc(c.Path, c.Doc)
	case "move_first":
		return u.MoveFirst(c.Path)
	case "move_before":
		return u.MoveBefore(c.Path, c.Ref)
	case "move_after":
		return u.MoveAfter(c.Path, c.Ref)
	case "set_identifier_fields":
		return u.SetIdentifierFields(c.Fields...)
	}
	return fmt.Errorf("unknown op %q", c.Op)
}

// evolveSpec applies the partition spec changes in order.
func evolveSpec(md *iceberg.TableMetadata, schema *iceberg.Schema, changes []SpecChange) (iceberg.PartitionSpec, int, bool, error) {
	u := iceberg.NewSpecUpdate(md, schema)
	for i, c := range changes {
		var err error
		switch c.Op {
		case "add_field":
			err = u.AddField(c.Source, c.Transform, c.Name)
		case "remove_field":
			if c.Name != "" {
				err = u.RemoveField(c.Name)
			} else {
				err = u.RemoveFieldByTransform(c.Source, c.Transform)
			}
		case "rename_field":
			err = u.RenameField(c.Name, c.NewName)
		default:
			err = fmt.Errorf("unknown op %q", c.Op)
		}
		if err != nil {
			return iceberg.PartitionSpec{}, 0, false, invalid(fmt.Errorf("partition spec change %d (%s): %w", i, c.Op, err))
		}
	}
	spec, last, changed, err := u.Apply()
	if err != nil {
		return iceberg.PartitionSpec{}, 0, false, invalid(err)
	}
	return spec, last, changed, nil
}

// sortOrderUpdates makes fields the default sort order: the order that
// exists already with the same fields, or a new one with the next id, as
// Java's TableMetadata reuses orders.
func sortOrderUpdates(md *iceberg.TableMetadata, schema *iceberg.Schema, fields []SortField) ([]iceberg.Update, error) {
	order, err := buildSortOrder(schema, fields)
	if err != nil {
		return nil, invalid(err)
	}
	next := 1
	for _, o := range md.SortOrders {
		if slices.Equal(o.Fields, order.Fields) {
			if o.OrderID == md.DefaultSortOrderID {
				return nil, nil
			}
			return []iceberg.Update{iceberg.SetDefaultSortOrder{SortOrderID: o.OrderID}}, nil
		}
		next = max(next, o.OrderID+1)
	}
	order.OrderID = next
	return []iceberg.Update{iceberg.AddSortOrder{SortOrder: order}, iceberg.SetDefaultSortOrder{SortOrderID: -1}}, nil
}

// buildSortOrder resolves sort fields by column name, with Java's
// defaults: ascending, nulls first when ascending and last when
// descending.
func buildSortOrder(schema *iceberg.Schema, fields []SortField) (iceberg.SortOrder, error) {
	var order iceberg.SortOrder
	for _, f := range fields {
		col, ok := schema.FieldByPath(f.Source)
		if !ok {
			return order, fmt.Errorf("sort field %s: %w", f.Source, iceberg.ErrFieldNotFound)
		}
		transform := f.Transform
		if transform == "" {
			transform = "identity"
		}
		t := iceberg.ParseTransform(transform)
		if !iceberg.TransformApplies(t, col.Type) {
			return order, fmt.Errorf("sort field %s: %w: transform %s does not apply to %s", f.Source, iceberg.ErrInvalidChange, transform, col.Type)
		}
		dir := strings.ToLower(f.Direction)
		switch dir {
		case "":
			dir = "asc"
		case "asc", "desc":
		default:
			return order, fmt.Errorf("sort field %s: %w: direction %q", f.Source, iceberg.ErrInvalidChange, f.Direction)
		}
		nulls := strings.ToLower(f.NullOrder)
		switch nulls {
		case "":
			nulls = "nulls-first"
			if dir == "desc" {
				nulls = "nulls-last"
			}
		case "nulls-first", "nulls-last":
		default:
			return order, fmt.Errorf("sort field %s: %w: null order %q", f.Source, iceberg.ErrInvalidChange, f.NullOrder)
		}
		order.Fields = append(order.Fields, iceberg.SortField{SourceID: col.ID, Transform: t.String(), Direction: dir, NullOrder: nulls})
	}
	return order, nil
}
