package catalog

import (
	"context"
	"fmt"
)

// Locator is a catalog that tells where it puts a new table when the
// table's metadata names no location: a REST client creating a table in
// stages writes its first files there before the table exists.
type Locator interface {
	// DefaultLocation returns the location CreateTable would give table
	// id; its namespace must exist (ErrNamespaceNotFound).
	DefaultLocation(ctx context.Context, id Identifier) (string, error)
}

var (
	_ Locator = (*Directory)(nil)
	_ Locator = (*Registry)(nil)
)

// DefaultLocation returns the folder CreateTable makes for id: a folder
// named after the table in its namespace's folder.
func (d *Directory) DefaultLocation(ctx context.Context, id Identifier) (string, error) {
	if err := id.Validate(); err != nil {
		return "", err
	}
	parent, err := d.namespaceFolder(ctx, id.Namespace())
	if err != nil {
		return "", fmt.Errorf("location of table %s: %w", id, err)
	}
	return d.tree.join(parent, id.Name()), nil
}

// DefaultLocation asks the catalog id's first part names; a catalog that
// has no default location wraps ErrReadOnly.
func (r *Registry) DefaultLocation(ctx context.Context, id Identifier) (string, error) {
	cat, inner, err := r.resolve(id)
	if err != nil {
		return "", err
	}
	l, ok := cat.(Locator)
	if !ok {
		return "", fmt.Errorf("location of table %s: %w: the catalog has no default location", id, ErrReadOnly)
	}
	loc, err := l.DefaultLocation(ctx, inner)
	if err != nil {
		return "", &MountError{Catalog: id[0], Err: err}
	}
	return loc, nil
}
