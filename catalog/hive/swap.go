package hive

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/hive/hms"
	"github.com/iceflight/iceflight/iceberg"
)

// Environment context keys of alter_table: the metastore alters the table
// only if the parameter expected_parameter_key still has the value
// expected_parameter_value (Hive 4, HIVE-26882), and skips its statistics
// (which would list the table's folder).
const (
	envExpectedKey   = "expected_parameter_key"
	envExpectedValue = "expected_parameter_value"
)

// casRefused is the start of the message of a Hive 4 metastore refusing
// an alter whose expected parameter value no longer holds.
const casRefused = "The table has been modified. The parameter value for key '" + paramMetadataLocation + "' is"

// Swap points the table id at loc if it points at base, as Iceberg Java's
// HiveTableOperations.doCommit does:
//
//   - with locks (the default, PropLockEnabled): an exclusive metastore
//     lock on the table (after this process's own lock on it, so that its
//     writers queue here rather than at the metastore), then the table is
//     read, its metadata_location compared with base, and the table
//     altered with the new parameters and columns; the lock is released
//     whatever happened;
//   - without: the table is read and compared the same way, and altered
//     with base as the expected value of metadata_location, which a Hive
//     4 metastore checks in the same transaction as the change. An older
//     metastore ignores the expectation: keep locks on for it.
//
// A lock not granted within the configured wait, a metadata_location
// other than base and a refused expectation are conflicts. A reply lost
// after the alter went out is an unknown outcome, unless a fresh read
// shows the table at loc.
func (s *store) Swap(ctx context.Context, id catalog.Identifier, base, loc string, md *iceberg.TableMetadata) error {
	db, name, err := tableName(id)
	if err != nil {
		return err
	}
	locked := s.cfg.lockEnabled
	if v, ok := md.Properties[PropTableLockEnabled]; ok {
		locked = strings.EqualFold(v, "true")
	}
	if locked {
		release, err := s.locks.acquire(ctx, id.String())
		if err != nil {
			return fmt.Errorf("%w: waiting for this process's other commit to %s: %w", catalog.ErrCommitConflict, id, err)
		}
		defer release()
	}
	err = s.pool.Do(ctx, func(c *hms.Client) error {
		if locked {
			lockID, err := s.lock(ctx, c, db, name)
			if err != nil {
				return err
			}
			defer s.unlock(ctx, c, lockID)
		}
		t, err := s.getTable(ctx, c, id)
		if err != nil {
			return err
		}
		if current := t.Parameters[paramMetadataLocation]; current != base {
			return fmt.Errorf("%w: %s is at %s, not at %s", catalog.ErrCommitConflict, id, current, base)
		}
		if err := s.mirror(t, loc, base, md); err != nil {
			return err
		}
		env := map[string]string{paramNoStatsUpdate: "true"}
		if !locked {
			env[envExpectedKey] = paramMetadataLocation
			env[envExpectedValue] = base
		}
		err = c.AlterTable(ctx, db, name, t, env)
		if err != nil && strings.Contains(err.Error(), casRefused) {
			return fmt.Errorf("%w: %v", catalog.ErrCommitConflict, err)
		}
		return mapChange(err, aTable)
	})
	if errors.Is(err, catalog.ErrCommitStateUnknown) && s.pointsAt(ctx, id, loc) {
		return nil
	}
	return err
}

// pointsAt reports whether a fresh read shows the table id at loc: a
// change whose reply was lost took effect after all.
func (s *store) pointsAt(ctx context.Context, id catalog.Identifier, loc string) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	got, err := s.Locate(ctx, id)
	return err == nil && got == loc
}
