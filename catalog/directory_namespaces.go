package catalog

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/iceflight/iceflight/fileio"
)

// namespaceMarker is the empty file that keeps a namespace's folder on an
// object store, which has no folders of its own: a prefix exists only
// while something lies below it. Its name is hidden, as no table's is.
const namespaceMarker = ".namespace"

// ListNamespaces returns the namespaces directly below parent: the folders
// there that are not tables and not hidden, named without a ".db" suffix.
func (d *Directory) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	return fileio.Await(ctx, func() ([][]string, error) {
		dir, err := d.namespaceFolder(ctx, parent)
		if err != nil {
			return nil, fmt.Errorf("list namespaces: %w", err)
		}
		entries, err := listAll(ctx, d.tree, dir)
		if err != nil {
			return nil, fmt.Errorf("list namespaces in %s: %w", strings.Join(parent, "."), err)
		}
		seen := map[string]bool{}
		var out [][]string
		for _, e := range entries {
			if !e.IsDir || strings.HasPrefix(e.Name, ".") {
				continue
			}
			if is, err := d.isTable(ctx, d.tree.join(dir, e.Name)); err != nil {
				return nil, fmt.Errorf("list namespaces in %s: %w", strings.Join(parent, "."), err)
			} else if is {
				continue
			}
			name := e.Name
			if ns := strings.TrimSuffix(name, ".db"); ns != "" {
				name = ns
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, append(append([]string(nil), parent...), name))
		}
		sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00") })
		return out, nil
	})
}

// CreateNamespace creates the folder of ns below its parent's, as Iceberg
// Java's HadoopCatalog does; on an object store the folder is kept by an
// empty marker file, .namespace. A directory catalog stores no namespace
// properties, so props must be empty (as in HadoopCatalog).
func (d *Directory) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	if len(ns) == 0 {
		return fmt.Errorf("create namespace: %w: empty", ErrInvalidIdentifier)
	}
	if err := Identifier(ns).Validate(); err != nil {
		return err
	}
	name := strings.Join(ns, ".")
	if len(props) > 0 {
		return fmt.Errorf("create namespace %s: a directory catalog keeps no namespace properties", name)
	}
	_, err := fileio.Await(ctx, func() (struct{}, error) {
		parent, err := d.namespaceFolder(ctx, ns[:len(ns)-1])
		if err != nil {
			return struct{}{}, err
		}
		if _, err := d.namespaceFolder(ctx, ns); err == nil {
			return struct{}{}, ErrNamespaceExists
		} else if !errors.Is(err, ErrNamespaceNotFound) {
			return struct{}{}, err
		}
		marker := d.tree.join(d.tree.join(parent, ns[len(ns)-1]), namespaceMarker)
		if err := writeFile(ctx, d.writeIO(), marker, nil, true); err != nil {
			if lostRace(err) {
				return struct{}{}, ErrNamespaceExists
			}
			return struct{}{}, err
		}
		return struct{}{}, nil
	})
	if err != nil {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return nil
}

// DropNamespace deletes the folder of ns when it holds nothing but its
// marker: no tables, no namespaces, no other files.
func (d *Directory) DropNamespace(ctx context.Context, ns []string) error {
	name := strings.Join(ns, ".")
	if len(ns) == 0 {
		return fmt.Errorf("drop namespace: %w: empty", ErrInvalidIdentifier)
	}
	_, err := fileio.Await(ctx, func() (struct{}, error) {
		dir, err := d.namespaceFolder(ctx, ns)
		if err != nil {
			return struct{}{}, err
		}
		entries, err := listAll(ctx, d.tree, dir)
		if err != nil {
			return struct{}{}, err
		}
		for _, e := range entries {
			if e.Name != namespaceMarker {
				return struct{}{}, ErrNamespaceNotEmpty
			}
		}
		fio := d.writeIO()
		if err := fileio.Remove(ctx, fio, d.tree.join(dir, namespaceMarker)); err != nil && !errors.Is(err, fileio.ErrNotFound) {
			return struct{}{}, err
		}
		if d.local {
			if err := fileio.Remove(ctx, fio, dir); err != nil && !errors.Is(err, fileio.ErrNotFound) {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	if err != nil {
		return fmt.Errorf("drop namespace %s: %w", name, err)
	}
	return nil
}

// LoadNamespace returns what a directory warehouse knows of the namespace
// ns, its folder as the property "location", as Iceberg Java's
// HadoopCatalog does. A namespace without a folder, or whose folder is a
// table, wraps ErrNamespaceNotFound.
func (d *Directory) LoadNamespace(ctx context.Context, ns []string) (map[string]string, error) {
	if err := Identifier(ns).Validate(); err != nil {
		return nil, err
	}
	dir, err := fileio.Await(ctx, func() (string, error) { return d.namespaceFolder(ctx, ns) })
	if err != nil {
		return nil, fmt.Errorf("load namespace %s: %w", strings.Join(ns, "."), err)
	}
	return map[string]string{"location": dir}, nil
}

// UpdateNamespaceProperties refuses any change, wrapping ErrUnsupported:
// a directory warehouse keeps no namespace properties (nor does
// HadoopCatalog). It answers as Iceberg Java's REST server does over
// one: a key both removed and set first, then a namespace that does not
// exist, and an update that asks nothing changes nothing.
func (d *Directory) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) (PropertiesChange, error) {
	if err := Identifier(ns).Validate(); err != nil {
		return PropertiesChange{}, err
	}
	name := strings.Join(ns, ".")
	if err := CheckPropertiesUpdate(removals, updates); err != nil {
		return PropertiesChange{}, fmt.Errorf("update properties of namespace %s: %w", name, err)
	}
	if _, err := d.LoadNamespace(ctx, ns); err != nil {
		return PropertiesChange{}, err
	}
	if len(removals) == 0 && len(updates) == 0 {
		return PropertiesChange{}, nil
	}
	return PropertiesChange{}, fmt.Errorf("update properties of namespace %s: %w: a directory warehouse keeps no namespace properties", name, ErrUnsupported)
}
