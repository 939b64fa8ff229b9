package sqlcat

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// The catalog tables as a new catalog gets them: JdbcUtil's V1 schema,
// which PyIceberg's SqlCatalog creates too.
var createStatements = []string{
	`CREATE TABLE IF NOT EXISTS ` + tablesTable + ` (
		catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,
		table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000),
		previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5),
		PRIMARY KEY (catalog_name, table_namespace, table_name))`,
	`CREATE TABLE IF NOT EXISTS ` + namespacesTable + ` (
		catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL,
		property_key VARCHAR(255) NOT NULL, property_value VARCHAR(1000),
		PRIMARY KEY (catalog_name, namespace, property_key))`,
}

// exec runs a statement written with "?" placeholders and returns the
// rows it changed.
func (c *store) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := c.db.ExecContext(ctx, c.rebind(q), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ensureSchema creates the catalog tables a writer needs if the database
// lacks them, and returns the schema then.
func (c *store) ensureSchema(ctx context.Context) (schema, error) {
	s, err := c.schema(ctx)
	if err != nil || s.tables && s.namespaces {
		return s, err
	}
	for _, stmt := range createStatements {
		if _, err := c.db.ExecContext(ctx, stmt); err != nil {
			return schema{}, err
		}
	}
	return c.schema(ctx)
}

// Swap points the table's row at loc, as JdbcTableOperations and
// PyIceberg's SqlCatalog commit: one UPDATE of metadata_location (and
// previous_metadata_location) keyed by the location the commit started
// from, so that a row changed since is left alone and reported as a
// conflict. A connection lost while the UPDATE was under way leaves its
// fate unknown.
func (c *store) Swap(ctx context.Context, id catalog.Identifier, base, loc string, _ *iceberg.TableMetadata) error {
	s, err := c.schema(ctx)
	if err != nil {
		return c.dbError(ctx, err)
	}
	if !s.tables {
		return catalog.ErrTableNotFound
	}
	q := "UPDATE " + tablesTable + " SET metadata_location = ?, previous_metadata_location = ?" +
		" WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ?"
	if s.v1 {
		q += tablesOnly
	}
	n, err := c.exec(ctx, q, loc, base, c.catalogName, strings.Join(id.Namespace(), "."), id.Name(), base)
	if err != nil {
		if answeredByDatabase(err) {
			// The database refused the statement: nothing changed.
			return c.dbError(ctx, err)
		}
		return fmt.Errorf("%w: %w", catalog.ErrCommitStateUnknown, c.dbError(ctx, err))
	}
	if n == 0 {
		return fmt.Errorf("%w: the table's metadata changed since %s", catalog.ErrCommitConflict, path.Base(base))
	}
	return nil
}

// answeredByDatabase reports whether err is the database's own answer to
// a statement (which then did not run), not a connection that failed
// with the statement's fate unknown. SQLite runs in the process: every
// error is an answer.
func answeredByDatabase(err error) bool {
	var pgErr *pgconn.PgError
	var liteErr *sqlite.Error
	return errors.As(err, &pgErr) || errors.As(err, &liteErr)
}

// Insert adds the row of a new table whose metadata file is loc, creating
// the catalog tables first in a database that has none. Its namespace
// must exist (ErrNamespaceNotFound); a row of its name wraps
// ErrTableExists.
func (c *store) Insert(ctx context.Context, id catalog.Identifier, loc string, _ *iceberg.TableMetadata) error {
	s, err := c.ensureSchema(ctx)
	if err != nil {
		return c.dbError(ctx, err)
	}
	namespace := strings.Join(id.Namespace(), ".")
	if err := c.checkNewTable(ctx, s, namespace, id.Name()); err != nil {
		return err
	}
	return c.insertTable(ctx, s, namespace, id.Name(), loc)
}

// duplicateKey reports whether err is an insert of a key already there.
func duplicateKey(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505" // unique_violation
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		return liteErr.Code()&0xff == 19 // SQLITE_CONSTRAINT
	}
	return false
}

// Delete deletes the table's row.
func (c *store) Delete(ctx context.Context, id catalog.Identifier) error {
	s, err := c.schema(ctx)
	if err != nil {
		return c.dbError(ctx, err)
	}
	if !s.tables {
		return catalog.ErrTableNotFound
	}
	q := "DELETE FROM " + tablesTable + " WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?"
	if s.v1 {
		q += tablesOnly
	}
	n, err := c.exec(ctx, q, c.catalogName, strings.Join(id.Namespace(), "."), id.Name())
	if err != nil {
		return c.dbError(ctx, err)
	}
	if n == 0 {
		return catalog.ErrTableNotFound
	}
	return nil
}

// namespaceExists reports whether ns is named by a table row or a
// namespace property row, itself or as the parent of one.
func (c *store) namespaceExists(ctx context.Context, s schema, ns string) (bool, error) {
	rows, err := c.namespaceRows(ctx, s)
	if err != nil {
		return false, err
	}
	for _, r := range rows {
		if r == ns || strings.HasPrefix(r, ns+".") {
			return true, nil
		}
	}
	return false, nil
}

// CreateNamespace creates ns with props as property rows; with none, the
// row exists=true, as Java and PyIceberg write it for an empty namespace.
func (c *store) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	name := strings.Join(ns, ".")
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return err
	}
	s, err := c.ensureSchema(ctx)
	if err != nil {
		return c.dbError(ctx, err)
	}
	if exists, err := c.namespaceExists(ctx, s, name); err != nil {
		return c.dbError(ctx, err)
	} else if exists {
		return catalog.ErrNamespaceExists
	}
	if len(props) == 0 {
		props = map[string]string{"exists": "true"}
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return c.dbError(ctx, err)
	}
	defer tx.Rollback()
	for k, v := range props {
		if _, err := tx.ExecContext(ctx, c.rebind("INSERT INTO "+namespacesTable+" (catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?)"), c.catalogName, name, k, v); err != nil {
			if duplicateKey(err) {
				return catalog.ErrNamespaceExists
			}
			return c.dbError(ctx, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return c.dbError(ctx, err)
	}
	return nil
}

// DropNamespace deletes the property rows of ns, which must hold no
// tables, views or namespaces.
func (c *store) DropNamespace(ctx context.Context, ns []string) error {
	name := strings.Join(ns, ".")
	s, err := c.schema(ctx)
	if err != nil {
		return c.dbError(ctx, err)
	}
	rows, err := c.namespaceRows(ctx, s)
	if err != nil {
		return c.dbError(ctx, err)
	}
	found := false
	for _, r := range rows {
		if strings.HasPrefix(r, name+".") {
			return catalog.ErrNamespaceNotEmpty
		}
		found = found || r == name
	}
	if !found {
		return catalog.ErrNamespaceNotFound
	}
	if s.tables {
		tables, err := c.tableRows(ctx, schema{tables: true})
		if err != nil {
			return c.dbError(ctx, err)
		}
		for _, t := range tables {
			if t[0] == name {
				return catalog.ErrNamespaceNotEmpty
			}
		}
	}
	if s.namespaces {
		if _, err := c.exec(ctx, "DELETE FROM "+namespacesTable+" WHERE catalog_name = ? AND namespace = ?", c.catalogName, name); err != nil {
			return c.dbError(ctx, err)
		}
	}
	return nil
}
