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

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrConfig marks catalog properties that cannot open a catalog: no
	// uri, a database that is neither SQLite nor PostgreSQL, a URI that
	// does not parse.
	ErrConfig = errors.New("bad SQL catalog configuration")
	// ErrDatabaseUnavailable marks a catalog database that is down,
	// unreachable, locked or failing, which may pass on retry. It is also
	// fileio.ErrUnavailable, which the Flight boundary maps to Unavailable.
	ErrDatabaseUnavailable error = classError{"catalog database unavailable", fileio.ErrUnavailable}
	// ErrDatabaseDenied marks a catalog database that refused the
	// catalog's credentials or privileges. It is also
	// fileio.ErrPermissionDenied, which maps to PermissionDenied.
	ErrDatabaseDenied error = classError{"catalog database refused the credentials", fileio.ErrPermissionDenied}
)

// classError is a sentinel with its own message that is also a more
// general one, so that errors.Is matches both.
type classError struct {
	msg   string
	class error
}

func (e classError) Error() string { return e.msg }
func (e classError) Unwrap() error { return e.class }

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

// dbError wraps a failed database call
// in the class a client can act on: ErrDatabaseDenied for refused
// credentials or privileges, ErrDatabaseUnavailable for everything else the
// database said or could not say (down, unreachable, locked). The message
// names the database with secrets redacted (the catalog and the operation
// are named by pointer.Catalog, which wraps it); the driver's own error is kept as text only, scrubbed of
// secrets, since some quote their connection string. A call cut short by
// ctx wraps ctx's error instead.
func (c *store) dbError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, cerr)) {
		return cerr
	}
	class := ErrDatabaseUnavailable
	if deniedByDatabase(err) {
		class = ErrDatabaseDenied
	}
	return fmt.Errorf("%s database %s: %w: %s", c.conn.engine, c.conn.display, class, c.conn.scrub(err.Error()))
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
