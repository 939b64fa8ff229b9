package sqlcat

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/iceflight/iceflight/fileio"
)

// ErrConfig marks catalog properties that cannot open a catalog: no uri, a
// database that is neither SQLite nor PostgreSQL, a URI that does not parse.
var ErrConfig = errors.New("bad SQL catalog configuration")

// PostgreSQL error classes and codes (Appendix A of its manual) that the
// catalog branches on.
const (
	pgClassAuth        = "28"    // invalid authorization specification
	pgInsufficientPriv = "42501" // insufficient_privilege
	pgUndefinedTable   = "42P01" // undefined_table
	pgUndefinedColumn  = "42703" // undefined_column
	sqliteNoSuchTable  = "no such table"
	sqliteNoSuchColumn = "no such column"
)

// dbError wraps a failed database call of op ("load table sales.orders")
// in the class a client can act on: fileio.ErrPermissionDenied for refused
// credentials or privileges, fileio.ErrUnavailable for everything else the
// database said or could not say (down, unreachable, locked), which may pass
// on retry. The message names the catalog and its database with secrets
// redacted; the driver's own error is kept as text only, scrubbed of
// secrets, since some quote their connection string. A call cut short by
// ctx wraps ctx's error instead.
func (c *Catalog) dbError(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, cerr)) {
		return fmt.Errorf("catalog %s: %s: %w", c.name, op, cerr)
	}
	class := fileio.ErrUnavailable
	if deniedByDatabase(err) {
		class = fileio.ErrPermissionDenied
	}
	return fmt.Errorf("catalog %s: %s: %s database %s: %w: %s", c.name, op, c.conn.engine, c.conn.display, class, c.conn.scrub(err.Error()))
}

// deniedByDatabase reports whether err is the database refusing the
// catalog's credentials or privileges.
func deniedByDatabase(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, pgClassAuth) || pgErr.Code == pgInsufficientPriv
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		switch liteErr.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
			return true
		}
	}
	return false
}

// missingRelation reports whether err says the catalog's table (or, with
// column set, a column of it) does not exist: a database where no writer
// has created the catalog yet, or a V0 schema without iceberg_type.
func missingRelation(err error, column bool) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if column {
			return pgErr.Code == pgUndefinedColumn
		}
		return pgErr.Code == pgUndefinedTable
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		if column {
			return strings.Contains(liteErr.Error(), sqliteNoSuchColumn)
		}
		return strings.Contains(liteErr.Error(), sqliteNoSuchTable)
	}
	return false
}
