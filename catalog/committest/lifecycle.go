package committest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// Lifecycle checks the life of a table in the namespace ns, which must
// exist, from create to drop: a created table is listed and loads as
// created, a commit moves it on, a second create and a load of an absent
// table or namespace are refused with the right error, and a dropped
// table is gone. missingNS is a namespace that does not exist.
func Lifecycle(t *testing.T, ctx context.Context, c Ops, ns, missingNS []string) {
	t.Helper()
	id := table(ns, "lifecycle")
	created, err := c.CreateTable(ctx, id, NewMetadata(t, "", map[string]string{"owner": "committest"}))
	if err != nil {
		t.Fatalf("create %s: %v", id, err)
	}
	if created.Metadata.Location == "" || created.MetadataLocation == "" {
		t.Fatalf("created %s has no location (%q) or metadata file (%q)", id, created.Metadata.Location, created.MetadataLocation)
	}
	loaded := load(t, ctx, c, id)
	if loaded.Metadata.TableUUID != created.Metadata.TableUUID || loaded.MetadataLocation != created.MetadataLocation {
		t.Fatalf("loaded %s is %s at %s, created as %s at %s", id, loaded.Metadata.TableUUID, loaded.MetadataLocation,
			created.Metadata.TableUUID, created.MetadataLocation)
	}
	if got := loaded.Metadata.Properties["owner"]; got != "committest" {
		t.Fatalf("loaded %s has owner %q, created with committest", id, got)
	}
	listed(t, ctx, c, id, true)

	reqs, updates := AppendUpdates(loaded.Metadata, 7)
	committed, err := c.CommitTable(ctx, id, reqs, updates)
	if err != nil {
		t.Fatalf("commit to %s: %v", id, err)
	}
	after := load(t, ctx, c, id)
	sameTable(t, after, committed)
	if after.MetadataLocation == created.MetadataLocation {
		t.Fatalf("a commit left %s at its first metadata file %s", id, created.MetadataLocation)
	}
	// A commit on what was loaded before the first one lost its base.
	_, err = c.CommitTable(ctx, id, reqs, updates)
	wantErr(t, "a commit on stale metadata", err, catalog.ErrCommitConflict)
	sameTable(t, load(t, ctx, c, id), committed)

	_, err = c.CreateTable(ctx, id, NewMetadata(t, "", nil))
	wantErr(t, "create "+id.String()+" again", err, catalog.ErrTableExists)
	notFound(t, ctx, c, table(ns, "lifecycle_absent"))
	_, err = c.CreateTable(ctx, table(missingNS, "lifecycle"), NewMetadata(t, "", nil))
	wantErr(t, "create in a namespace that does not exist", err, catalog.ErrNamespaceNotFound)

	drop(t, ctx, c, id)
	notFound(t, ctx, c, id)
	listed(t, ctx, c, id, false)
	wantErr(t, "drop "+id.String()+" again", c.DropTable(ctx, id, false), catalog.ErrTableNotFound)
}

// listed fails unless ListTables lists id (or, with want false, does not).
func listed(t *testing.T, ctx context.Context, c Ops, id catalog.Identifier, want bool) {
	t.Helper()
	ids, err := c.ListTables(ctx)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	got := slices.ContainsFunc(ids, func(x catalog.Identifier) bool { return slices.Equal(x, id) })
	if got != want {
		t.Fatalf("ListTables lists %s: %v, want %v (%v)", id, got, want, ids)
	}
}

// Unreachable checks a catalog whose server is down or gone: listing,
// loading and committing to id each fail, within limit and with ctx still
// live, with an error a client can act on (catalog.ErrCatalogUnavailable
// or fileio.ErrUnavailable), never a hang. c must not serve id from a
// cache (a refresh interval of 0).
func Unreachable(t *testing.T, ctx context.Context, c Catalog, id catalog.Identifier, limit time.Duration) {
	t.Helper()
	// The deadline is twice the limit: a call that only ends by it hung.
	ctx, cancel := context.WithTimeout(ctx, 2*limit)
	defer cancel()
	reqs, updates := AppendUpdates(NewMetadata(t, "/nowhere", nil), 9)
	calls := []struct {
		name string
		call func() error
	}{
		{"list tables", func() error { _, err := c.ListTables(ctx); return err }},
		{"load " + id.String(), func() error { _, err := c.LoadTable(ctx, id); return err }},
		{"commit to " + id.String(), func() error { _, err := c.CommitTable(ctx, id, reqs, updates); return err }},
	}
	for _, tc := range calls {
		start := time.Now()
		err := tc.call()
		took := time.Since(start)
		switch {
		case err == nil:
			t.Errorf("%s with the server down: no error", tc.name)
		case took > limit || ctx.Err() != nil:
			t.Errorf("%s with the server down took %s (limit %s): %v", tc.name, took.Round(time.Millisecond), limit, err)
		case !errors.Is(err, catalog.ErrCatalogUnavailable) && !errors.Is(err, fileio.ErrUnavailable):
			t.Errorf("%s with the server down: %v, want an error wrapping %v", tc.name, err, catalog.ErrCatalogUnavailable)
		}
	}
}
