// Package pointer is the core of the catalogs that keep each table as a
// pointer to its current metadata file in a metastore (the Hive Metastore,
// AWS Glue, a SQL database) and commit by swapping that pointer. The
// metastore is a Store; Catalog does the rest the same way for all of
// them: loading and caching metadata, writing the next metadata file,
// removing it when the swap is lost, purging a dropped table's files,
// registering an existing metadata file, and placing new tables.
package pointer

import (
	"context"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// Store is the metastore of a pointer catalog: where its tables' pointers
// and its namespaces live. Its errors need not name the catalog or the
// table (Catalog does); they wrap the catalog package's sentinels where
// one applies, catalog.ErrCatalogUnavailable (or fileio.ErrUnavailable)
// for a metastore that is down or failing and
// catalog.ErrCatalogPermissionDenied for one that refuses the
// credentials. Secrets never appear in them.
//
// Identifiers reach a Store validated (catalog.Identifier.Validate).
type Store interface {
	catalog.Namespaces
	catalog.NamespaceProperties

	// Tables returns every Iceberg table the store holds, in any order.
	// Tables of other formats (a Hive or Glue table with no
	// table_type=ICEBERG parameter) are left out.
	Tables(ctx context.Context) ([]catalog.Identifier, error)
	// Locate returns the metadata location the table id points at. An
	// absent table, or one that is not an Iceberg table, wraps
	// catalog.ErrTableNotFound.
	Locate(ctx context.Context, id catalog.Identifier) (string, error)
	// Insert adds the table id pointing at the metadata file loc, whose
	// content is md (from which a store may mirror the schema, location
	// and properties into its own table entry). It wraps
	// catalog.ErrTableExists when id names a table already and
	// catalog.ErrNamespaceNotFound when its namespace does not exist.
	Insert(ctx context.Context, id catalog.Identifier, loc string, md *iceberg.TableMetadata) error
	// Swap points the table id at loc (content md) only if it points at
	// base now, as one atomic step. It wraps catalog.ErrCommitConflict
	// when the table points elsewhere or another writer won the race,
	// catalog.ErrTableNotFound when the table is gone, and
	// catalog.ErrCommitStateUnknown when the request may or may not have
	// taken effect (the connection broke after it was sent). Any other
	// error means the pointer did not change.
	Swap(ctx context.Context, id catalog.Identifier, base, loc string, md *iceberg.TableMetadata) error
	// Delete removes the table id from the store, leaving its files. It
	// wraps catalog.ErrTableNotFound when there is no such table.
	Delete(ctx context.Context, id catalog.Identifier) error
	// Rename gives the table from the name to, as catalog.Renamer says;
	// a store that cannot wraps catalog.ErrUnsupported.
	Rename(ctx context.Context, from, to catalog.Identifier) error
	// TableLocation returns where a new table id goes when its metadata
	// names no location, if the store decides it (a database's location
	// in the Hive Metastore or Glue: <database location>/<table>), or ""
	// to let Catalog put it at <warehouse>/<namespace>.db/<table>. The
	// namespace must exist (catalog.ErrNamespaceNotFound).
	TableLocation(ctx context.Context, id catalog.Identifier) (string, error)
}
