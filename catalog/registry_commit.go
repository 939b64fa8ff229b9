package catalog

import (
	"context"
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

var (
	_ Committer           = (*Registry)(nil)
	_ Namespaces          = (*Registry)(nil)
	_ NamespaceProperties = (*Registry)(nil)
	_ Renamer             = (*Registry)(nil)
	_ Registrar           = (*Registry)(nil)
)

// committer returns the mounted catalog id names as a Committer, and the
// table's name there; a catalog that cannot commit wraps ErrReadOnly.
func (r *Registry) committer(op string, id Identifier) (Committer, Identifier, error) {
	cat, inner, err := r.resolve(id)
	if err != nil {
		return nil, nil, err
	}
	c, ok := cat.(Committer)
	if !ok {
		return nil, nil, fmt.Errorf("%s %s: %w", op, id, ErrReadOnly)
	}
	return c, inner, nil
}

// mountedTable names t as the Registry serves it: with its catalog's name.
func mountedTable(name string, t *Table) *Table {
	c := *t
	c.Identifier = mounted(name, t.Identifier)
	c.Catalog = name
	return &c
}

// CommitTable commits to id's table in the catalog its first part names;
// a catalog that cannot commit wraps ErrReadOnly. The catalog's own
// errors (ErrCommitConflict, ErrCommitStateUnknown) are kept for
// errors.Is; no shorter deadline is set, as a commit cut short has an
// unknown outcome.
func (r *Registry) CommitTable(ctx context.Context, id Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*Table, error) {
	c, inner, err := r.committer("commit table", id)
	if err != nil {
		return nil, err
	}
	t, err := c.CommitTable(ctx, inner, reqs, updates)
	if err != nil {
		return nil, &MountError{Catalog: id[0], Err: err}
	}
	return mountedTable(id[0], t), nil
}

// CreateTable creates id's table in the catalog its first part names.
func (r *Registry) CreateTable(ctx context.Context, id Identifier, md *iceberg.TableMetadata) (*Table, error) {
	c, inner, err := r.committer("create table", id)
	if err != nil {
		return nil, err
	}
	t, err := c.CreateTable(ctx, inner, md)
	if err != nil {
		return nil, &MountError{Catalog: id[0], Err: err}
	}
	return mountedTable(id[0], t), nil
}

// DropTable drops id's table in the catalog its first part names.
func (r *Registry) DropTable(ctx context.Context, id Identifier, purge bool) error {
	c, inner, err := r.committer("drop table", id)
	if err != nil {
		return err
	}
	if err := c.DropTable(ctx, inner, purge); err != nil {
		return &MountError{Catalog: id[0], Err: err}
	}
	return nil
}

// namespaces returns the mounted catalog the first part of ns names, as
// Namespaces, and the namespace there.
func (r *Registry) namespaces(op string, ns []string) (Namespaces, []string, error) {
	cat, inner, err := r.mount(op, ns)
	if err != nil {
		return nil, nil, err
	}
	n, ok := cat.(Namespaces)
	if !ok {
		return nil, nil, fmt.Errorf("%s %s: %w", op, Identifier(ns), ErrReadOnly)
	}
	return n, inner, nil
}

// mount returns the mounted catalog the first part of ns names, and the
// namespace there.
func (r *Registry) mount(op string, ns []string) (Catalog, []string, error) {
	if len(ns) == 0 {
		return nil, nil, fmt.Errorf("%s: %w: a namespace starts with its catalog", op, ErrNamespaceNotFound)
	}
	cat, ok := r.byName[ns[0]]
	if !ok {
		return nil, nil, fmt.Errorf("%s %s: %w: no catalog %q", op, Identifier(ns), ErrNamespaceNotFound, ns[0])
	}
	return cat, ns[1:], nil
}

// ListNamespaces lists below parent: at the top level the mounted
// catalogs, else the namespaces of the catalog parent's first part names,
// led by its name.
func (r *Registry) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	if len(parent) == 0 {
		out := make([][]string, len(r.names))
		for i, name := range r.names {
			out[i] = []string{name}
		}
		return out, nil
	}
	n, inner, err := r.namespaces("list namespaces", parent)
	if err != nil {
		return nil, err
	}
	list, err := n.ListNamespaces(ctx, inner)
	if err != nil {
		return nil, &MountError{Catalog: parent[0], Err: err}
	}
	out := make([][]string, len(list))
	for i, ns := range list {
		out[i] = append([]string{parent[0]}, ns...)
	}
	return out, nil
}

// CreateNamespace creates ns in the catalog its first part names; the
// catalogs themselves are mounted, never created.
func (r *Registry) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	n, inner, err := r.namespaces("create namespace", ns)
	if err != nil {
		return err
	}
	if len(inner) == 0 {
		return fmt.Errorf("create namespace %s: %w: it is a mounted catalog", ns[0], ErrNamespaceExists)
	}
	if err := n.CreateNamespace(ctx, inner, props); err != nil {
		return &MountError{Catalog: ns[0], Err: err}
	}
	return nil
}

// DropNamespace drops ns in the catalog its first part names.
func (r *Registry) DropNamespace(ctx context.Context, ns []string) error {
	n, inner, err := r.namespaces("drop namespace", ns)
	if err != nil {
		return err
	}
	if len(inner) == 0 {
		return fmt.Errorf("drop namespace %s: %w: it is a mounted catalog", ns[0], ErrReadOnly)
	}
	if err := n.DropNamespace(ctx, inner); err != nil {
		return &MountError{Catalog: ns[0], Err: err}
	}
	return nil
}
