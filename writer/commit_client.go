package writer

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// TableCommit is one table's part of a commit a client built itself (a
// REST catalog's CommitTableRequest): the requirements its updates were
// built on, and the updates.
type TableCommit struct {
	ID           catalog.Identifier
	Requirements []iceberg.Requirement
	Updates      []iceberg.Update
}

// finalError marks a failed requirement of a client's commit: unlike a
// writer's own change, which is rebuilt on fresh metadata, a client's
// updates can only be rebuilt by the client, so it is not retried.
type finalError struct{ err error }

func (e finalError) Error() string { return e.err.Error() }
func (e finalError) Unwrap() error { return e.err }

// Commit applies a client's updates to its table if their requirements
// hold, with the same per-table lock, catalog swap and retries as every
// change this writer makes: commits from a REST client and from DoPut take
// turns on a table instead of racing. A swap lost to another process is
// retried while the requirements still hold of the fresh metadata (as
// Iceberg Java's REST server does); a requirement that fails is returned
// at once, wrapping iceberg.ErrRequirementFailed. A commit that requires
// assert-create creates the table from its updates; the table existing
// then fails the requirement.
func (w *Writer) Commit(ctx context.Context, c TableCommit) (*catalog.Table, error) {
	if creates(c.Requirements) {
		return w.createFromUpdates(ctx, c)
	}
	return w.commitUpdates(ctx, c.ID, func(_ context.Context, t *catalog.Table) ([]iceberg.Requirement, []iceberg.Update, error) {
		if err := validate(c.Requirements, t.Metadata); err != nil {
			return nil, nil, finalError{fmt.Errorf("commit to %s: %w", c.ID, err)}
		}
		return c.Requirements, c.Updates, nil
	})
}

// CommitAll commits several tables' changes, as a REST catalog's
// transactions/commit: it takes every table's lock (in identifier order,
// so two such commits cannot deadlock), checks every requirement against
// fresh metadata, and only then commits the tables one by one. The
// catalogs swap one table at a time, so a failure after the checks (a
// writer in another process winning a swap, storage failing) leaves the
// tables committed before it changed; Iceberg Java's REST server commits
// a transaction the same way.
func (w *Writer) CommitAll(ctx context.Context, commits []TableCommit) ([]*catalog.Table, error) {
	order := make([]int, len(commits))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return slices.Compare(commits[a].ID, commits[b].ID) })
	for i := 1; i < len(order); i++ {
		if slices.Equal(commits[order[i]].ID, commits[order[i-1]].ID) {
			return nil, fmt.Errorf("%w: table %s appears twice in one transaction", ErrInvalidArgument, commits[order[i]].ID)
		}
	}
	for _, i := range order {
		unlock, err := w.locks.lock(ctx, commits[i].ID)
		if err != nil {
			return nil, fmt.Errorf("commit to %s: %w", commits[i].ID, err)
		}
		defer unlock()
	}
	for _, c := range commits {
		if creates(c.Requirements) {
			return nil, fmt.Errorf("%w: a transaction cannot create table %s; create it first", ErrUnsupported, c.ID)
		}
		t, err := w.load(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		if err := validate(c.Requirements, t.Metadata); err != nil {
			return nil, fmt.Errorf("commit to %s: %w", c.ID, err)
		}
	}
	out := make([]*catalog.Table, len(commits))
	for i, c := range commits {
		t, err := w.cat.CommitTable(ctx, c.ID, c.Requirements, c.Updates)
		if err != nil {
			if i > 0 {
				return nil, fmt.Errorf("commit to %s after %d of %d tables committed: %w", c.ID, i, len(commits), err)
			}
			return nil, fmt.Errorf("commit to %s: %w", c.ID, err)
		}
		out[i] = t
	}
	return out, nil
}

// createFromUpdates creates the table of an assert-create commit (a REST
// create transaction) from nothing, under the table's lock.
func (w *Writer) createFromUpdates(ctx context.Context, c TableCommit) (*catalog.Table, error) {
	unlock, err := w.locks.lock(ctx, c.ID)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", c.ID, err)
	}
	defer unlock()
	md, err := iceberg.ApplyUpdates(nil, "", c.Updates)
	if err != nil {
		return nil, fmt.Errorf("%w: create table %s: %w", ErrInvalidArgument, c.ID, err)
	}
	if err := validate(c.Requirements, nil); err != nil {
		return nil, err
	}
	t, err := w.cat.CreateTable(ctx, c.ID, md)
	if errors.Is(err, catalog.ErrTableExists) {
		// assert-create failed: the table was created first by another.
		return nil, fmt.Errorf("create table %s: %w: %w", c.ID, &iceberg.RequirementError{Detail: "table already exists"}, err)
	}
	return t, err
}

// creates reports whether reqs hold assert-create.
func creates(reqs []iceberg.Requirement) bool {
	return slices.ContainsFunc(reqs, func(r iceberg.Requirement) bool {
		_, ok := r.(iceberg.AssertCreate)
		return ok
	})
}

// validate checks every requirement against current (nil: no table).
func validate(reqs []iceberg.Requirement, current *iceberg.TableMetadata) error {
	for _, r := range reqs {
		if err := r.Validate(current); err != nil {
			return err
		}
	}
	return nil
}
