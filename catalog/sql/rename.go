package sqlcat

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

// Rename moves the table's row to its new name, as Iceberg Java's
// JdbcCatalog does: one UPDATE of the row's namespace and name, keyed by
// the old ones (and, in schema V1, by its being a table), so the table
// keeps its metadata files, its metadata_location and its
// previous_metadata_location. A commit racing it finds no row of the old
// name and fails as a conflict; nothing is lost. from must name a table
// (ErrTableNotFound), to's namespace must exist (ErrNamespaceNotFound)
// and to must name no table or view (ErrTableExists, also when one
// appears between the check and the UPDATE: the primary key refuses it).
// Renaming a table to its own name changes nothing.
func (c *store) Rename(ctx context.Context, from, to catalog.Identifier) error {
	s, err := c.schema(ctx)
	if err != nil {
		return c.dbError(ctx, err)
	}
	fromNS := strings.Join(from.Namespace(), ".")
	if _, ok, err := c.metadataLocation(ctx, s, fromNS, from.Name()); err != nil {
		return c.dbError(ctx, err)
	} else if !ok {
		return catalog.ErrTableNotFound
	}
	if slices.Equal(from, to) {
		return nil
	}
	toNS := strings.Join(to.Namespace(), ".")
	if err := c.checkNewTable(ctx, s, toNS, to.Name()); err != nil {
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
			return catalog.ErrTableExists
		}
		return c.dbError(ctx, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: it was dropped or renamed meanwhile", catalog.ErrTableNotFound)
	}
	return nil
}
