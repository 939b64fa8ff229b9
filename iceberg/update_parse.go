package iceberg

import (
	"encoding/json"
	"fmt"
)

// ParseUpdates reads a JSON array of updates in the REST form (the
// "updates" of a CommitTableRequest). An unknown action or a missing
// required member is an error wrapping ErrInvalidMetadata.
func ParseUpdates(data []byte) ([]Update, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: updates: %v", ErrInvalidMetadata, err)
	}
	out := make([]Update, len(raw))
	for i, r := range raw {
		u, err := ParseUpdate(r)
		if err != nil {
			return nil, fmt.Errorf("update %d: %w", i, err)
		}
		out[i] = u
	}
	return out, nil
}

// ParseRequirements reads a JSON array of requirements in the REST form.
func ParseRequirements(data []byte) ([]Requirement, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: requirements: %v", ErrInvalidMetadata, err)
	}
	out := make([]Requirement, len(raw))
	for i, r := range raw {
		req, err := ParseRequirement(r)
		if err != nil {
			return nil, fmt.Errorf("requirement %d: %w", i, err)
		}
		out[i] = req
	}
	return out, nil
}

// restUpdate holds the members of every update action.
type restUpdate struct {
	Action        string            `json:"action"`
	UUID          *string           `json:"uuid"`
	FormatVersion *int              `json:"format-version"`
	Schema        json.RawMessage   `json:"schema"`
	LastColumnID  *int              `json:"last-column-id"`
	SchemaID      *int              `json:"schema-id"`
	Spec          *restSpec         `json:"spec"`
	SpecID        *int              `json:"spec-id"`
	SortOrder     *SortOrder        `json:"sort-order"`
	SortOrderID   *int              `json:"sort-order-id"`
	Snapshot      *Snapshot         `json:"snapshot"`
	RefName       *string           `json:"ref-name"`
	Type          string            `json:"type"`
	SnapshotID    *int64            `json:"snapshot-id"`
	SchemaIDs     []int             `json:"schema-ids"`
	SpecIDs       []int             `json:"spec-ids"`
	MaxRefAgeMs   *int64            `json:"max-ref-age-ms"`
	MaxSnapAgeMs  *int64            `json:"max-snapshot-age-ms"`
	MinSnapshots  *int              `json:"min-snapshots-to-keep"`
	SnapshotIDs   []int64           `json:"snapshot-ids"`
	Location      *string           `json:"location"`
	Updates       map[string]string `json:"updates"`
	Removals      []string          `json:"removals"`
}

// ParseUpdate reads one update in the REST form.
func ParseUpdate(data []byte) (Update, error) {
	var r restUpdate
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: update: %v", ErrInvalidMetadata, err)
	}
	missing := func(member string) error {
		return fmt.Errorf("%w: %s update without %s", ErrInvalidMetadata, r.Action, member)
	}
	switch r.Action {
	case "assign-uuid":
		if r.UUID == nil {
			return nil, missing("uuid")
		}
		return AssignUUID{UUID: *r.UUID}, nil
	case "upgrade-format-version":
		if r.FormatVersion == nil {
			return nil, missing("format-version")
		}
		return UpgradeFormatVersion{FormatVersion: *r.FormatVersion}, nil
	case "add-schema":
		if len(r.Schema) == 0 || string(r.Schema) == "null" {
			return nil, missing("schema")
		}
		s := new(Schema)
		if err := s.UnmarshalJSON(r.Schema); err != nil {
			return nil, fmt.Errorf("add-schema: %w", err)
		}
		u := AddSchema{Schema: s}
		if r.LastColumnID != nil {
			u.LastColumnID = *r.LastColumnID
		}
		return u, nil
	case "set-current-schema":
		if r.SchemaID == nil {
			return nil, missing("schema-id")
		}
		return SetCurrentSchema{SchemaID: *r.SchemaID}, nil
	case "add-spec":
		if r.Spec == nil {
			return nil, missing("spec")
		}
		return AddSpec{Spec: r.Spec.partitionSpec()}, nil
	case "set-default-spec":
		if r.SpecID == nil {
			return nil, missing("spec-id")
		}
		return SetDefaultSpec{SpecID: *r.SpecID}, nil
	case "add-sort-order":
		if r.SortOrder == nil {
			return nil, missing("sort-order")
		}
		return AddSortOrder{SortOrder: *r.SortOrder}, nil
	case "set-default-sort-order":
		if r.SortOrderID == nil {
			return nil, missing("sort-order-id")
		}
		return SetDefaultSortOrder{SortOrderID: *r.SortOrderID}, nil
	case "add-snapshot":
		if r.Snapshot == nil {
			return nil, missing("snapshot")
		}
		return AddSnapshot{Snapshot: *r.Snapshot}, nil
	case "set-snapshot-ref":
		if r.RefName == nil || r.SnapshotID == nil || r.Type == "" {
			return nil, missing("ref-name, type or snapshot-id")
		}
		return SetSnapshotRef{Name: *r.RefName, Ref: SnapshotRef{
			SnapshotID: *r.SnapshotID, Type: r.Type,
			MinSnapshotsToKeep: r.MinSnapshots, MaxSnapshotAgeMs: r.MaxSnapAgeMs, MaxRefAgeMs: r.MaxRefAgeMs,
		}}, nil
	case "remove-snapshots":
		if r.SnapshotIDs == nil {
			return nil, missing("snapshot-ids")
		}
		return RemoveSnapshots{SnapshotIDs: r.SnapshotIDs}, nil
	case "remove-snapshot-ref":
		if r.RefName == nil {
			return nil, missing("ref-name")
		}
		return RemoveSnapshotRef{Name: *r.RefName}, nil
	case "remove-schemas":
		if r.SchemaIDs == nil {
			return nil, missing("schema-ids")
		}
		return RemoveSchemas{SchemaIDs: r.SchemaIDs}, nil
	case "remove-partition-specs":
		if r.SpecIDs == nil {
			return nil, missing("spec-ids")
		}
		return RemovePartitionSpecs{SpecIDs: r.SpecIDs}, nil
	case "set-location":
		if r.Location == nil {
			return nil, missing("location")
		}
		return SetLocation{Location: *r.Location}, nil
	case "set-properties":
		if r.Updates == nil {
			return nil, missing("updates")
		}
		return SetProperties{Updates: r.Updates}, nil
	case "remove-properties":
		if r.Removals == nil {
			return nil, missing("removals")
		}
		return RemoveProperties{Removals: r.Removals}, nil
	case "":
		return nil, fmt.Errorf("%w: update without an action", ErrInvalidMetadata)
	}
	return nil, fmt.Errorf("%w: unsupported update action %q", ErrInvalidMetadata, r.Action)
}

func (s restSpec) partitionSpec() PartitionSpec {
	out := PartitionSpec{Fields: make([]PartitionField, len(s.Fields))}
	if s.SpecID != nil {
		out.ID = *s.SpecID
	}
	for i, f := range s.Fields {
		pf := PartitionField{SourceID: f.SourceID, Name: f.Name, Transform: ParseTransform(f.Transform)}
		if f.FieldID != nil {
			pf.FieldID = *f.FieldID
		}
		out.Fields[i] = pf
	}
	return out
}

type restRequirement struct {
	Type               string  `json:"type"`
	UUID               *string `json:"uuid"`
	Ref                *string `json:"ref"`
	SnapshotID         *int64  `json:"snapshot-id"`
	LastAssignedField  *int    `json:"last-assigned-field-id"`
	CurrentSchemaID    *int    `json:"current-schema-id"`
	LastAssignedPart   *int    `json:"last-assigned-partition-id"`
	DefaultSpecID      *int    `json:"default-spec-id"`
	DefaultSortOrderID *int    `json:"default-sort-order-id"`
}

// ParseRequirement reads one requirement in the REST form.
func ParseRequirement(data []byte) (Requirement, error) {
	var r restRequirement
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: requirement: %v", ErrInvalidMetadata, err)
	}
	missing := func(member string) error {
		return fmt.Errorf("%w: %s requirement without %s", ErrInvalidMetadata, r.Type, member)
	}
	switch r.Type {
	case "assert-create":
		return AssertCreate{}, nil
	case "assert-table-uuid":
		if r.UUID == nil {
			return nil, missing("uuid")
		}
		return AssertTableUUID{UUID: *r.UUID}, nil
	case "assert-ref-snapshot-id":
		if r.Ref == nil {
			return nil, missing("ref")
		}
		return AssertRefSnapshotID{Ref: *r.Ref, SnapshotID: r.SnapshotID}, nil
	case "assert-last-assigned-field-id":
		if r.LastAssignedField == nil {
			return nil, missing("last-assigned-field-id")
		}
		return AssertLastAssignedFieldID{LastAssignedFieldID: *r.LastAssignedField}, nil
	case "assert-current-schema-id":
		if r.CurrentSchemaID == nil {
			return nil, missing("current-schema-id")
		}
		return AssertCurrentSchemaID{CurrentSchemaID: *r.CurrentSchemaID}, nil
	case "assert-last-assigned-partition-id":
		if r.LastAssignedPart == nil {
			return nil, missing("last-assigned-partition-id")
		}
		return AssertLastAssignedPartitionID{LastAssignedPartitionID: *r.LastAssignedPart}, nil
	case "assert-default-spec-id":
		if r.DefaultSpecID == nil {
			return nil, missing("default-spec-id")
		}
		return AssertDefaultSpecID{DefaultSpecID: *r.DefaultSpecID}, nil
	case "assert-default-sort-order-id":
		if r.DefaultSortOrderID == nil {
			return nil, missing("default-sort-order-id")
		}
		return AssertDefaultSortOrderID{DefaultSortOrderID: *r.DefaultSortOrderID}, nil
	case "":
		return nil, fmt.Errorf("%w: requirement without a type", ErrInvalidMetadata)
	}
	return nil, fmt.Errorf("%w: unsupported requirement type %q", ErrInvalidMetadata, r.Type)
}
