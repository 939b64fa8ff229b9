package sqlcat

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

var _ catalog.Renamer = (*Catalog)(nil)

// RenameTable moves the table's row to its new name, as Iceberg Java's
// JdbcCatalog does: one UPDATE of the row's namespace and name, keyed by
// the old ones (and, in schema V1, by its being a table), so the table
// keeps its metadata files, its metadata_location and its
// previous_metadata_location. A commit racing it finds no row of the old
// name and fails as a conflict; nothing is lost. from must name a table
// (ErrTableNotFound), to's namespace must exist (ErrNamespaceNotFound)
// and to must name no table or view (ErrTableExists, also when one
// appears between the check and the UPDATE: the primary key refuses it).
// Renaming a table to its own name changes nothing.
func (c *Catalog) RenameTable(ctx context.Context, from, to catalog.Identifier) error {
	op := "rename table " + from.String() + " to " + to.String()
	if err := c.writable(op); err != nil {
		return err
	}
	for _, id := range []catalog.Identifier{from, to} {
		if err := id.Validate(); err != nil {
			return err
		}
	}
	defer c.Refresh(from)
	defer c.Refresh(to)
	s, err := c.schema(ctx)
	if err != nil {
		return c.dbError(ctx, op, err)
	}
	fromNS := strings.Join(from.Namespace(), ".")
	if _, ok, err := c.metadataLocation(ctx, s, fromNS, from.Name()); err != nil {
		return c.dbError(ctx, op, err)
	} else if !ok {
		return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrTableNotFound)
	}
	if slices.Equal(from, to) {
		return nil
	}
	toNS := strings.Join(to.Namespace(), ".")
	if err := c.checkNewTable(ctx, s, op, toNS, to.Name()); err != nil {
		return err
	}
	q := "UPDATE " + tablesTable + " SET table_namespace = ?, table_name = ?" +
		" WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?"
	if s.v1 {
		q += tablesOnly
	}
	n, err := c.exec(ctx, q, toNS, to.Name(), c.catalogName, fromNS, from.Name())
	if err != nil {
		if duplicateKey(err) {
			return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrTableExists)
		}
		return c.dbError(ctx, op, err)
	}
	if n == 0 {
		return fmt.Errorf("catalog %s: %s: %w: it was dropped or renamed meanwhile", c.name, op, catalog.ErrTableNotFound)
	}
	return nil
}
