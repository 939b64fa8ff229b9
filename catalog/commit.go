package catalog

import (
	"context"
	"errors"

	"github.com/iceflight/iceflight/iceberg"
)

// Errors of catalogs that change tables.
var (
	// ErrCommitConflict marks a commit that lost a race: a requirement
	// failed or another writer swapped the table first. Nothing was
	// changed; the writer may retry on fresh metadata.
	ErrCommitConflict = errors.New("commit conflict")
	// ErrCommitStateUnknown marks a commit whose outcome is unknown (the
	// catalog went away after the request was sent). A writer must not
	// delete the files it wrote for it: they may now be the table.
	ErrCommitStateUnknown = errors.New("commit state unknown")
	// ErrTableExists marks a create of a table that already exists.
	ErrTableExists = errors.New("table already exists")
	// ErrNamespaceExists marks a create of a namespace that exists.
	ErrNamespaceExists = errors.New("namespace already exists")
	// ErrNamespaceNotEmpty marks a drop of a namespace that holds tables
	// or namespaces.
	ErrNamespaceNotEmpty = errors.New("namespace not empty")
	// ErrReadOnly marks a catalog that cannot change tables (its
	// configuration or its kind).
	ErrReadOnly = errors.New("catalog is read-only")
)

// Committer is a catalog that changes tables atomically.
type Committer interface {
	// CommitTable applies updates to the table's current metadata if
	// every requirement holds of it, as one atomic swap, and returns the
	// table as committed. A lost race wraps ErrCommitConflict; an unknown
	// outcome wraps ErrCommitStateUnknown. A directory catalog writes the
	// next vN.metadata.json exclusively, then the version hint; a SQL
	// catalog compares and swaps metadata_location; a REST catalog posts
	// the requirements and updates.
	CommitTable(ctx context.Context, id Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*Table, error)
	// CreateTable creates a table whose first metadata is md (built with
	// iceberg.NewTableMetadata; md.Location empty means the catalog's
	// default location for id). It wraps ErrTableExists when the table
	// exists and ErrNamespaceNotFound when its namespace does not.
	CreateTable(ctx context.Context, id Identifier, md *iceberg.TableMetadata) (*Table, error)
	// DropTable removes the table from the catalog; with purge its files
	// are deleted too.
	DropTable(ctx context.Context, id Identifier, purge bool) error
}

// Namespaces is a catalog that lists, creates and drops namespaces.
type Namespaces interface {
	// ListNamespaces returns the namespaces directly below parent (nil:
	// the top level), sorted.
	ListNamespaces(ctx context.Context, parent []string) ([][]string, error)
	// CreateNamespace creates ns with properties; ErrNamespaceExists if
	// it exists.
	CreateNamespace(ctx context.Context, ns []string, props map[string]string) error
	// DropNamespace drops an empty namespace; ErrNamespaceNotEmpty if it
	// holds tables or namespaces, ErrNamespaceNotFound if it is absent.
	DropNamespace(ctx context.Context, ns []string) error
}
