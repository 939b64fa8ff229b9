package writer

import (
	"context"
	"fmt"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// commitChange loads the table, calls build with it for the change,
// writes the added files' manifests, the rewritten manifests, the
// manifest list and the snapshot, and commits them with the requirements
// that make the swap safe (the branch head, the table uuid), retrying on
// iceberg.ErrRequirementFailed / catalog.ErrCommitConflict as
// commit.retry.num-retries and commit.retry.{min,max}-wait-ms say, calling
// build again on the fresh table each time. Files of failed attempts
// (manifests, the manifest list and change.written) are removed unless
// the outcome is unknown. A nil change from build commits nothing.
func (w *Writer) commitChange(ctx context.Context, id catalog.Identifier, build func(ctx context.Context, t *catalog.Table) (*change, error)) (*Result, error) {
	var res *Result
	attempts, err := w.retry(ctx, id, func(ctx context.Context, attempt int, t *catalog.Table) ([]string, error) {
		res = nil
		ch, err := build(ctx, t)
		if err != nil {
			return nil, err
		}
		if ch == nil {
			res = &Result{MetadataLocation: t.MetadataLocation}
			return nil, nil
		}
		if err := w.runHook("data-written"); err != nil {
			return ch.written, err
		}
		p, err := newProducer(w, t, ch, attempt)
		if err != nil {
			return ch.written, err
		}
		r, err := p.commit(ctx)
		res = r
		return append(ch.written, p.written...), err
	})
	if err != nil {
		return nil, err
	}
	res.Attempts = attempts
	return res, nil
}

// commitUpdates commits metadata-only changes (alter, expire) with the
// same retries: build returns the requirements and updates for the fresh
// table. No updates commit nothing and return the table as loaded.
func (w *Writer) commitUpdates(ctx context.Context, id catalog.Identifier, build func(ctx context.Context, t *catalog.Table) ([]iceberg.Requirement, []iceberg.Update, error)) (*catalog.Table, error) {
	var out *catalog.Table
	_, err := w.retry(ctx, id, func(ctx context.Context, _ int, t *catalog.Table) ([]string, error) {
		reqs, updates, err := build(ctx, t)
		if err != nil {
			return nil, err
		}
		if len(updates) == 0 {
			out = t
			return nil, nil
		}
		if err := w.runHook("metadata-written"); err != nil {
			return nil, err
		}
		committed, err := w.cat.CommitTable(ctx, id, reqs, updates)
		if err != nil {
			return nil, fmt.Errorf("commit to %s: %w", id, err)
		}
		out = committed
		return nil, w.runHook("committed")
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
