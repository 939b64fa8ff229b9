package iceberg

import "fmt"

// The requirements' checks follow Iceberg Java's UpdateRequirement: each
// says what it expected and what the table holds.

// Validate fails when the table exists.
func (AssertCreate) Validate(current *TableMetadata) error {
	if current != nil {
		return fmt.Errorf("%w: table already exists", ErrRequirementFailed)
	}
	return nil
}

// Validate fails unless the table's UUID is r.UUID.
func (r AssertTableUUID) Validate(current *TableMetadata) error {
	if current == nil {
		return fmt.Errorf("%w: table does not exist, expected uuid %s", ErrRequirementFailed, r.UUID)
	}
	if current.TableUUID != r.UUID {
		return fmt.Errorf("%w: uuid does not match: expected %s, table has %s", ErrRequirementFailed, r.UUID, current.TableUUID)
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
		return fmt.Errorf("%w: %s %s was created concurrently (now at snapshot %d)", ErrRequirementFailed, ref.Type, r.Ref, ref.SnapshotID)
	case ref != nil && *r.SnapshotID != ref.SnapshotID:
		return fmt.Errorf("%w: %s %s has changed: expected snapshot %d, table has %d", ErrRequirementFailed, ref.Type, r.Ref, *r.SnapshotID, ref.SnapshotID)
	case ref == nil && r.SnapshotID != nil:
		return fmt.Errorf("%w: branch or tag %s is missing, expected snapshot %d", ErrRequirementFailed, r.Ref, *r.SnapshotID)
	}
	return nil
}

// Validate fails unless the table's last-column-id is the one expected;
// a table that does not exist yet passes, as in Java.
func (r AssertLastAssignedFieldID) Validate(current *TableMetadata) error {
	if current != nil && current.LastColumnID != r.LastAssignedFieldID {
		return fmt.Errorf("%w: last assigned field id changed: expected %d, table has %d", ErrRequirementFailed, r.LastAssignedFieldID, current.LastColumnID)
	}
	return nil
}

// Validate fails unless the current schema id is the one expected.
func (r AssertCurrentSchemaID) Validate(current *TableMetadata) error {
	if current == nil {
		return fmt.Errorf("%w: table does not exist, expected current schema id %d", ErrRequirementFailed, r.CurrentSchemaID)
	}
	if current.CurrentSchemaID != r.CurrentSchemaID {
		return fmt.Errorf("%w: current schema changed: expected id %d, table has %d", ErrRequirementFailed, r.CurrentSchemaID, current.CurrentSchemaID)
	}
	return nil
}

// Validate fails unless the table's last-partition-id is the one
// expected; a table that does not exist yet passes, as in Java.
func (r AssertLastAssignedPartitionID) Validate(current *TableMetadata) error {
	if current != nil && current.LastPartitionID != r.LastAssignedPartitionID {
		return fmt.Errorf("%w: last assigned partition id changed: expected %d, table has %d", ErrRequirementFailed, r.LastAssignedPartitionID, current.LastPartitionID)
	}
	return nil
}

// Validate fails unless the default spec id is the one expected.
func (r AssertDefaultSpecID) Validate(current *TableMetadata) error {
	if current == nil {
		return fmt.Errorf("%w: table does not exist, expected default spec id %d", ErrRequirementFailed, r.DefaultSpecID)
	}
	if current.DefaultSpecID != r.DefaultSpecID {
		return fmt.Errorf("%w: default partition spec changed: expected id %d, table has %d", ErrRequirementFailed, r.DefaultSpecID, current.DefaultSpecID)
	}
	return nil
}

// Validate fails unless the default sort order id is the one expected.
func (r AssertDefaultSortOrderID) Validate(current *TableMetadata) error {
	if current == nil {
		return fmt.Errorf("%w: table does not exist, expected default sort order id %d", ErrRequirementFailed, r.DefaultSortOrderID)
	}
	if current.DefaultSortOrderID != r.DefaultSortOrderID {
		return fmt.Errorf("%w: default sort order changed: expected id %d, table has %d", ErrRequirementFailed, r.DefaultSortOrderID, current.DefaultSortOrderID)
	}
	return nil
}
