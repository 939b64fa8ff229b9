package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Registry mounts several catalogs at once, each under its own name: the
// table "db.t" of the catalog mounted as "lake" is "lake.db.t". It is a
// Catalog itself, so the Flight service serves a Registry as it serves a
// single catalog.
type Registry struct {
	names  []string // sorted
	byName map[string]Catalog
}

// NewRegistry mounts each catalog of mounts under its name. A name must
// be a valid identifier part (Identifier.Validate) without a ".": it is
// the first part of every table name below it.
func NewRegistry(mounts map[string]Catalog) (*Registry, error) {
	r := &Registry{byName: make(map[string]Catalog, len(mounts))}
	for name, cat := range mounts {
		if err := (Identifier{name}).Validate(); err != nil || strings.Contains(name, ".") {
			return nil, fmt.Errorf("%w: catalog name %q", ErrInvalidIdentifier, name)
		}
		if cat == nil {
			return nil, fmt.Errorf("catalog %s: no catalog", name)
		}
		r.names = append(r.names, name)
		r.byName[name] = cat
	}
	slices.Sort(r.names)
	return r, nil
}

// Names returns the mounted catalogs' names, sorted.
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// Catalog returns the catalog mounted as name.
func (r *Registry) Catalog(name string) (Catalog, bool) {
	c, ok := r.byName[name]
	return c, ok
}

// MountError is the failure of one mounted catalog, which leaves the
// others serving.
type MountError struct {
	// Catalog is the mounted catalog's name.
	Catalog string
	Err     error
}

func (e *MountError) Error() string { return "catalog " + e.Catalog + ": " + e.Err.Error() }

func (e *MountError) Unwrap() error { return e.Err }

// maxDeadlineMargin bounds how much earlier than its caller a mounted
// catalog's call ends (see mountContext).
const maxDeadlineMargin = 2 * time.Second

// mountContext is the context of one mounted catalog's part of a call: it
// ends a tenth of the time left (at most maxDeadlineMargin) before ctx's
// deadline, so that a catalog that hangs fails with an error naming it
// while the caller still waits, and the other catalogs' answers reach the
// caller instead of its deadline. Without a deadline it is ctx.
func mountContext(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	left := time.Until(deadline)
	return context.WithTimeout(ctx, left-min(left/10, maxDeadlineMargin))
}

// ListTables lists the tables of every mounted catalog, in parallel, each
// name led by its catalog's. A catalog that fails (down, a 500) leaves the
// others listed: the identifiers returned are those of every catalog that
// answered, sorted, and the error joins a *MountError for each one that
// did not. Each catalog has until shortly before ctx's deadline
// (mountContext).
func (r *Registry) ListTables(ctx context.Context) ([]Identifier, error) {
	lists := make([][]Identifier, len(r.names))
	errs := make([]error, len(r.names))
	var wg sync.WaitGroup
	for i, name := range r.names {
		wg.Go(func() {
			ctx, cancel := mountContext(ctx)
			defer cancel()
			ids, err := r.byName[name].ListTables(ctx)
			if err != nil {
				errs[i] = &MountError{Catalog: name, Err: err}
				return
			}
			lists[i] = make([]Identifier, len(ids))
			for k, id := range ids {
				lists[i][k] = mounted(name, id)
			}
		})
	}
	wg.Wait()
	var out []Identifier
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.SortFunc(out, func(a, b Identifier) int { return slices.Compare(a, b) })
	return out, errors.Join(errs...)
}

// LoadTable loads id's table from the catalog its first part names. The
// table's Identifier is id, with its catalog's name, and its Catalog that
// name. The catalog has until shortly before ctx's deadline
// (mountContext).
func (r *Registry) LoadTable(ctx context.Context, id Identifier) (*Table, error) {
	cat, inner, err := r.resolve(id)
	if err != nil {
		return nil, err
	}
	mctx, cancel := mountContext(ctx)
	defer cancel()
	t, err := cat.LoadTable(mctx, inner)
	if err != nil {
		return nil, &MountError{Catalog: id[0], Err: err}
	}
	c := *t
	c.Identifier = mounted(id[0], t.Identifier)
	c.Catalog = id[0]
	return &c, nil
}

// Refresh drops cached metadata of one table, or of every table of every
// mounted catalog that caches when id is nil.
func (r *Registry) Refresh(id Identifier) {
	type refresher interface{ Refresh(Identifier) }
	if id == nil {
		for _, name := range r.names {
			if c, ok := r.byName[name].(refresher); ok {
				c.Refresh(nil)
			}
		}
		return
	}
	cat, inner, err := r.resolve(id)
	if err != nil {
		return
	}
	if c, ok := cat.(refresher); ok {
		c.Refresh(inner)
	}
}

// resolve splits id into its catalog and the table's name there.
func (r *Registry) resolve(id Identifier) (Catalog, Identifier, error) {
	if err := id.Validate(); err != nil {
		return nil, nil, err
	}
	if len(id) < 2 {
		return nil, nil, fmt.Errorf("%w: %s: a table name starts with its catalog (%s)", ErrTableNotFound, id, strings.Join(r.names, ", "))
	}
	cat, ok := r.byName[id[0]]
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s: no catalog %q (catalogs: %s)", ErrTableNotFound, id, id[0], strings.Join(r.names, ", "))
	}
	return cat, id[1:], nil
}

// mounted is id as named below the catalog mounted as name.
func mounted(name string, id Identifier) Identifier {
	return append(Identifier{name}, id...)
}
