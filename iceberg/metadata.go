package iceberg

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// MaxFormatVersion is the highest table format version this package reads.
const MaxFormatVersion = 3

// TableMetadata is a parsed table metadata file (format versions 1 to 3).
type TableMetadata struct {
	FormatVersion      int
	TableUUID          string
	Location           string
	LastSequenceNumber int64
	LastUpdatedMs      int64
	LastColumnID       int
	Schemas            []*Schema
	CurrentSchemaID    int
	Specs              []PartitionSpec
	DefaultSpecID      int
	LastPartitionID    int
	Properties         map[string]string
	// CurrentSnapshotID is nil for a table with no current snapshot (the
	// field absent, null or -1).
	CurrentSnapshotID  *int64
	Snapshots          []Snapshot
	SnapshotLog        []SnapshotLogEntry
	MetadataLog        []MetadataLogEntry
	SortOrders         []SortOrder
	DefaultSortOrderID int
	Refs               map[string]SnapshotRef
	// NextRowID is the v3 row-lineage counter.
	NextRowID *int64
	// Statistics and PartitionStatistics list the table's statistics
	// files, kept as read so that a rewritten metadata file keeps them.
	Statistics          []StatisticsFile
	PartitionStatistics []StatisticsFile
}

type jsonMetadata struct {
	FormatVersion      int                    `json:"format-version"`
	TableUUID          string                 `json:"table-uuid"`
	Location           string                 `json:"location"`
	LastSequenceNumber int64                  `json:"last-sequence-number"`
	LastUpdatedMs      int64                  `json:"last-updated-ms"`
	LastColumnID       int                    `json:"last-column-id"`
	Schema             json.RawMessage        `json:"schema"`
	Schemas            []json.RawMessage      `json:"schemas"`
	CurrentSchemaID    *int                   `json:"current-schema-id"`
	PartitionSpec      []jsonPartitionField   `json:"partition-spec"`
	PartitionSpecs     []jsonPartitionSpec    `json:"partition-specs"`
	DefaultSpecID      *int                   `json:"default-spec-id"`
	LastPartitionID    *int                   `json:"last-partition-id"`
	Properties         map[string]string      `json:"properties"`
	CurrentSnapshotID  *int64                 `json:"current-snapshot-id"`
	Snapshots          []Snapshot             `json:"snapshots"`
	SnapshotLog        []SnapshotLogEntry     `json:"snapshot-log"`
	MetadataLog        []MetadataLogEntry     `json:"metadata-log"`
	SortOrders         []SortOrder            `json:"sort-orders"`
	DefaultSortOrderID int                    `json:"default-sort-order-id"`
	Refs               map[string]SnapshotRef `json:"refs"`
	NextRowID          *int64                 `json:"next-row-id"`
	Statistics         []StatisticsFile       `json:"statistics"`
	PartitionStats     []StatisticsFile       `json:"partition-statistics"`
}

// ParseMetadata parses a table metadata file. Gzip-compressed metadata is
// recognised by its magic bytes, whatever the file is called.
func ParseMetadata(data []byte) (*TableMetadata, error) {
	if isGzip(data) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrInvalidMetadata, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrInvalidMetadata, err)
		}
	}
	return parseMetadata(string(data))
}

// ParseMetadataString is ParseMetadata for a file read into a string. The
// metadata's strings share text's memory instead of copying it: a busy
// table's metadata file is mostly snapshot summaries, so a cold load
// allocates, and touches, half as much.
func ParseMetadataString(text string) (*TableMetadata, error) {
	if isGzip([]byte(text[:min(len(text), 2)])) {
		return ParseMetadata([]byte(text))
	}
	return parseMetadata(text)
}

// jsonError describes a metadata file that is not the JSON it should be by
// where it goes wrong, never by what it holds: a syntax error message
// quotes the byte it met, and the file may be anything (a metadata
// location pointed at /etc/passwd showed its first letter).
func jsonError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("%w: not valid JSON at byte %d", ErrInvalidMetadata, syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Errorf("%w: field %s holds a JSON %s at byte %d, want %s", ErrInvalidMetadata, typ.Field, typ.Value, typ.Offset, typ.Type)
	}
	return fmt.Errorf("%w: %v", ErrInvalidMetadata, err)
}

func isGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

func parseMetadata(text string) (*TableMetadata, error) {
	var jm jsonMetadata
	// The snapshots and logs, most of a busy table's file, have their own
	// decoder (see splitBulk); the rest, a few kilobytes, goes to
	// encoding/json. Should the split fail, encoding/json reads everything
	// and reports the error.
	if rest, bulk, err := splitBulk(text); err == nil {
		if err := json.Unmarshal(rest, &jm); err != nil {
			// Offsets in rest are not the file's: parse the whole text
			// again for the position (an error costs no speed).
			if whole := json.Unmarshal([]byte(text), new(jsonMetadata)); whole != nil {
				err = whole
			}
			return nil, jsonError(err)
		}
		if bulk.found.snapshots {
			jm.Snapshots = bulk.snapshots
		}
		if bulk.found.snapshotLog {
			jm.SnapshotLog = bulk.snapshotLog
		}
		if bulk.found.metadataLog {
			jm.MetadataLog = bulk.metadataLog
		}
	} else if err := json.Unmarshal([]byte(text), &jm); err != nil {
		return nil, jsonError(err)
	}
	if jm.FormatVersion < 1 || jm.FormatVersion > MaxFormatVersion {
		return nil, fmt.Errorf("%w: format-version %d (this reader supports 1 to %d)", ErrUnsupportedVersion, jm.FormatVersion, MaxFormatVersion)
	}
	md := &TableMetadata{
		FormatVersion:       jm.FormatVersion,
		TableUUID:           jm.TableUUID,
		Location:            jm.Location,
		LastSequenceNumber:  jm.LastSequenceNumber,
		LastUpdatedMs:       jm.LastUpdatedMs,
		LastColumnID:        jm.LastColumnID,
		Properties:          jm.Properties,
		Snapshots:           jm.Snapshots,
		SnapshotLog:         jm.SnapshotLog,
		MetadataLog:         jm.MetadataLog,
		SortOrders:          jm.SortOrders,
		DefaultSortOrderID:  jm.DefaultSortOrderID,
		Refs:                jm.Refs,
		NextRowID:           jm.NextRowID,
		Statistics:          nilIfEmpty(jm.Statistics),
		PartitionStatistics: nilIfEmpty(jm.PartitionStats),
	}
	if err := md.parseSchemas(&jm); err != nil {
		return nil, err
	}
	md.parseSpecs(&jm)
	md.LastPartitionID = lastPartitionID(jm.LastPartitionID, md.Specs)
	if md.SortOrders == nil {
		// As Iceberg Java reads a v1 file without sort orders: unsorted.
		md.SortOrders = []SortOrder{{OrderID: 0, Fields: []SortField{}}}
	}
	if jm.CurrentSnapshotID != nil && *jm.CurrentSnapshotID != -1 {
		id := *jm.CurrentSnapshotID
		md.CurrentSnapshotID = &id
		if _, ok := md.SnapshotByID(id); !ok {
			return nil, fmt.Errorf("%w: current-snapshot-id %d is not among the snapshots", ErrInvalidMetadata, id)
		}
	}
	if md.Properties == nil {
		md.Properties = map[string]string{}
	}
	if md.Refs == nil {
		md.Refs = map[string]SnapshotRef{}
	}
	// Spec: the main branch is implied by current-snapshot-id when refs do
	// not name it (v1 tables and older writers).
	if _, ok := md.Refs["main"]; !ok && md.CurrentSnapshotID != nil {
		md.Refs["main"] = SnapshotRef{SnapshotID: *md.CurrentSnapshotID, Type: RefBranch}
	}
	return md, nil
}

func (md *TableMetadata) parseSchemas(jm *jsonMetadata) error {
	raw := jm.Schemas
	if len(raw) == 0 && len(jm.Schema) > 0 {
		raw = []json.RawMessage{jm.Schema}
	}
	if len(raw) == 0 {
		return fmt.Errorf("%w: no schema", ErrInvalidMetadata)
	}
	for _, r := range raw {
		s := new(Schema)
		if err := s.UnmarshalJSON(r); err != nil {
			return err
		}
		md.Schemas = append(md.Schemas, s)
	}
	switch {
	case jm.CurrentSchemaID != nil:
		md.CurrentSchemaID = *jm.CurrentSchemaID
	default:
		md.CurrentSchemaID = md.Schemas[len(md.Schemas)-1].ID
	}
	if _, ok := md.SchemaByID(md.CurrentSchemaID); !ok {
		return fmt.Errorf("%w: current-schema-id %d not found", ErrInvalidMetadata, md.CurrentSchemaID)
	}
	return nil
}

func (md *TableMetadata) parseSpecs(jm *jsonMetadata) {
	if len(jm.PartitionSpecs) > 0 {
		for _, s := range jm.PartitionSpecs {
			md.Specs = append(md.Specs, PartitionSpec{ID: s.SpecID, Fields: parsePartitionFields(s.Fields)})
		}
	} else {
		md.Specs = []PartitionSpec{{ID: 0, Fields: parsePartitionFields(jm.PartitionSpec)}}
	}
	if jm.DefaultSpecID != nil {
		md.DefaultSpecID = *jm.DefaultSpecID
	} else {
		md.DefaultSpecID = md.Specs[len(md.Specs)-1].ID
	}
}

// CurrentSchema returns the table's current schema.
func (md *TableMetadata) CurrentSchema() *Schema {
	s, _ := md.SchemaByID(md.CurrentSchemaID)
	return s
}

// SchemaByID returns the schema with the given id.
func (md *TableMetadata) SchemaByID(id int) (*Schema, bool) {
	for _, s := range md.Schemas {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}

// SpecByID returns the partition spec with the given id.
func (md *TableMetadata) SpecByID(id int) (PartitionSpec, bool) {
	for _, s := range md.Specs {
		if s.ID == id {
			return s, true
		}
	}
	return PartitionSpec{}, false
}

// SnapshotByID returns the snapshot with the given id.
func (md *TableMetadata) SnapshotByID(id int64) (*Snapshot, bool) {
	for i := range md.Snapshots {
		if md.Snapshots[i].SnapshotID == id {
			return &md.Snapshots[i], true
		}
	}
	return nil, false
}

// CurrentSnapshot returns the current snapshot, or nil for an empty table.
func (md *TableMetadata) CurrentSnapshot() *Snapshot {
	if md.CurrentSnapshotID == nil {
		return nil
	}
	s, _ := md.SnapshotByID(*md.CurrentSnapshotID)
	return s
}

// SnapshotSchema returns the schema a snapshot was written with: its
// schema-id when recorded, else the current schema (v1 snapshots carry no
// schema id).
func (md *TableMetadata) SnapshotSchema(s *Snapshot) *Schema {
	if s != nil && s.SchemaID != nil {
		if schema, ok := md.SchemaByID(*s.SchemaID); ok {
			return schema
		}
	}
	return md.CurrentSchema()
}

// SnapshotAsOf returns the snapshot that was current at timestampMs: the
// latest snapshot-log entry at or before it. The error wraps
// ErrSnapshotNotFound when there is none.
func (md *TableMetadata) SnapshotAsOf(timestampMs int64) (*Snapshot, error) {
	log := md.SnapshotLog
	if len(log) == 0 {
		// Tables without a snapshot log: fall back to snapshot timestamps.
		for _, s := range md.Snapshots {
			log = append(log, SnapshotLogEntry{TimestampMs: s.TimestampMs, SnapshotID: s.SnapshotID})
		}
		sort.SliceStable(log, func(i, j int) bool { return log[i].TimestampMs < log[j].TimestampMs })
	}
	var found *int64
	for _, e := range log {
		if e.TimestampMs <= timestampMs {
			id := e.SnapshotID
			found = &id
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no snapshot at or before %d ms", ErrSnapshotNotFound, timestampMs)
	}
	s, ok := md.SnapshotByID(*found)
	if !ok {
		return nil, fmt.Errorf("%w: snapshot %d from the snapshot log has expired", ErrSnapshotNotFound, *found)
	}
	return s, nil
}

// Ref returns the snapshot a branch or tag points to.
func (md *TableMetadata) Ref(name string) (*Snapshot, SnapshotRef, error) {
	ref, ok := md.Refs[name]
	if !ok {
		return nil, SnapshotRef{}, fmt.Errorf("%w: no branch or tag %q", ErrSnapshotNotFound, name)
	}
	s, ok := md.SnapshotByID(ref.SnapshotID)
	if !ok {
		return nil, ref, fmt.Errorf("%w: ref %q points to missing snapshot %d", ErrSnapshotNotFound, name, ref.SnapshotID)
	}
	return s, ref, nil
}

// NameMapping returns the table's schema.name-mapping.default, or nil.
func (md *TableMetadata) NameMapping() (NameMapping, error) {
	raw, ok := md.Properties["schema.name-mapping.default"]
	if !ok || raw == "" {
		return nil, nil
	}
	return ParseNameMapping([]byte(raw))
}
