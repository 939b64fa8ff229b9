package sqlcat

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The catalog schema that Iceberg Java's JdbcCatalog (JdbcUtil) and
// PyIceberg's SqlCatalog share:
//
//	iceberg_tables(catalog_name, table_namespace, table_name,
//	               metadata_location, previous_metadata_location
//	               [, iceberg_type])
//	iceberg_namespace_properties(catalog_name, namespace,
//	               property_key, property_value)
//
// Schema V0 has no iceberg_type; V1 adds it, holding "TABLE" or "VIEW"
// (NULL for rows written before a V0 catalog was migrated, which are
// tables). Both writers create V1 for a new catalog and leave an existing
// V0 one as it is unless told to migrate, so both are read here. A
// namespace is its levels joined with "." ("a.b"); Java writes top-level
// tables under the empty namespace. A namespace exists when a table or a
// property row names it (Java and PyIceberg write an "exists" property for
// a namespace created empty).
const (
	tablesTable     = "iceberg_tables"
	namespacesTable = "iceberg_namespace_properties"
	// tablesOnly keeps V1 rows that are tables, not views.
	tablesOnly = " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)"
)

// schema is what a catalog database holds of the shared schema.
type schema struct {
	tables     bool // iceberg_tables exists
	namespaces bool // iceberg_namespace_properties exists
	v1         bool // iceberg_tables has iceberg_type
}

// final reports whether no writer can change s any more: a schema with both
// tables at V1 (writers create tables and migrate V0 to V1, never back).
func (s schema) final() bool { return s.tables && s.namespaces && s.v1 }

// schema returns what the database holds, probing for whatever may have
// changed since the last call: a catalog no writer has created yet may be
// created, and a V0 catalog may be migrated to V1, while flightd runs. Its
// errors are the driver's, for the caller to wrap with dbError.
func (c *store) schema(ctx context.Context) (schema, error) {
	c.mu.Lock()
	known := c.known
	c.mu.Unlock()
	if known.final() {
		return known, nil
	}
	var err error
	if !known.tables {
		if known.tables, err = c.probe(ctx, "SELECT 1 FROM "+tablesTable+" WHERE 1 = 0", false); err != nil {
			return schema{}, err
		}
	}
	if !known.namespaces {
		if known.namespaces, err = c.probe(ctx, "SELECT 1 FROM "+namespacesTable+" WHERE 1 = 0", false); err != nil {
			return schema{}, err
		}
	}
	if known.tables && !known.v1 {
		if known.v1, err = c.probe(ctx, "SELECT iceberg_type FROM "+tablesTable+" WHERE 1 = 0", true); err != nil {
			return schema{}, err
		}
	}
	c.mu.Lock()
	c.known = known
	c.mu.Unlock()
	return known, nil
}

// probe runs query and reports whether it could: false when the database
// says the table (or with column, the column) it reads does not exist. Its
// errors are the driver's, for the caller to wrap with dbError.
func (c *store) probe(ctx context.Context, query string, column bool) (bool, error) {
	rows, err := c.db.QueryContext(ctx, query)
	if err == nil {
		err = rows.Close()
	}
	switch {
	case err == nil:
		return true, nil
	case missingRelation(err, column):
		return false, nil
	default:
		return false, err
	}
}

// query runs q with args, written with "?" placeholders, which are
// renumbered for PostgreSQL ($1, $2, ...).
func (c *store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return c.db.QueryContext(ctx, c.rebind(q), args...)
}

// rebind renumbers the "?" placeholders of q for PostgreSQL ($1, $2, ...).
func (c *store) rebind(q string) string {
	if c.conn.engine == enginePostgres {
		var b strings.Builder
		n := 0
		for _, r := range q {
			if r == '?' {
				n++
				fmt.Fprintf(&b, "$%d", n)
				continue
			}
			b.WriteRune(r)
		}
		q = b.String()
	}
	return q
}

// metadataLocation returns the metadata_location of the table row of
// namespace and name, and whether there is such a row (views excluded).
// A row whose location is NULL (a table whose creation is still under way)
// counts as none.
func (c *store) metadataLocation(ctx context.Context, s schema, namespace, name string) (string, bool, error) {
	if !s.tables {
		return "", false, nil
	}
	q := "SELECT metadata_location FROM " + tablesTable +
		" WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?"
	if s.v1 {
		q += tablesOnly
	}
	rows, err := c.query(ctx, q, c.catalogName, namespace, name)
	if err != nil {
		return "", false, err
	}
	defer rows.Close()
	var loc sql.NullString
	found := false
	for rows.Next() && !found {
		if err := rows.Scan(&loc); err != nil {
			return "", false, err
		}
		found = true
	}
	if err := rows.Err(); err != nil {
		return "", false, err
	}
	return loc.String, found && loc.Valid && loc.String != "", nil
}

// tableRows returns the namespace and name of every table row of the
// catalog (views excluded).
func (c *store) tableRows(ctx context.Context, s schema) ([][2]string, error) {
	if !s.tables {
		return nil, nil
	}
	q := "SELECT table_namespace, table_name FROM " + tablesTable + " WHERE catalog_name = ?"
	if s.v1 {
		q += tablesOnly
	}
	rows, err := c.query(ctx, q, c.catalogName)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var ns, name string
		if err := rows.Scan(&ns, &name); err != nil {
			return nil, err
		}
		out = append(out, [2]string{ns, name})
	}
	return out, rows.Err()
}

// namespaceRows returns every namespace the catalog names, in tables
// (and views) or in namespace properties, each once.
func (c *store) namespaceRows(ctx context.Context, s schema) ([]string, error) {
	var parts []string
	var args []any
	if s.tables {
		parts = append(parts, "SELECT table_namespace FROM "+tablesTable+" WHERE catalog_name = ?")
		args = append(args, c.catalogName)
	}
	if s.namespaces {
		parts = append(parts, "SELECT namespace FROM "+namespacesTable+" WHERE catalog_name = ?")
		args = append(args, c.catalogName)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	rows, err := c.query(ctx, strings.Join(parts, " UNION "), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var ns string
		if err := rows.Scan(&ns); err != nil {
			return nil, err
		}
		out = append(out, ns)
	}
	return out, rows.Err()
}
