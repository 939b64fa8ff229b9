package planner

import (
	"errors"
	"fmt"
	"time"

	"github.com/iceflight/iceflight/iceberg"
)

// Selection chooses the snapshot a scan reads. At most one field is set;
// none selects the current snapshot.
type Selection struct {
	SnapshotID    *int64
	AsOfTimestamp *int64 // milliseconds since the epoch
	Ref           string // branch or tag name
}

// Validate reports a selection that sets more than one way to choose.
func (s Selection) Validate() error {
	n := 0
	if s.SnapshotID != nil {
		n++
	}
	if s.AsOfTimestamp != nil {
		n++
	}
	if s.Ref != "" {
		n++
	}
	if n > 1 {
		return fmt.Errorf("%w: set at most one of snapshot_id, as_of_timestamp_ms and ref", ErrInvalidRequest)
	}
	return nil
}

// Resolve returns the selected snapshot (nil for a table with no current
// snapshot) and the schema a scan of it reads with.
//
// Spec and Iceberg Java agree on the schema: a scan of the current snapshot
// or of a branch head uses the table's current schema; a scan by snapshot
// id, timestamp or tag uses the schema the snapshot was written with.
func (s Selection) Resolve(md *iceberg.TableMetadata) (*iceberg.Snapshot, *iceberg.Schema, error) {
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	switch {
	case s.SnapshotID != nil:
		snap, ok := md.SnapshotByID(*s.SnapshotID)
		if !ok {
			return nil, nil, fmt.Errorf("%w: snapshot %d", iceberg.ErrSnapshotNotFound, *s.SnapshotID)
		}
		return snap, md.SnapshotSchema(snap), nil
	case s.AsOfTimestamp != nil:
		snap, err := md.SnapshotAsOf(*s.AsOfTimestamp)
		if err != nil {
			return nil, nil, asOfError(md, *s.AsOfTimestamp, err)
		}
		return snap, md.SnapshotSchema(snap), nil
	case s.Ref != "":
		snap, ref, err := md.Ref(s.Ref)
		if err != nil {
			return nil, nil, err
		}
		if ref.Type == iceberg.RefTag {
			return snap, md.SnapshotSchema(snap), nil
		}
		return snap, md.CurrentSchema(), nil
	}
	return md.CurrentSnapshot(), md.CurrentSchema(), nil
}

// A millisecond time below secondsLike is before 1973-03-03; read as
// seconds, every value from 1e9 on is after 2001-09-09. Such a value is a
// time in seconds passed where milliseconds belong.
const (
	secondsLikeFrom = 1e9
	secondsLike     = 1e11
)

// asOfError replaces err, from a time-travel lookup at ts, with a message
// that says when the table's history begins and, for a time that looks like
// seconds, that the unit is milliseconds. Other errors are returned as they
// are.
func asOfError(md *iceberg.TableMetadata, ts int64, err error) error {
	if !errors.Is(err, iceberg.ErrSnapshotNotFound) {
		return err
	}
	earliest, ok := earliestSnapshotMs(md)
	if !ok {
		return fmt.Errorf("%w: no snapshot at or before %s (%d ms): the table has no snapshots", iceberg.ErrSnapshotNotFound, isoMs(ts), ts)
	}
	if ts >= earliest {
		return err // the snapshot current then has expired
	}
	msg := fmt.Sprintf("no snapshot at or before %s (%d ms): the earliest is %s (%d ms)", isoMs(ts), ts, isoMs(earliest), earliest)
	if ts >= secondsLikeFrom && ts < secondsLike {
		msg += fmt.Sprintf("; as_of_timestamp_ms is in milliseconds and %d looks like seconds (%d ms is %s)", ts, ts*1000, isoMs(ts*1000))
	}
	return fmt.Errorf("%w: %s", iceberg.ErrSnapshotNotFound, msg)
}

// earliestSnapshotMs is the time of the first snapshot-log entry, or of the
// oldest snapshot for a table without a log, as SnapshotAsOf reads them.
func earliestSnapshotMs(md *iceberg.TableMetadata) (int64, bool) {
	if len(md.SnapshotLog) > 0 {
		return md.SnapshotLog[0].TimestampMs, true
	}
	if len(md.Snapshots) == 0 {
		return 0, false
	}
	earliest := md.Snapshots[0].TimestampMs
	for _, s := range md.Snapshots[1:] {
		earliest = min(earliest, s.TimestampMs)
	}
	return earliest, true
}

// isoMs formats milliseconds since the epoch as an RFC 3339 UTC time.
func isoMs(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.999Z07:00")
}

// ProjectedSchema returns the schema a scan for req reads with, without
// reading any manifest. Columns are top-level names, dotted paths into
// structs, or metadata columns (_file, _pos, _spec_id, _partition,
// _row_id, _last_updated_sequence_number); a table column of the same name
// wins over a metadata column.
func ProjectedSchema(md *iceberg.TableMetadata, req Request) (*iceberg.Schema, error) {
	_, schema, err := req.Resolve(md)
	if err != nil {
		return nil, err
	}
	return projectSchema(md, schema, req)
}

// projectSchema is ProjectedSchema over the schema req's selection already
// resolved to.
func projectSchema(md *iceberg.TableMetadata, schema *iceberg.Schema, req Request) (*iceberg.Schema, error) {
	if req.Columns == nil {
		return schema, nil
	}
	var fields []iceberg.NestedField
	placed := map[int]int{} // top-level field id -> index in fields
	for _, name := range req.Columns {
		sel, err := schema.Select(req.CaseSensitive, name)
		if err != nil {
			meta, ok := metadataColumn(md, name)
			if !ok {
				return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
			}
			sel = iceberg.NewSchema(schema.ID, meta)
		}
		f := sel.Fields[0]
		if i, ok := placed[f.ID]; ok {
			// A second path into the same column: select them together.
			merged, err := schema.Select(req.CaseSensitive, namesOf(req.Columns, schema, req.CaseSensitive, f.ID)...)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
			}
			fields[i] = merged.Fields[0]
			continue
		}
		placed[f.ID] = len(fields)
		fields = append(fields, f)
	}
	return iceberg.NewSchema(schema.ID, fields...), nil
}

// namesOf returns the requested names that select the top-level field id.
func namesOf(columns []string, schema *iceberg.Schema, caseSensitive bool, id int) []string {
	var out []string
	for _, name := range columns {
		if sel, err := schema.Select(caseSensitive, name); err == nil && sel.Fields[0].ID == id {
			out = append(out, name)
		}
	}
	return out
}

func metadataColumn(md *iceberg.TableMetadata, name string) (iceberg.NestedField, bool) {
	if name == "_partition" {
		return iceberg.NestedField{ID: iceberg.FieldIDPartition, Name: "_partition", Type: md.PartitionUnionType(),
			Required: true, Doc: "Partition to which a row belongs"}, true
	}
	return iceberg.MetadataColumn(name)
}
