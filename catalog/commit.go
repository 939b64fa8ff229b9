package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	// ErrUnsupported marks an operation the catalog's kind cannot do: a
	// directory warehouse names a table by its folder, so it cannot rename
	// one, and keeps no namespace properties, as Iceberg Java's
	// HadoopCatalog cannot. Java's REST server answers such an operation
	// 406 (UnsupportedOperationException).
	ErrUnsupported = errors.New("unsupported by this catalog")
	// ErrInvalidProperties marks a change of namespace properties that
	// cannot be made: a key both removed and set (the REST API's 422), or
	// a key the catalog reserves for itself.
	ErrInvalidProperties = errors.New("invalid namespace properties change")
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

// NamespaceProperties is a catalog whose namespaces carry properties.
type NamespaceProperties interface {
	// LoadNamespace returns the properties of the namespace ns, never nil,
	// or an error wrapping ErrNamespaceNotFound when it does not exist:
	// it is how a caller learns that a namespace exists.
	LoadNamespace(ctx context.Context, ns []string) (map[string]string, error)
	// UpdateNamespaceProperties removes the keys removals from ns and
	// sets updates on it, and reports what it did as the REST API's
	// UpdateNamespacePropertiesResponse does. A key in both wraps
	// ErrInvalidProperties; a namespace that does not exist,
	// ErrNamespaceNotFound.
	UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) (PropertiesChange, error)
}

// PropertiesChange is what an update of namespace properties did, each
// list sorted.
type PropertiesChange struct {
	// Updated are the keys set, new or changed.
	Updated []string
	// Removed are the keys removed.
	Removed []string
	// Missing are the keys asked to be removed that the namespace did not
	// have.
	Missing []string
}

// CheckPropertiesUpdate refuses an update of namespace properties that
// both removes and sets a key, with an error wrapping
// ErrInvalidProperties that names the keys, as the REST API and Iceberg
// Java's UpdateNamespacePropertiesRequest do.
func CheckPropertiesUpdate(removals []string, updates map[string]string) error {
	var both []string
	for _, k := range removals {
		if _, ok := updates[k]; ok && !slices.Contains(both, k) {
			both = append(both, k)
		}
	}
	if len(both) > 0 {
		slices.Sort(both)
		return fmt.Errorf("%w: keys both removed and set: %s", ErrInvalidProperties, strings.Join(both, ", "))
	}
	return nil
}

// Renamer is a catalog that renames tables, possibly into another
// namespace.
type Renamer interface {
	// RenameTable gives the table from the name to. It wraps
	// ErrTableNotFound when from names no table, ErrTableExists when to
	// names a table (or a view), ErrNamespaceNotFound when to's namespace
	// does not exist, and ErrUnsupported when the catalog cannot rename.
	RenameTable(ctx context.Context, from, to Identifier) error
}

// Registrar is a catalog that adds an existing table by its metadata
// file, as the REST API's register does.
type Registrar interface {
	// RegisterTable adds the table id whose current metadata is the file
	// at metadataLocation, which must parse as table metadata, and
	// returns it loaded. It wraps ErrTableExists when id names a table
	// (or a view) and ErrNamespaceNotFound when its namespace does not
	// exist.
	RegisterTable(ctx context.Context, id Identifier, metadataLocation string) (*Table, error)
}
