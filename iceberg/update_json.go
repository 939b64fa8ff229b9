package iceberg

import (
	"encoding/json"
	"fmt"
)

// The REST form of updates and requirements, as the Iceberg REST
// catalog's OpenAPI spec (TableUpdate, TableRequirement) defines it.

func marshalAction(action string, body any) ([]byte, error) {
	return marshalTagged("action", action, body)
}

// marshalTagged writes body's JSON object with the tag member first.
func marshalTagged(tag, name string, body any) ([]byte, error) {
	head, err := json.Marshal(map[string]string{tag: name})
	if err != nil {
		return nil, err
	}
	if body == nil {
		return head, nil
	}
	rest, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", tag, name, err)
	}
	if string(rest) == "{}" {
		return head, nil
	}
	// head is {"tag":"name"}, rest is {...}: join the two objects.
	out := append(head[:len(head)-1:len(head)-1], ',')
	return append(out, rest[1:]...), nil
}

type restSpecField struct {
	SourceID  int    `json:"source-id"`
	FieldID   *int   `json:"field-id,omitempty"`
	Name      string `json:"name"`
	Transform string `json:"transform"`
}

type restSpec struct {
	SpecID *int            `json:"spec-id,omitempty"`
	Fields []restSpecField `json:"fields"`
}

type restRef struct {
	RefName            string `json:"ref-name"`
	Type               string `json:"type"`
	SnapshotID         int64  `json:"snapshot-id"`
	MaxRefAgeMs        *int64 `json:"max-ref-age-ms,omitempty"`
	MaxSnapshotAgeMs   *int64 `json:"max-snapshot-age-ms,omitempty"`
	MinSnapshotsToKeep *int   `json:"min-snapshots-to-keep,omitempty"`
}

// MarshalJSON writes the REST form.
func (u AssignUUID) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		UUID string `json:"uuid"`
	}{u.UUID})
}

// MarshalJSON writes the REST form.
func (u UpgradeFormatVersion) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		FormatVersion int `json:"format-version"`
	}{u.FormatVersion})
}

// MarshalJSON writes the REST form; last-column-id is left out when 0.
func (u AddSchema) MarshalJSON() ([]byte, error) {
	if u.Schema == nil {
		return nil, fmt.Errorf("%w: add-schema without a schema", ErrInvalidMetadata)
	}
	return marshalAction(u.Action(), struct {
		Schema       *Schema `json:"schema"`
		LastColumnID int     `json:"last-column-id,omitempty"`
	}{u.Schema, u.LastColumnID})
}

// MarshalJSON writes the REST form.
func (u SetCurrentSchema) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		SchemaID int `json:"schema-id"`
	}{u.SchemaID})
}

// MarshalJSON writes the REST form; field ids of 0 (unassigned) are left
// out for the catalog to assign.
func (u AddSpec) MarshalJSON() ([]byte, error) {
	spec := restSpec{Fields: make([]restSpecField, len(u.Spec.Fields))}
	id := u.Spec.ID
	spec.SpecID = &id
	for i, f := range u.Spec.Fields {
		if f.Transform == nil {
			return nil, fmt.Errorf("%w: add-spec field %q without a transform", ErrInvalidMetadata, f.Name)
		}
		rf := restSpecField{SourceID: f.SourceID, Name: f.Name, Transform: f.Transform.String()}
		if f.FieldID != 0 {
			fid := f.FieldID
			rf.FieldID = &fid
		}
		spec.Fields[i] = rf
	}
	return marshalAction(u.Action(), struct {
		Spec restSpec `json:"spec"`
	}{spec})
}

// MarshalJSON writes the REST form.
func (u SetDefaultSpec) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		SpecID int `json:"spec-id"`
	}{u.SpecID})
}

// MarshalJSON writes the REST form.
func (u AddSortOrder) MarshalJSON() ([]byte, error) {
	order := SortOrder{OrderID: u.SortOrder.OrderID, Fields: orEmpty(u.SortOrder.Fields)}
	return marshalAction(u.Action(), struct {
		SortOrder SortOrder `json:"sort-order"`
	}{order})
}

// MarshalJSON writes the REST form.
func (u SetDefaultSortOrder) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		SortOrderID int `json:"sort-order-id"`
	}{u.SortOrderID})
}

// MarshalJSON writes the REST form.
func (u AddSnapshot) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		Snapshot Snapshot `json:"snapshot"`
	}{u.Snapshot})
}

// MarshalJSON writes the REST form: the ref's members sit beside ref-name.
func (u SetSnapshotRef) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), restRef{
		RefName: u.Name, Type: u.Ref.Type, SnapshotID: u.Ref.SnapshotID,
		MaxRefAgeMs: u.Ref.MaxRefAgeMs, MaxSnapshotAgeMs: u.Ref.MaxSnapshotAgeMs, MinSnapshotsToKeep: u.Ref.MinSnapshotsToKeep,
	})
}

// MarshalJSON writes the REST form.
func (u RemoveSnapshots) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		SnapshotIDs []int64 `json:"snapshot-ids"`
	}{orEmpty(u.SnapshotIDs)})
}

// MarshalJSON writes the REST form.
func (u RemoveSnapshotRef) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		RefName string `json:"ref-name"`
	}{u.Name})
}

// MarshalJSON writes the REST form.
func (u RemoveSchemas) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		SchemaIDs []int `json:"schema-ids"`
	}{orEmpty(u.SchemaIDs)})
}

// MarshalJSON writes the REST form.
func (u RemovePartitionSpecs) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		SpecIDs []int `json:"spec-ids"`
	}{orEmpty(u.SpecIDs)})
}

// MarshalJSON writes the REST form.
func (u SetLocation) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		Location string `json:"location"`
	}{u.Location})
}

// MarshalJSON writes the REST form.
func (u SetProperties) MarshalJSON() ([]byte, error) {
	updates := u.Updates
	if updates == nil {
		updates = map[string]string{}
	}
	return marshalAction(u.Action(), struct {
		Updates map[string]string `json:"updates"`
	}{updates})
}

// MarshalJSON writes the REST form.
func (u RemoveProperties) MarshalJSON() ([]byte, error) {
	return marshalAction(u.Action(), struct {
		Removals []string `json:"removals"`
	}{orEmpty(u.Removals)})
}

// MarshalJSON writes the REST form.
func (r AssertCreate) MarshalJSON() ([]byte, error) { return marshalTagged("type", r.Type(), nil) }

// MarshalJSON writes the REST form.
func (r AssertTableUUID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		UUID string `json:"uuid"`
	}{r.UUID})
}

// MarshalJSON writes the REST form; a nil SnapshotID is written as null
// (the ref must not exist), as the spec requires the member.
func (r AssertRefSnapshotID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		Ref        string `json:"ref"`
		SnapshotID *int64 `json:"snapshot-id"`
	}{r.Ref, r.SnapshotID})
}

// MarshalJSON writes the REST form.
func (r AssertLastAssignedFieldID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"last-assigned-field-id"`
	}{r.LastAssignedFieldID})
}

// MarshalJSON writes the REST form.
func (r AssertCurrentSchemaID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"current-schema-id"`
	}{r.CurrentSchemaID})
}

// MarshalJSON writes the REST form.
func (r AssertLastAssignedPartitionID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"last-assigned-partition-id"`
	}{r.LastAssignedPartitionID})
}

// MarshalJSON writes the REST form.
func (r AssertDefaultSpecID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"default-spec-id"`
	}{r.DefaultSpecID})
}

// MarshalJSON writes the REST form.
func (r AssertDefaultSortOrderID) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", r.Type(), struct {
		ID int `json:"default-sort-order-id"`
	}{r.DefaultSortOrderID})
}
