package sqlcat

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

var (
	_ catalog.Committer  = (*Catalog)(nil)
	_ catalog.Namespaces = (*Catalog)(nil)
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

// writable refuses writes to a catalog configured read-only.
func (c *Catalog) writable(op string) error {
	if c.conn.readOnly {
		return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrReadOnly)
	}
	return nil
}

// exec runs a statement written with "?" placeholders and returns the
// rows it changed.
func (c *Catalog) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := c.db.ExecContext(ctx, c.rebind(q), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ensureSchema creates the catalog tables a writer needs if the database
// lacks them, and returns the schema then.
func (c *Catalog) ensureSchema(ctx context.Context) (schema, error) {
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

// CommitTable commits to a table as JdbcTableOperations and PyIceberg's
// SqlCatalog do: the table's row is read afresh, the requirements checked
// and the updates applied to its metadata, the result written to
// <location>/metadata/NNNNN-<uuid>.metadata.json (.gz.metadata.json when
// write.metadata.compression-codec is gzip), and the row swapped to it
// only if it still names the metadata the commit started from. A row
// changed since wraps ErrCommitConflict (and the new file is removed); a
// connection lost while the swap was under way wraps
// ErrCommitStateUnknown (and the file is kept: it may be the table now).
func (c *Catalog) CommitTable(ctx context.Context, id catalog.Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*catalog.Table, error) {
	op := "commit table " + id.String()
	if err := c.writable(op); err != nil {
		return nil, err
	}
	if err := id.Validate(); err != nil {
		return nil, err
	}
	defer c.Refresh(id)
	s, err := c.schema(ctx)
	if err != nil {
		return nil, c.dbError(ctx, op, err)
	}
	namespace := strings.Join(id.Namespace(), ".")
	baseLoc, ok, err := c.metadataLocation(ctx, s, namespace, id.Name())
	if err != nil {
		return nil, c.dbError(ctx, op, err)
	}
	if !ok {
		return nil, fmt.Errorf("catalog %s: table %s: %w", c.name, id, catalog.ErrTableNotFound)
	}
	base, _, err := catalog.ReadMetadata(ctx, c.io, baseLoc, c.maxMetadata)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: table %s: %w", c.name, id, err)
	}
	md, err := catalog.ApplyCommit(id, base, baseLoc, reqs, updates)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", c.name, err)
	}
	if md == base {
		return c.committed(id, baseLoc, base), nil
	}
	loc := newMetadataLocation(md, nextVersion(baseLoc))
	if err := catalog.WriteMetadataFile(ctx, c.io, loc, md, false); err != nil {
		return nil, fmt.Errorf("catalog %s: commit table %s: %w", c.name, id, err)
	}
	q := "UPDATE " + tablesTable + " SET metadata_location = ?, previous_metadata_location = ?" +
		" WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ?"
	if s.v1 {
		q += tablesOnly
	}
	n, err := c.exec(ctx, q, loc, baseLoc, c.catalogName, namespace, id.Name(), baseLoc)
	if err != nil {
		if answeredByDatabase(err) {
			// The database refused the statement: nothing changed.
			c.removeQuietly(loc)
			return nil, c.dbError(ctx, op, err)
		}
		return nil, fmt.Errorf("catalog %s: %s: %w: %w", c.name, op, catalog.ErrCommitStateUnknown, c.dbError(ctx, op, err))
	}
	if n == 0 {
		c.removeQuietly(loc)
		return nil, fmt.Errorf("catalog %s: %s: %w: the table's metadata changed since %s", c.name, op, catalog.ErrCommitConflict, path.Base(baseLoc))
	}
	return c.committed(id, loc, md), nil
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

// removeQuietly deletes a metadata file no commit published; a failure
// leaves an orphan file, which is harmless.
func (c *Catalog) removeQuietly(loc string) {
	_ = fileio.Remove(context.WithoutCancel(context.Background()), c.io, loc)
}

// committed returns the table as a commit left it.
func (c *Catalog) committed(id catalog.Identifier, loc string, md *iceberg.TableMetadata) *catalog.Table {
	return &catalog.Table{Identifier: id, MetadataLocation: loc, Metadata: md, IO: c.io, Location: md.Location}
}

// nextVersion returns the version after that of the metadata file loc
// (NNNNN-<uuid>.metadata.json, as Java's and PyIceberg's catalogs name
// them; vN.metadata.json too), or 0 when its name carries none, as Java
// parses it.
func nextVersion(loc string) int64 {
	name := path.Base(loc)
	digits := strings.TrimPrefix(name, "v")
	end := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
	if end <= 0 {
		return 0
	}
	n, err := strconv.ParseInt(digits[:end], 10, 64)
	if err != nil {
		return 0
	}
	return n + 1
}

// newMetadataLocation names version n of md's metadata file:
// <location>/metadata/NNNNN-<uuid>.metadata.json, gzip marked ".gz" before
// ".metadata.json" as Java writes it.
func newMetadataLocation(md *iceberg.TableMetadata, n int64) string {
	suffix := ".metadata.json"
	if catalog.MetadataGzip(md) {
		suffix = ".gz.metadata.json"
	}
	return strings.TrimRight(md.Location, "/") + "/metadata/" + fmt.Sprintf("%05d-%s", n, newUUID()) + suffix
}

// newUUID returns a random (version 4) UUID, as Java names metadata files.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// CreateTable creates the table id with md as its first metadata
// (<location>/metadata/00000-<uuid>.metadata.json), inserting its row; a
// row already there wraps ErrTableExists. Its namespace must exist
// (ErrNamespaceNotFound). An md without a location is put at
// <warehouse>/<namespace>.db/<table>, as PyIceberg does.
func (c *Catalog) CreateTable(ctx context.Context, id catalog.Identifier, md *iceberg.TableMetadata) (*catalog.Table, error) {
	op := "create table " + id.String()
	if err := c.writable(op); err != nil {
		return nil, err
	}
	if err := id.Validate(); err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("catalog %s: %s: no metadata", c.name, op)
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
	if md.Location == "" {
		loc, err := c.DefaultLocation(ctx, id)
		if err != nil {
			return nil, err
		}
		cp := *md
		cp.Location = loc
		md = &cp
	}
	loc := newMetadataLocation(md, 0)
	if err := catalog.WriteMetadataFile(ctx, c.io, loc, md, false); err != nil {
		return nil, fmt.Errorf("catalog %s: %s: %w", c.name, op, err)
	}
	if err := c.insertTable(ctx, s, op, namespace, id.Name(), loc); err != nil {
		c.removeQuietly(loc)
		return nil, err
	}
	return c.committed(id, loc, md), nil
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

// DropTable deletes the table's row; with purge, also the files its
// metadata reaches (catalog.PurgeFiles), found before the row goes so
// that a table whose files cannot all be found is not dropped. No folder
// is listed: after a rename, another table may own the same location.
func (c *Catalog) DropTable(ctx context.Context, id catalog.Identifier, purge bool) error {
	op := "drop table " + id.String()
	if err := c.writable(op); err != nil {
		return err
	}
	if err := id.Validate(); err != nil {
		return err
	}
	defer c.Refresh(id)
	s, err := c.schema(ctx)
	if err != nil {
		return c.dbError(ctx, op, err)
	}
	namespace := strings.Join(id.Namespace(), ".")
	loc, ok, err := c.metadataLocation(ctx, s, namespace, id.Name())
	if err != nil {
		return c.dbError(ctx, op, err)
	}
	if !ok {
		return fmt.Errorf("catalog %s: table %s: %w", c.name, id, catalog.ErrTableNotFound)
	}
	var files catalog.TableFiles
	if purge {
		md, _, err := catalog.ReadMetadata(ctx, c.io, loc, c.maxMetadata)
		if err != nil {
			return fmt.Errorf("catalog %s: %s: %w", c.name, op, err)
		}
		if files, err = catalog.PurgeFiles(ctx, c.io, md, loc); err != nil {
			return fmt.Errorf("catalog %s: %s: %w", c.name, op, err)
		}
	}
	q := "DELETE FROM " + tablesTable + " WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?"
	if s.v1 {
		q += tablesOnly
	}
	n, err := c.exec(ctx, q, c.catalogName, namespace, id.Name())
	if err != nil {
		return c.dbError(ctx, op, err)
	}
	if n == 0 {
		return fmt.Errorf("catalog %s: table %s: %w", c.name, id, catalog.ErrTableNotFound)
	}
	if purge {
		if err := catalog.RemoveFiles(ctx, c.io, files); err != nil {
			return fmt.Errorf("catalog %s: %s: %w", c.name, op, err)
		}
	}
	return nil
}

// namespaceExists reports whether ns is named by a table row or a
// namespace property row, itself or as the parent of one.
func (c *Catalog) namespaceExists(ctx context.Context, s schema, ns string) (bool, error) {
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
func (c *Catalog) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	name := strings.Join(ns, ".")
	op := "create namespace " + name
	if err := c.writable(op); err != nil {
		return err
	}
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return err
	}
	s, err := c.ensureSchema(ctx)
	if err != nil {
		return c.dbError(ctx, op, err)
	}
	if exists, err := c.namespaceExists(ctx, s, name); err != nil {
		return c.dbError(ctx, op, err)
	} else if exists {
		return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrNamespaceExists)
	}
	if len(props) == 0 {
		props = map[string]string{"exists": "true"}
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return c.dbError(ctx, op, err)
	}
	defer tx.Rollback()
	for k, v := range props {
		if _, err := tx.ExecContext(ctx, c.rebind("INSERT INTO "+namespacesTable+" (catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?)"), c.catalogName, name, k, v); err != nil {
			if duplicateKey(err) {
				return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrNamespaceExists)
			}
			return c.dbError(ctx, op, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return c.dbError(ctx, op, err)
	}
	return nil
}

// DropNamespace deletes the property rows of ns, which must hold no
// tables, views or namespaces.
func (c *Catalog) DropNamespace(ctx context.Context, ns []string) error {
	name := strings.Join(ns, ".")
	op := "drop namespace " + name
	if err := c.writable(op); err != nil {
		return err
	}
	s, err := c.schema(ctx)
	if err != nil {
		return c.dbError(ctx, op, err)
	}
	rows, err := c.namespaceRows(ctx, s)
	if err != nil {
		return c.dbError(ctx, op, err)
	}
	found := false
	for _, r := range rows {
		if strings.HasPrefix(r, name+".") {
			return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrNamespaceNotEmpty)
		}
		found = found || r == name
	}
	if !found {
		return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrNamespaceNotFound)
	}
	if s.tables {
		tables, err := c.tableRows(ctx, schema{tables: true})
		if err != nil {
			return c.dbError(ctx, op, err)
		}
		for _, t := range tables {
			if t[0] == name {
				return fmt.Errorf("catalog %s: %s: %w", c.name, op, catalog.ErrNamespaceNotEmpty)
			}
		}
	}
	if s.namespaces {
		if _, err := c.exec(ctx, "DELETE FROM "+namespacesTable+" WHERE catalog_name = ? AND namespace = ?", c.catalogName, name); err != nil {
			return c.dbError(ctx, op, err)
		}
	}
	return nil
}
