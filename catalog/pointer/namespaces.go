package pointer

import (
	"context"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

// ListNamespaces returns the namespaces directly below parent (nil: the
// top level), as the store lists them.
func (c *Catalog) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	if len(parent) > 0 {
		if err := catalog.Identifier(parent).Validate(); err != nil {
			return nil, err
		}
	}
	out, err := c.store.ListNamespaces(ctx, parent)
	if err != nil {
		return nil, c.fail("list namespaces", err)
	}
	return out, nil
}

// CreateNamespace creates the namespace ns with properties props.
func (c *Catalog) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	op := "create namespace " + strings.Join(ns, ".")
	if err := c.writable(op); err != nil {
		return err
	}
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return err
	}
	if err := c.store.CreateNamespace(ctx, ns, props); err != nil {
		return c.fail(op, err)
	}
	return nil
}

// DropNamespace drops the empty namespace ns.
func (c *Catalog) DropNamespace(ctx context.Context, ns []string) error {
	op := "drop namespace " + strings.Join(ns, ".")
	if err := c.writable(op); err != nil {
		return err
	}
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return err
	}
	if err := c.store.DropNamespace(ctx, ns); err != nil {
		return c.fail(op, err)
	}
	return nil
}

// LoadNamespace returns the properties of the namespace ns.
func (c *Catalog) LoadNamespace(ctx context.Context, ns []string) (map[string]string, error) {
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return nil, err
	}
	props, err := c.store.LoadNamespace(ctx, ns)
	if err != nil {
		return nil, c.fail("load namespace "+strings.Join(ns, "."), err)
	}
	return props, nil
}

// UpdateNamespaceProperties removes the keys removals from ns and sets
// updates on it; a key in both wraps catalog.ErrInvalidProperties before
// the store is asked.
func (c *Catalog) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) (catalog.PropertiesChange, error) {
	op := "update namespace " + strings.Join(ns, ".")
	if err := c.writable(op); err != nil {
		return catalog.PropertiesChange{}, err
	}
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return catalog.PropertiesChange{}, err
	}
	if err := catalog.CheckPropertiesUpdate(removals, updates); err != nil {
		return catalog.PropertiesChange{}, c.fail(op, err)
	}
	change, err := c.store.UpdateNamespaceProperties(ctx, ns, removals, updates)
	if err != nil {
		return catalog.PropertiesChange{}, c.fail(op, err)
	}
	return change, nil
}
