package sqlcat

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

// existsProperty is the property Iceberg Java and PyIceberg write for a
// namespace created without properties, so that it has a row: the mark
// of its existence, not a property of it. Java refuses to set it and
// does not show it; neither does this catalog.
const existsProperty = "exists"

// LoadNamespace returns the properties of ns as its rows in
// iceberg_namespace_properties hold them, without the "exists" mark, as
// Iceberg Java's JdbcCatalog does (it adds a "location" of its own
// warehouse layout when none is set, which this catalog does not, as it
// lays tables out as PyIceberg does). A namespace no row names, itself or
// as the parent of another, wraps ErrNamespaceNotFound.
func (c *store) LoadNamespace(ctx context.Context, ns []string) (map[string]string, error) {
	name := strings.Join(ns, ".")
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return nil, err
	}
	s, err := c.schema(ctx)
	if err != nil {
		return nil, c.dbError(ctx, err)
	}
	exists, err := c.namespaceExists(ctx, s, name)
	if err != nil {
		return nil, c.dbError(ctx, err)
	}
	if !exists {
		return nil, catalog.ErrNamespaceNotFound
	}
	props := map[string]string{}
	if s.namespaces {
		rows, err := c.query(ctx, "SELECT property_key, property_value FROM "+namespacesTable+" WHERE catalog_name = ? AND namespace = ?", c.catalogName, name)
		if err != nil {
			return nil, c.dbError(ctx, err)
		}
		if props, err = scanProperties(rows); err != nil {
			return nil, c.dbError(ctx, err)
		}
	}
	delete(props, existsProperty)
	return props, nil
}

// UpdateNamespaceProperties removes and sets properties of ns in one
// transaction, as rows of iceberg_namespace_properties in the form Iceberg
// Java's JdbcCatalog writes them (one row a key; a NULL value reads as
// ""). A key both removed and set, or an attempt to set "exists", wraps
// ErrInvalidProperties. The keys to remove that ns does not have are
// reported missing; "exists" is never removed, as a namespace must not
// vanish by a change of its properties: for the same reason, when the
// change removes the last row of a namespace that had rows, the row
// exists=true is written in their place, as Java and PyIceberg create an
// empty namespace.
func (c *store) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) (catalog.PropertiesChange, error) {
	name := strings.Join(ns, ".")
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return catalog.PropertiesChange{}, err
	}
	if _, ok := updates[existsProperty]; ok {
		return catalog.PropertiesChange{}, fmt.Errorf("%w: %q is reserved", catalog.ErrInvalidProperties, existsProperty)
	}
	s, err := c.ensureSchema(ctx)
	if err != nil {
		return catalog.PropertiesChange{}, c.dbError(ctx, err)
	}
	if exists, err := c.namespaceExists(ctx, s, name); err != nil {
		return catalog.PropertiesChange{}, c.dbError(ctx, err)
	} else if !exists {
		return catalog.PropertiesChange{}, catalog.ErrNamespaceNotFound
	}
	change, err := c.updateProperties(ctx, name, removals, updates)
	if err != nil {
		return catalog.PropertiesChange{}, c.dbError(ctx, err)
	}
	return change, nil
}

// updateProperties makes the change of UpdateNamespaceProperties in one
// transaction and reports it. Its errors are the driver's.
func (c *store) updateProperties(ctx context.Context, ns string, removals []string, updates map[string]string) (catalog.PropertiesChange, error) {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return catalog.PropertiesChange{}, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, c.rebind("SELECT property_key, property_value FROM "+namespacesTable+" WHERE catalog_name = ? AND namespace = ?"), c.catalogName, ns)
	if err != nil {
		return catalog.PropertiesChange{}, err
	}
	current, err := scanProperties(rows)
	if err != nil {
		return catalog.PropertiesChange{}, err
	}
	var change catalog.PropertiesChange
	left := maps.Clone(current)
	for _, k := range removals {
		_, ok := current[k]
		switch {
		case slices.Contains(change.Removed, k) || slices.Contains(change.Missing, k):
		case ok && k != existsProperty:
			change.Removed = append(change.Removed, k)
			delete(left, k)
			if _, err := tx.ExecContext(ctx, c.rebind("DELETE FROM "+namespacesTable+" WHERE catalog_name = ? AND namespace = ? AND property_key = ?"), c.catalogName, ns, k); err != nil {
				return catalog.PropertiesChange{}, err
			}
		default:
			change.Missing = append(change.Missing, k)
		}
	}
	// Spec: an update sets a key whether it was there or not; both
	// engines upsert on the table's primary key (catalog_name, namespace,
	// property_key), which Java and PyIceberg create it with.
	upsert := c.rebind("INSERT INTO " + namespacesTable + " (catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?)" +
		" ON CONFLICT (catalog_name, namespace, property_key) DO UPDATE SET property_value = excluded.property_value")
	for _, k := range slices.Sorted(maps.Keys(updates)) {
		change.Updated = append(change.Updated, k)
		if _, err := tx.ExecContext(ctx, upsert, c.catalogName, ns, k, updates[k]); err != nil {
			return catalog.PropertiesChange{}, err
		}
	}
	if len(current) > 0 && len(left) == 0 && len(updates) == 0 {
		if _, err := tx.ExecContext(ctx, upsert, c.catalogName, ns, existsProperty, "true"); err != nil {
			return catalog.PropertiesChange{}, err
		}
	}
	if err := tx.Commit(); err != nil {
		return catalog.PropertiesChange{}, err
	}
	slices.Sort(change.Removed)
	slices.Sort(change.Missing)
	return change, nil
}

// scanProperties reads rows of property_key, property_value into a map
// and closes them; a NULL value reads as "".
func scanProperties(rows *sql.Rows) (map[string]string, error) {
	defer rows.Close()
	props := map[string]string{}
	for rows.Next() {
		var k string
		var v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		props[k] = v.String
	}
	return props, rows.Err()
}
