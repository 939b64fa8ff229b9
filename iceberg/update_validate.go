package iceberg

import "fmt"

// The requirements' checks follow Iceberg Java's UpdateRequirement, in its
// words: each says what it expected and what the table holds.

// RequirementError is a requirement that does not hold of the table. It
// matches ErrRequirementFailed; Detail is Iceberg Java's message after
// its "Requirement failed: ", which the REST catalog answers with.
type RequirementError struct {
	Detail string
}

func (e *RequirementError) Error() string { return ErrRequirementFailed.Error() + ": " + e.Detail }

// Is makes errors.Is(err, ErrRequirementFailed) hold.
func (e *RequirementError) Is(target error) bool { return target == ErrRequirementFailed }

func requirementFailed(format string, args ...any) error {
	return &RequirementError{Detail: fmt.Sprintf(format, args...)}
}

// Validate fails when the table exists.
func (AssertCreate) Validate(current *TableMetadata) error {
	if current != nil {
		return requirementFailed("table already exists")
	}
	return nil
}

// Validate fails unless the table's UUID is r.UUID.
func (r AssertTableUUID) Validate(current *TableMetadata) error {
	if current == nil {
		return requirementFailed("table does not exist, expected uuid %s", r.UUID)
	}
	if current.TableUUID != r.UUID {
		return requirementFailed("UUID does not match: expected %s != %s", current.TableUUID, r.UUID)
	}
	return nil
}

// Validate fails unless the ref points at r.SnapshotID, or with a nil
// SnapshotID unless the ref does not exist.
func (r AssertRefSnapshotID) Validate(current *TableMetadata) error {
	var ref *SnapshotRef
	if current != nil {
		if got, ok := current.Refs[r.Ref]; ok {
			ref = &got
		}
	}
	switch {
	case ref != nil && r.SnapshotID == nil:
		return requirementFailed("%s %s was created concurrently (now at snapshot %d)", ref.Type, r.Ref, ref.SnapshotID)
	case ref != nil && *r.SnapshotID != ref.SnapshotID:
		return requirementFailed("%s %s has changed: expected id %d != %d", ref.Type, r.Ref, *r.SnapshotID, ref.SnapshotID)
	case ref == nil && r.SnapshotID != nil:
		return requirementFailed("branch or tag %s is missing, expected %d", r.Ref, *r.SnapshotID)
	}
	return nil
}

// Validate fails unless the table's last-column-id is the one expected;
// a table that does not exist yet passes, as in Java.
func (r AssertLastAssignedFieldID) Validate(current *TableMetadata) error {
	if current != nil && current.LastColumnID != r.LastAssignedFieldID {
		return requirementFailed("last assigned field id changed: expected id %d != %d", r.LastAssignedFieldID, current.LastColumnID)
	}
	return nil
}

// Validate fails unless the current schema id is the one expected.
func (r AssertCurrentSchemaID) Validate(current *TableMetadata) error {
	if current == nil {
		return requirementFailed("table does not exist, expected current schema id %d", r.CurrentSchemaID)
	}
	if current.CurrentSchemaID != r.CurrentSchemaID {
		return requirementFailed("current schema changed: expected id %d != %d", r.CurrentSchemaID, current.CurrentSchemaID)
	}
	return nil
}

// Validate fails unless the table's last-partition-id is the one
// expected; a table that does not exist yet passes, as in Java.
func (r AssertLastAssignedPartitionID) Validate(current *TableMetadata) error {
	if current != nil && current.LastPartitionID != r.LastAssignedPartitionID {
		return requirementFailed("last assigned partition id changed: expected id %d != %d", r.LastAssignedPartitionID, current.LastPartitionID)
	}
	return nil
}

// Validate fails unless the default spec id is the one expected.
func (r AssertDefaultSpecID) Validate(current *TableMetadata) error {
	if current == nil {
		return requirementFailed("table does not exist, expected default spec id %d", r.DefaultSpecID)
	}
	if current.DefaultSpecID != r.DefaultSpecID {
		return requirementFailed("default partition spec changed: expected id %d != %d", r.DefaultSpecID, current.DefaultSpecID)
	}
	return nil
}

// Validate fails unless the default sort order id is the one expected.
func (r AssertDefaultSortOrderID) Validate(current *TableMetadata) error {
	if current == nil {
		return requirementFailed("table does not exist, expected default sort order id %d", r.DefaultSortOrderID)
	}
	if current.DefaultSortOrderID != r.DefaultSortOrderID {
		return requirementFailed("default sort order changed: expected id %d != %d", r.DefaultSortOrderID, current.DefaultSortOrderID)
	}
	return nil
}
