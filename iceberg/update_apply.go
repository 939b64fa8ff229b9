package iceberg

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// Table properties the metadata writer reads.
const (
	// PropMetadataPreviousVersionsMax bounds the metadata-log.
	PropMetadataPreviousVersionsMax = "write.metadata.previous-versions-max"
	// defaultPreviousVersionsMax is Iceberg Java's default for it.
	defaultPreviousVersionsMax = 100
)

// nowMs is the clock of ApplyUpdates and NewTableMetadata; tests replace it.
var nowMs = func() int64 { return time.Now().UnixMilli() }

// ApplyUpdates returns base with updates applied in order, with the
// semantics of Iceberg Java's TableMetadata.Builder; base is not changed.
// A nil base is a table being created: the updates build it from nothing
// (format version from an upgrade-format-version among them, else 2; a
// random table-uuid unless one is assigned). When no update changes
// anything, the result is base itself, as Java's builder returns it: the
// caller can compare pointers and skip writing a new metadata file.
// When baseLocation is not "", the result's metadata-log gains
// {base.LastUpdatedMs, baseLocation}, trimmed to the table property
// write.metadata.previous-versions-max (default 100). LastUpdatedMs becomes
// the time of the call (never earlier than base's or an added snapshot's).
// An update that cannot apply (a snapshot id that exists, a ref to an
// unknown snapshot, a lower format version) is an error wrapping
// ErrInvalidMetadata.
func ApplyUpdates(base *TableMetadata, baseLocation string, updates []Update) (*TableMetadata, error) {
	created := base == nil
	if created {
		// A table being created (a REST create transaction): start from
		// nothing, as Java's TableMetadata.buildFromEmpty.
		base = emptyMetadata(updates)
		baseLocation = ""
	}
	b := &builder{md: base.clone(), lastAddedSchema: -1, lastAddedSpec: -1, lastAddedOrder: -1}
	for i, u := range updates {
		if err := b.apply(u); err != nil {
			return nil, fmt.Errorf("%w: update %d (%s): %v", ErrInvalidMetadata, i, actionOf(u), err)
		}
	}
	md := b.md
	md.SnapshotLog = b.snapshotLog()
	if !created && !b.changed && reflect.DeepEqual(md, base.clone()) {
		// Nothing changed: Java's builder returns its base, and a
		// catalog has no new file to write.
		return base, nil
	}
	md.LastUpdatedMs = max(nowMs(), base.LastUpdatedMs, b.latestAddedMs)
	if baseLocation != "" {
		md.MetadataLog = append(md.MetadataLog, MetadataLogEntry{TimestampMs: base.LastUpdatedMs, MetadataFile: baseLocation})
		keep := defaultPreviousVersionsMax
		if v, ok := md.Properties[PropMetadataPreviousVersionsMax]; ok {
			if n, err := strconv.Atoi(v); err == nil {
				keep = n
			}
		}
		keep = max(keep, 1)
		if len(md.MetadataLog) > keep {
			md.MetadataLog = slices.Clone(md.MetadataLog[len(md.MetadataLog)-keep:])
		}
	}
	if md.TableUUID == "" {
		uuid, err := newUUID()
		if err != nil {
			return nil, fmt.Errorf("table uuid: %w", err)
		}
		md.TableUUID = uuid
	}
	if err := md.check(); err != nil {
		return nil, err
	}
	return md, nil
}

// emptyMetadata is the metadata a create transaction starts from: no
// schema, spec or sort order yet.
func emptyMetadata(updates []Update) *TableMetadata {
	version := DefaultFormatVersion
	for _, u := range updates {
		if up, ok := u.(UpgradeFormatVersion); ok {
			version = up.FormatVersion
		}
	}
	md := &TableMetadata{FormatVersion: version, LastPartitionID: partitionDataIDStart - 1, CurrentSchemaID: -1, DefaultSpecID: -1, DefaultSortOrderID: -1}
	if version >= 3 {
		zero := int64(0)
		md.NextRowID = &zero
	}
	return md
}

func actionOf(u Update) string {
	if u == nil {
		return "nil"
	}
	return u.Action()
}

// builder carries what Java's builder remembers across updates of one
// commit: the ids added last (for the -1 of set-current-schema and the
// like) and the snapshots added.
type builder struct {
	md               *TableMetadata
	lastAddedSchema  int
	lastAddedSpec    int
	lastAddedOrder   int
	added            map[int64]bool
	latestAddedMs    int64
	removedSnapshots bool
	// changed is a change Java records though the metadata may read the
	// same: a removal of schemas or specs, even of unknown ids.
	changed bool
	// mainAdded lists the snapshots added in this commit that main was
	// set to, in order: all but the one main ends at are intermediate.
	mainAdded []int64
}

func (b *builder) apply(u Update) error {
	md := b.md
	switch u := u.(type) {
	case AssignUUID:
		if u.UUID == "" {
			return fmt.Errorf("empty uuid")
		}
		if md.TableUUID != "" && md.TableUUID != u.UUID {
			return fmt.Errorf("cannot reassign uuid %s to %s", md.TableUUID, u.UUID)
		}
		md.TableUUID = u.UUID
	case UpgradeFormatVersion:
		switch {
		case u.FormatVersion > MaxFormatVersion:
			return fmt.Errorf("unsupported format version %d (at most %d)", u.FormatVersion, MaxFormatVersion)
		case u.FormatVersion < md.FormatVersion:
			return fmt.Errorf("cannot downgrade format version from %d to %d", md.FormatVersion, u.FormatVersion)
		case u.FormatVersion > md.FormatVersion:
			if u.FormatVersion >= 3 && md.NextRowID == nil {
				zero := int64(0)
				md.NextRowID = &zero
			}
			md.FormatVersion = u.FormatVersion
		}
	case AddSchema:
		return b.addSchema(u)
	case SetCurrentSchema:
		id := u.SchemaID
		if id == -1 {
			if b.lastAddedSchema < 0 {
				return fmt.Errorf("cannot set the last added schema: none was added")
			}
			id = b.lastAddedSchema
		}
		if _, ok := md.SchemaByID(id); !ok {
			return fmt.Errorf("unknown schema id %d", id)
		}
		md.CurrentSchemaID = id
	case AddSpec:
		return b.addSpec(u.Spec)
	case SetDefaultSpec:
		id := u.SpecID
		if id == -1 {
			if b.lastAddedSpec < 0 {
				return fmt.Errorf("cannot set the last added spec: none was added")
			}
			id = b.lastAddedSpec
		}
		if _, ok := md.SpecByID(id); !ok {
			return fmt.Errorf("unknown partition spec id %d", id)
		}
		md.DefaultSpecID = id
	case AddSortOrder:
		return b.addSortOrder(u.SortOrder)
	case SetDefaultSortOrder:
		id := u.SortOrderID
		if id == -1 {
			if b.lastAddedOrder < 0 {
				return fmt.Errorf("cannot set the last added sort order: none was added")
			}
			id = b.lastAddedOrder
		}
		if !slices.ContainsFunc(md.SortOrders, func(o SortOrder) bool { return o.OrderID == id }) {
			return fmt.Errorf("unknown sort order id %d", id)
		}
		md.DefaultSortOrderID = id
	case AddSnapshot:
		return b.addSnapshot(u.Snapshot)
	case SetSnapshotRef:
		return b.setRef(u.Name, u.Ref)
	case RemoveSnapshots:
		b.removeSnapshots(u.SnapshotIDs)
	case RemoveSnapshotRef:
		b.removeRef(u.Name)
	case RemoveSchemas:
		// Java's TableMetadata.Builder.removeSchemas: unknown ids are ignored.
		if slices.Contains(u.SchemaIDs, md.CurrentSchemaID) {
			return fmt.Errorf("cannot remove the current schema %d", md.CurrentSchemaID)
		}
		md.Schemas = slices.DeleteFunc(md.Schemas, func(s *Schema) bool { return slices.Contains(u.SchemaIDs, s.ID) })
		b.changed = b.changed || len(u.SchemaIDs) > 0
	case RemovePartitionSpecs:
		// Java's TableMetadata.Builder.removeSpecs: unknown ids are ignored.
		if slices.Contains(u.SpecIDs, md.DefaultSpecID) {
			return fmt.Errorf("cannot remove the default partition spec %d", md.DefaultSpecID)
		}
		md.Specs = slices.DeleteFunc(md.Specs, func(s PartitionSpec) bool { return slices.Contains(u.SpecIDs, s.ID) })
		b.changed = b.changed || len(u.SpecIDs) > 0
	case SetLocation:
		if u.Location == "" {
			return fmt.Errorf("empty location")
		}
		md.Location = u.Location
	case SetProperties:
		maps.Copy(md.Properties, u.Updates)
	case RemoveProperties:
		for _, k := range u.Removals {
			delete(md.Properties, k)
		}
	case nil:
		return fmt.Errorf("nil update")
	default:
		return fmt.Errorf("unsupported update %T", u)
	}
	return nil
}

func (b *builder) addSchema(u AddSchema) error {
	md := b.md
	if u.Schema == nil {
		return fmt.Errorf("nil schema")
	}
	if err := checkSchemaForVersion(u.Schema, md.FormatVersion); err != nil {
		return err
	}
	// Java 1.12 takes the larger of the table's last-column-id and the
	// schema's highest id, and ignores a last-column-id sent along
	// (deprecated in the REST spec).
	last := max(u.Schema.HighestFieldID(), md.LastColumnID)
	// Java reuses the id of an identical schema, and otherwise takes the
	// next id after the highest.
	newID := max(md.CurrentSchemaID, 0)
	for _, s := range md.Schemas {
		if sameSchema(s, u.Schema) {
			// Reused, not added: Java's -1 does not name it.
			md.LastColumnID = last
			return nil
		}
		if s.ID >= newID {
			newID = s.ID + 1
		}
	}
	s := NewSchema(newID, u.Schema.Fields...)
	s.IdentifierFieldIDs = slices.Clone(u.Schema.IdentifierFieldIDs)
	md.Schemas = append(md.Schemas, s)
	md.LastColumnID = last
	b.lastAddedSchema = newID
	return nil
}

// sameSchema is Java's Schema.sameSchema: the same fields and identifier
// fields, whatever the schema ids.
func sameSchema(a, b *Schema) bool {
	return reflect.DeepEqual(a.Fields, b.Fields) && slices.Equal(sortedInts(a.IdentifierFieldIDs), sortedInts(b.IdentifierFieldIDs))
}

func sortedInts(in []int) []int {
	out := slices.Clone(in)
	slices.Sort(out)
	return out
}

func (b *builder) addSpec(spec PartitionSpec) error {
	md := b.md
	// Fields without an id (a REST client may leave them out) take the id
	// of the same field in an earlier spec, as Java's UpdatePartitionSpec
	// does, else the next id after last-partition-id. (Java's builder
	// itself would count from 1000 again, reusing ids other fields have:
	// the spec wants partition field ids unique across specs.)
	next := md.LastPartitionID
	fields := make([]PartitionField, len(spec.Fields))
	for i, f := range spec.Fields {
		switch {
		case f.FieldID != 0:
		case md.FormatVersion == 1:
			// v1 specs number their fields from 1000 each (spec).
			f.FieldID = partitionDataIDStart + i
		case f.Transform != nil:
			f.FieldID = md.earlierPartitionFieldID(f)
		}
		if f.FieldID == 0 {
			next++
			f.FieldID = next
		}
		if f.Transform == nil {
			return fmt.Errorf("partition field %q without a transform", f.Name)
		}
		fields[i] = f
	}
	if md.FormatVersion == 1 {
		for i, f := range fields {
			if f.FieldID != partitionDataIDStart+i {
				return fmt.Errorf("v1 partition specs need sequential field ids from %d, field %q has %d", partitionDataIDStart, f.Name, f.FieldID)
			}
		}
	}
	schema := md.CurrentSchema()
	if schema == nil {
		return fmt.Errorf("cannot add a partition spec before a current schema")
	}
	for _, f := range fields {
		if _, void := f.Transform.(VoidTransform); void {
			continue
		}
		if _, ok := schema.FieldByID(f.SourceID); !ok {
			return fmt.Errorf("partition field %q: source column %d is not in the current schema", f.Name, f.SourceID)
		}
	}
	newID := 0
	for _, s := range md.Specs {
		if sameSpecFields(s.Fields, fields) {
			return nil
		}
		newID = max(newID, s.ID+1)
	}
	md.Specs = append(md.Specs, PartitionSpec{ID: newID, Fields: fields})
	for _, f := range fields {
		md.LastPartitionID = max(md.LastPartitionID, f.FieldID)
	}
	b.lastAddedSpec = newID
	return nil
}

// earlierPartitionFieldID is the id of a field with f's source and
// transform in an existing spec, 0 when there is none.
func (md *TableMetadata) earlierPartitionFieldID(f PartitionField) int {
	for _, s := range md.Specs {
		for _, old := range s.Fields {
			if old.SourceID == f.SourceID && old.Transform.String() == f.Transform.String() {
				return old.FieldID
			}
		}
	}
	return 0
}

func sameSpecFields(a, b []PartitionField) bool {
	return slices.EqualFunc(a, b, func(x, y PartitionField) bool {
		return x.SourceID == y.SourceID && x.FieldID == y.FieldID && x.Name == y.Name && x.Transform.String() == y.Transform.String()
	})
}

func (b *builder) addSortOrder(order SortOrder) error {
	md := b.md
	schema := md.CurrentSchema()
	if schema == nil && len(order.Fields) > 0 {
		return fmt.Errorf("cannot add a sort order before a current schema")
	}
	for _, f := range order.Fields {
		if _, ok := schema.FieldByID(f.SourceID); !ok {
			return fmt.Errorf("sort field: source column %d is not in the current schema", f.SourceID)
		}
	}
	// Java: the unsorted order is always id 0; an order like an existing
	// one reuses its id; a new one takes the next id from 1.
	if len(order.Fields) == 0 {
		if !slices.ContainsFunc(md.SortOrders, func(o SortOrder) bool { return o.OrderID == 0 }) {
			md.SortOrders = append(md.SortOrders, SortOrder{OrderID: 0, Fields: []SortField{}})
			b.lastAddedOrder = 0
		}
		return nil
	}
	newID := 1
	for _, o := range md.SortOrders {
		if slices.Equal(o.Fields, order.Fields) {
			return nil
		}
		newID = max(newID, o.OrderID+1)
	}
	md.SortOrders = append(md.SortOrders, SortOrder{OrderID: newID, Fields: slices.Clone(order.Fields)})
	b.lastAddedOrder = newID
	return nil
}

// check is the consistency Java's builder asserts before it builds.
func (md *TableMetadata) check() error {
	if md.CurrentSchema() == nil {
		return fmt.Errorf("%w: current-schema-id %d not among the schemas", ErrInvalidMetadata, md.CurrentSchemaID)
	}
	if _, ok := md.SpecByID(md.DefaultSpecID); !ok {
		return fmt.Errorf("%w: default-spec-id %d not among the specs", ErrInvalidMetadata, md.DefaultSpecID)
	}
	if !slices.ContainsFunc(md.SortOrders, func(o SortOrder) bool { return o.OrderID == md.DefaultSortOrderID }) {
		return fmt.Errorf("%w: default-sort-order-id %d not among the sort orders", ErrInvalidMetadata, md.DefaultSortOrderID)
	}
	for _, s := range md.Snapshots {
		if s.SequenceNumber > md.LastSequenceNumber {
			return fmt.Errorf("%w: snapshot %d has sequence number %d, above last-sequence-number %d", ErrInvalidMetadata, s.SnapshotID, s.SequenceNumber, md.LastSequenceNumber)
		}
	}
	if md.CurrentSnapshotID != nil {
		if _, ok := md.SnapshotByID(*md.CurrentSnapshotID); !ok {
			return fmt.Errorf("%w: current-snapshot-id %d not among the snapshots", ErrInvalidMetadata, *md.CurrentSnapshotID)
		}
	}
	return nil
}

// clone copies md deeply enough that the builder can change the copy's
// slices and maps without touching md. Schemas, snapshots and the like
// are values the builder never changes in place.
func (md *TableMetadata) clone() *TableMetadata {
	c := *md
	c.Schemas = slices.Clone(md.Schemas)
	c.Specs = slices.Clone(md.Specs)
	c.Snapshots = slices.Clone(md.Snapshots)
	c.SnapshotLog = slices.Clone(md.SnapshotLog)
	c.MetadataLog = slices.Clone(md.MetadataLog)
	c.SortOrders = slices.Clone(md.SortOrders)
	c.Statistics = slices.Clone(md.Statistics)
	c.PartitionStatistics = slices.Clone(md.PartitionStatistics)
	c.Properties = maps.Clone(md.Properties)
	if c.Properties == nil {
		c.Properties = map[string]string{}
	}
	c.Refs = maps.Clone(md.Refs)
	if c.Refs == nil {
		c.Refs = map[string]SnapshotRef{}
	}
	if md.CurrentSnapshotID != nil {
		id := *md.CurrentSnapshotID
		c.CurrentSnapshotID = &id
	}
	if md.NextRowID != nil {
		n := *md.NextRowID
		c.NextRowID = &n
	}
	return &c
}
