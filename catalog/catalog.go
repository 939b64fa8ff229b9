// Package catalog finds Iceberg tables: it turns a table identifier into the
// table's current metadata and a FileIO that reaches its files where they
// really are.
package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Identifier names a table: its namespace parts, then the table name.
type Identifier []string

// String joins the parts with ".", as in "sales.orders".
func (id Identifier) String() string { return strings.Join(id, ".") }

// Namespace returns every part but the table name.
func (id Identifier) Namespace() []string {
	if len(id) == 0 {
		return nil
	}
	return id[:len(id)-1]
}

// Name returns the table name, the last part.
func (id Identifier) Name() string {
	if len(id) == 0 {
		return ""
	}
	return id[len(id)-1]
}

// Validate checks that every part can be used as a name: not empty, not "."
// or "..", and free of "/", "\" and NUL, so that no identifier can climb out
// of a catalog's folder. It returns an error wrapping ErrInvalidIdentifier.
func (id Identifier) Validate() error {
	if len(id) == 0 {
		return fmt.Errorf("%w: empty", ErrInvalidIdentifier)
	}
	for _, p := range id {
		switch {
		case p == "":
			return fmt.Errorf("%w %q: empty part", ErrInvalidIdentifier, id.String())
		case p == "." || p == "..":
			return fmt.Errorf("%w %q: part %q", ErrInvalidIdentifier, id.String(), p)
		case strings.ContainsAny(p, "/\\\x00"):
			return fmt.Errorf("%w %q: part %q holds a path separator or NUL", ErrInvalidIdentifier, id.String(), p)
		case len(p) >= 2 && p[1] == ':' && isLetter(p[0]):
			// A Windows drive ("C:") would make the part an absolute path.
			return fmt.Errorf("%w %q: part %q names a drive", ErrInvalidIdentifier, id.String(), p)
		}
	}
	return nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// ParseIdentifier splits a dotted name ("db.table") into an Identifier. It
// rejects empty parts (and so "..", leading and trailing dots), "/", "\",
// NUL and absolute paths with an error wrapping ErrInvalidIdentifier.
func ParseIdentifier(s string) (Identifier, error) {
	if s == "" {
		return nil, fmt.Errorf("%w: empty", ErrInvalidIdentifier)
	}
	id := Identifier(strings.Split(s, "."))
	if err := id.Validate(); err != nil {
		return nil, err
	}
	return id, nil
}

// Catalog finds tables.
type Catalog interface {
	// ListTables returns the identifiers of every table, sorted.
	ListTables(ctx context.Context) ([]Identifier, error)
	// LoadTable returns the table's current metadata, or an error wrapping
	// ErrTableNotFound or ErrInvalidIdentifier.
	LoadTable(ctx context.Context, id Identifier) (*Table, error)
}

// Table is a loaded table: its current metadata and how to reach its files.
type Table struct {
	// Identifier is the table's name in its catalog.
	Identifier Identifier
	// Catalog names the mounted catalog (see Registry) the table came
	// from, whose storage profile reads its files; "" for a catalog
	// served alone.
	Catalog string
	// MetadataLocation is the current metadata file that was read.
	MetadataLocation string
	// Metadata is the parsed current metadata.
	Metadata *iceberg.TableMetadata
	// IO opens the locations recorded in the metadata and its manifests; it
	// already maps the writer's paths to where the files are now.
	IO fileio.FileIO
	// Location is where the table really is, which may differ from
	// Metadata.Location, the place it was written.
	Location string
	// StorageProperties are the properties IO was built from when the
	// catalog vended storage credentials for this table (a REST catalog's
	// X-Iceberg-Access-Delegation), else nil. They hold secrets: never log
	// them; flight seals them into tickets so that workers can read the
	// table.
	StorageProperties fileio.Properties
	// CredentialsExpire is when those credentials expire; zero when
	// unknown or never.
	CredentialsExpire time.Time

	// rules map the table's recorded locations (see Directory.tableRules).
	rules []fileio.Rule
	// confine keeps the table's reads inside what it may read; nil for
	// catalogs without folders.
	confine *confinement
}
