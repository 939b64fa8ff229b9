package sqlcat

import (
	"context"
	"fmt"

	"github.com/iceflight/iceflight/catalog"
)

// checkNewTable checks that a table namespace.name may be added: its
// namespace exists (Java keeps top-level tables in the empty one, which
// always does) and no table has the name.
func (c *store) checkNewTable(ctx context.Context, s schema, namespace, name string) error {
	if namespace != "" {
		exists, err := c.namespaceExists(ctx, s, namespace)
		if err != nil {
			return c.dbError(ctx, err)
		}
		if !exists {
			return fmt.Errorf("%w: %s", catalog.ErrNamespaceNotFound, namespace)
		}
	}
	if _, ok, err := c.metadataLocation(ctx, s, namespace, name); err != nil {
		return c.dbError(ctx, err)
	} else if ok {
		return catalog.ErrTableExists
	}
	return nil
}

// insertTable inserts the row of a new table namespace.name whose
// metadata file is loc, as JdbcCatalog inserts it (iceberg_type TABLE in
// schema V1). A row of that name, a table's or a view's, wraps
// ErrTableExists.
func (c *store) insertTable(ctx context.Context, s schema, namespace, name, loc string) error {
	q := "INSERT INTO " + tablesTable + " (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location) VALUES (?, ?, ?, ?, NULL)"
	if s.v1 {
		q = "INSERT INTO " + tablesTable + " (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, 'TABLE')"
	}
	if _, err := c.exec(ctx, q, c.catalogName, namespace, name, loc); err != nil {
		if duplicateKey(err) {
			return catalog.ErrTableExists
		}
		return c.dbError(ctx, err)
	}
	return nil
}
