package catalog

import (
	"context"
	"fmt"
)

// namespaceProperties returns the mounted catalog the first part of ns
// names, as NamespaceProperties, and the namespace there (none for the
// mount itself); a catalog that keeps no properties wraps ErrUnsupported.
func (r *Registry) namespaceProperties(op string, ns []string) (NamespaceProperties, []string, error) {
	if err := Identifier(ns).Validate(); err != nil {
		return nil, nil, err
	}
	cat, inner, err := r.mount(op, ns)
	if err != nil || len(inner) == 0 {
		return nil, inner, err
	}
	p, ok := cat.(NamespaceProperties)
	if !ok {
		return nil, nil, fmt.Errorf("%s %s: %w: catalog %s keeps no namespace properties", op, Identifier(ns), ErrUnsupported, ns[0])
	}
	return p, inner, nil
}

// LoadNamespace returns the properties of ns from the catalog its first
// part names. A mounted catalog itself is a namespace without
// properties, whatever its kind.
func (r *Registry) LoadNamespace(ctx context.Context, ns []string) (map[string]string, error) {
	p, inner, err := r.namespaceProperties("load namespace", ns)
	if err != nil {
		return nil, err
	}
	if len(inner) == 0 {
		return map[string]string{}, nil
	}
	props, err := p.LoadNamespace(ctx, inner)
	if err != nil {
		return nil, &MountError{Catalog: ns[0], Err: err}
	}
	return props, nil
}

// UpdateNamespaceProperties updates the properties of ns in the catalog
// its first part names; a mounted catalog itself has none to change
// (ErrUnsupported).
func (r *Registry) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) (PropertiesChange, error) {
	p, inner, err := r.namespaceProperties("update namespace properties", ns)
	if err != nil {
		return PropertiesChange{}, err
	}
	if len(inner) == 0 {
		return PropertiesChange{}, fmt.Errorf("update namespace properties %s: %w: it is a mounted catalog", ns[0], ErrUnsupported)
	}
	change, err := p.UpdateNamespaceProperties(ctx, inner, removals, updates)
	if err != nil {
		return PropertiesChange{}, &MountError{Catalog: ns[0], Err: err}
	}
	return change, nil
}

// RenameTable renames a table within the catalog both names start with.
// A table cannot move from one mounted catalog to another, which would
// be a copy: that wraps ErrUnsupported and names both. A destination in
// no mounted catalog wraps ErrNamespaceNotFound.
func (r *Registry) RenameTable(ctx context.Context, from, to Identifier) error {
	cat, innerFrom, err := r.resolve(from)
	if err != nil {
		return err
	}
	if err := to.Validate(); err != nil {
		return err
	}
	if len(to) < 2 {
		return fmt.Errorf("rename table %s to %s: %w: a table name starts with its catalog", from, to, ErrNamespaceNotFound)
	}
	if _, ok := r.byName[to[0]]; !ok {
		return fmt.Errorf("rename table %s to %s: %w: no catalog %q", from, to, ErrNamespaceNotFound, to[0])
	}
	if from[0] != to[0] {
		return fmt.Errorf("rename table %s to %s: %w: a table cannot move from catalog %s to catalog %s", from, to, ErrUnsupported, from[0], to[0])
	}
	rn, ok := cat.(Renamer)
	if !ok {
		return fmt.Errorf("rename table %s: %w: catalog %s cannot rename tables", from, ErrUnsupported, from[0])
	}
	if err := rn.RenameTable(ctx, innerFrom, to[1:]); err != nil {
		return &MountError{Catalog: from[0], Err: err}
	}
	return nil
}

// RegisterTable registers id's table in the catalog its first part
// names.
func (r *Registry) RegisterTable(ctx context.Context, id Identifier, metadataLocation string) (*Table, error) {
	cat, inner, err := r.resolve(id)
	if err != nil {
		return nil, err
	}
	reg, ok := cat.(Registrar)
	if !ok {
		return nil, fmt.Errorf("register table %s: %w: catalog %s cannot register tables", id, ErrUnsupported, id[0])
	}
	t, err := reg.RegisterTable(ctx, inner, metadataLocation)
	if err != nil {
		return nil, &MountError{Catalog: id[0], Err: err}
	}
	return mountedTable(id[0], t), nil
}
