package iceberg

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// StatisticsFile is one entry of a table's statistics or
// partition-statistics list. Only the snapshot it describes is decoded:
// the rest is kept as read, so that rewriting the metadata (and expiring
// the snapshot it belongs to) neither loses nor garbles it.
type StatisticsFile struct {
	SnapshotID int64
	// JSON is the entry's object, compacted.
	JSON json.RawMessage
}

// UnmarshalJSON reads a statistics entry, keeping its text.
func (f *StatisticsFile) UnmarshalJSON(b []byte) error {
	var head struct {
		SnapshotID *int64 `json:"snapshot-id"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("%w: statistics entry: %v", ErrInvalidMetadata, err)
	}
	if head.SnapshotID == nil {
		return fmt.Errorf("%w: statistics entry without snapshot-id", ErrInvalidMetadata)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return fmt.Errorf("%w: statistics entry: %v", ErrInvalidMetadata, err)
	}
	*f = StatisticsFile{SnapshotID: *head.SnapshotID, JSON: buf.Bytes()}
	return nil
}

// MarshalJSON writes the entry as it was read.
func (f StatisticsFile) MarshalJSON() ([]byte, error) {
	if len(f.JSON) == 0 {
		return json.Marshal(struct {
			SnapshotID int64 `json:"snapshot-id"`
		}{f.SnapshotID})
	}
	return f.JSON, nil
}

// lastPartitionID is the table's last-partition-id: as written, or for a
// v1 file without one the highest partition field id of its specs, 999
// when there is none (Iceberg Java's reading of such files).
func lastPartitionID(written *int, specs []PartitionSpec) int {
	if written != nil {
		return *written
	}
	last := partitionDataIDStart - 1
	for _, s := range specs {
		for _, f := range s.Fields {
			last = max(last, f.FieldID)
		}
	}
	return last
}

// partitionDataIDStart is the first partition field id (spec: Partition
// Specs).
const partitionDataIDStart = 1000

// jsonMetadataOut is the metadata file in the order of Iceberg Java's
// TableMetadataParser.toJson, with the fields each format version has.
type jsonMetadataOut struct {
	FormatVersion      int                    `json:"format-version"`
	TableUUID          string                 `json:"table-uuid"`
	Location           string                 `json:"location"`
	LastSequenceNumber *int64                 `json:"last-sequence-number,omitempty"`
	LastUpdatedMs      int64                  `json:"last-updated-ms"`
	LastColumnID       int                    `json:"last-column-id"`
	Schema             *Schema                `json:"schema,omitempty"`
	CurrentSchemaID    int                    `json:"current-schema-id"`
	Schemas            []*Schema              `json:"schemas"`
	PartitionSpec      *[]jsonPartitionField  `json:"partition-spec,omitempty"`
	DefaultSpecID      int                    `json:"default-spec-id"`
	PartitionSpecs     []PartitionSpec        `json:"partition-specs"`
	LastPartitionID    int                    `json:"last-partition-id"`
	DefaultSortOrderID int                    `json:"default-sort-order-id"`
	SortOrders         []SortOrder            `json:"sort-orders"`
	Properties         map[string]string      `json:"properties"`
	CurrentSnapshotID  *int64                 `json:"current-snapshot-id"`
	NextRowID          *int64                 `json:"next-row-id,omitempty"`
	Refs               map[string]SnapshotRef `json:"refs"`
	Snapshots          []Snapshot             `json:"snapshots"`
	Statistics         []StatisticsFile       `json:"statistics"`
	PartitionStats     []StatisticsFile       `json:"partition-statistics"`
	SnapshotLog        []SnapshotLogEntry     `json:"snapshot-log"`
	MetadataLog        []MetadataLogEntry     `json:"metadata-log"`
}

// MarshalJSON writes the metadata file in the spec's JSON form for its
// format version, with every field Iceberg Java's TableMetadataParser
// requires, in the order it writes them.
func (md *TableMetadata) MarshalJSON() ([]byte, error) {
	if md.FormatVersion < 1 || md.FormatVersion > MaxFormatVersion {
		return nil, fmt.Errorf("%w: cannot write format-version %d", ErrUnsupportedVersion, md.FormatVersion)
	}
	current := md.CurrentSchema()
	if current == nil {
		return nil, fmt.Errorf("%w: current-schema-id %d not among the schemas", ErrInvalidMetadata, md.CurrentSchemaID)
	}
	out := jsonMetadataOut{
		FormatVersion:      md.FormatVersion,
		TableUUID:          md.TableUUID,
		Location:           md.Location,
		LastUpdatedMs:      md.LastUpdatedMs,
		LastColumnID:       md.LastColumnID,
		CurrentSchemaID:    md.CurrentSchemaID,
		Schemas:            md.Schemas,
		DefaultSpecID:      md.DefaultSpecID,
		PartitionSpecs:     orEmpty(md.Specs),
		LastPartitionID:    md.LastPartitionID,
		DefaultSortOrderID: md.DefaultSortOrderID,
		SortOrders:         sortOrdersOut(md.SortOrders),
		Properties:         md.Properties,
		CurrentSnapshotID:  md.CurrentSnapshotID,
		Refs:               md.Refs,
		Snapshots:          orEmpty(md.Snapshots),
		Statistics:         orEmpty(md.Statistics),
		PartitionStats:     orEmpty(md.PartitionStatistics),
		SnapshotLog:        orEmpty(md.SnapshotLog),
		MetadataLog:        orEmpty(md.MetadataLog),
	}
	if out.Properties == nil {
		out.Properties = map[string]string{}
	}
	if out.Refs == nil {
		out.Refs = map[string]SnapshotRef{}
	}
	if md.FormatVersion > 1 {
		seq := md.LastSequenceNumber
		out.LastSequenceNumber = &seq
	}
	if md.FormatVersion == 1 {
		// Older readers know only the current schema and the default
		// spec; Java keeps writing them for v1.
		out.Schema = current
		spec, ok := md.SpecByID(md.DefaultSpecID)
		if !ok {
			return nil, fmt.Errorf("%w: default-spec-id %d not among the specs", ErrInvalidMetadata, md.DefaultSpecID)
		}
		fields := partitionFieldsOut(spec.Fields)
		out.PartitionSpec = &fields
	}
	// No current snapshot: -1 up to v2, null from v3 on, as Java writes.
	if md.CurrentSnapshotID == nil && md.FormatVersion < 3 {
		none := int64(-1)
		out.CurrentSnapshotID = &none
	}
	if md.FormatVersion >= 3 {
		next := int64(0)
		if md.NextRowID != nil {
			next = *md.NextRowID
		}
		out.NextRowID = &next
	}
	return json.Marshal(out)
}

// orEmpty turns nil into an empty slice, which JSON writes as [] rather
// than null: Java refuses a null list.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func sortOrdersOut(in []SortOrder) []SortOrder {
	if len(in) == 0 {
		return []SortOrder{{OrderID: 0, Fields: []SortField{}}}
	}
	out := make([]SortOrder, len(in))
	for i, o := range in {
		out[i] = SortOrder{OrderID: o.OrderID, Fields: orEmpty(o.Fields)}
	}
	return out
}

// partitionFieldsOut is the fields list of a spec with every field id
// written.
func partitionFieldsOut(fields []PartitionField) []jsonPartitionField {
	out := make([]jsonPartitionField, len(fields))
	for i, f := range fields {
		id := f.FieldID
		out[i] = jsonPartitionField{SourceID: f.SourceID, FieldID: &id, Name: f.Name, Transform: f.Transform.String()}
	}
	return out
}

// nilIfEmpty reads an empty list as none, the way a file without the
// member reads.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
