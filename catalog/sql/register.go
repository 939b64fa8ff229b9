package sqlcat

import (
	"context"
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

var _ catalog.Registrar = (*Catalog)(nil)

// RegisterTable adds the table id whose current metadata is the file at
// metadataLocation, as Iceberg Java's JdbcCatalog (BaseMetastoreCatalog's
// registerTable) and PyIceberg's SqlCatalog do: the file is read and must
// parse as table metadata, and a row naming it is inserted; no file is
// written. A table or view of that name wraps ErrTableExists, a namespace
// that does not exist ErrNamespaceNotFound.
func (c *Catalog) RegisterTable(ctx context.Context, id catalog.Identifier, metadataLocation string) (*catalog.Table, error) {
	op := "register table " + id.String()
	if err := c.writable(op); err != nil {
		return nil, err
	}
	if err := id.Validate(); err != nil {
		return nil, err
	}
	defer c.Refresh(id)
	s, err := c.ensureSchema(ctx)
	if err != nil {
		return nil, c.dbError(ctx, op, err)
	}
	namespace := strings.Join(id.Namespace(), ".")
	if err := c.checkNewTable(ctx, s, op, namespace, id.Name()); err != nil {
		return nil, err
	}
	md, _, err := catalog.ReadMetadata(ctx, c.io, metadataLocation, c.maxMetadata)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %s: %w", c.name, op, err)
	}
	if err := c.insertTable(ctx, s, op, namespace, id.Name(), metadataLocation); err != nil {
		return nil, err
	}
	t := c.committed(id, metadataLocation, md)
	// Registered away from where it was written, a table records its old
	// location: it is read beside its metadata file, as LoadTable reads it.
	catalog.Relocate(ctx, t)
	return t, nil
}

// checkNewTable checks that a table namespace.name may be added: its
// namespace exists (Java keeps top-level tables in the empty one, which
// always does) and no table has the name.
func (c *Catalog) checkNewTable(ctx context.Context, s schema, op, namespace, name string) error {
	if namespace != "" {
		exists, err := c.namespaceExists(ctx, s, namespace)
		if err != nil {
			return c.dbError(ctx, op, err)
		}
		if !exists {
			return fmt.Errorf("catalog %s: %s: %w: %s", c.name, op, catalog.ErrNamespaceNotFound, namespace)
		}
	}
	if _, ok, err := c.metadataLocation(ctx, s, namespace, name); err != nil {
		return c.dbError(ctx, op, err)
	} else if ok {
		return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrTableExists)
	}
	return nil
}

// insertTable inserts the row of a new table namespace.name whose
// metadata file is loc, as JdbcCatalog inserts it (iceberg_type TABLE in
// schema V1). A row of that name, a table's or a view's, wraps
// ErrTableExists.
func (c *Catalog) insertTable(ctx context.Context, s schema, op, namespace, name, loc string) error {
	q := "INSERT INTO " + tablesTable + " (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location) VALUES (?, ?, ?, ?, NULL)"
	if s.v1 {
		q = "INSERT INTO " + tablesTable + " (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, 'TABLE')"
	}
	if _, err := c.exec(ctx, q, c.catalogName, namespace, name, loc); err != nil {
		if duplicateKey(err) {
			return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrTableExists)
		}
		return c.dbError(ctx, op, err)
	}
	return nil
}
