package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrPermissionDenied marks storage that refused the credentials it was
// given (or had none to give). Messages that wrap it name the bucket or
// container and the credential source, never a secret.
var ErrPermissionDenied = errors.New("storage permission denied")

// Entry is one name in a folder listed by a Lister.
type Entry struct {
	// Name is the last segment of the entry's location, with no "/".
	Name string
	// IsDir marks a folder (on object stores: a common prefix).
	IsDir bool
	// Size is the file's length in bytes; 0 for folders.
	Size int64
	// ModTime is when the file was last written, where the store says.
	ModTime time.Time
}

// Lister is a FileIO that can list a folder. Directory warehouses on
// object stores, metadata resolution without a version hint and orphan-file
// removal need it.
type Lister interface {
	// ReadDir lists the entries directly below dir (a folder location, with
	// or without a trailing "/"), sorted by name, as os.ReadDir does. A
	// folder with nothing in it, or none at all on an object store, lists
	// as empty; a local folder that does not exist wraps ErrNotFound.
	ReadDir(ctx context.Context, dir string) ([]Entry, error)
}

// SizedOpener is a FileIO that can open a file whose size the caller
// already knows (a task carries file_size_in_bytes), so that opening costs
// no HEAD or stat request.
type SizedOpener interface {
	// OpenSized opens location, trusting size as its length.
	OpenSized(ctx context.Context, location string, size int64) (File, error)
}

// OpenSized opens location with fio, trusting size when fio can (it is a
// SizedOpener and size is not negative) and asking the store otherwise.
func OpenSized(ctx context.Context, fio FileIO, location string, size int64) (File, error) {
	if so, ok := fio.(SizedOpener); ok && size >= 0 {
		return so.OpenSized(ctx, location, size)
	}
	return fio.Open(ctx, location)
}

// ReadDir lists dir with fio, which must be a Lister; otherwise the error
// wraps ErrUnsupportedScheme.
func ReadDir(ctx context.Context, fio FileIO, dir string) ([]Entry, error) {
	l, ok := fio.(Lister)
	if !ok {
		return nil, fmt.Errorf("list %s: %w: the storage cannot list folders", dir, ErrUnsupportedScheme)
	}
	return l.ReadDir(ctx, dir)
}

// Creator is a FileIO that writes files, for the writer and table
// maintenance.
type Creator interface {
	// Create starts a new file at location. Nothing is visible at location
	// until Close returns nil; a write cut short by the context leaves no
	// file behind.
	Create(ctx context.Context, location string) (io.WriteCloser, error)
}

// Create starts a file at location with fio, which must be a Creator;
// otherwise the error wraps ErrUnsupportedScheme.
func Create(ctx context.Context, fio FileIO, location string) (io.WriteCloser, error) {
	c, ok := fio.(Creator)
	if !ok {
		return nil, fmt.Errorf("create %s: %w: the storage cannot write files", location, ErrUnsupportedScheme)
	}
	return c.Create(ctx, location)
}

// Remove deletes the file at location with fio, which must be a Remover;
// otherwise the error wraps ErrUnsupportedScheme.
func Remove(ctx context.Context, fio FileIO, location string) error {
	r, ok := fio.(Remover)
	if !ok {
		return fmt.Errorf("remove %s: %w: the storage cannot delete files", location, ErrUnsupportedScheme)
	}
	return r.Remove(ctx, location)
}

// Remover is a FileIO that deletes files.
type Remover interface {
	// Remove deletes the file at location; a missing file wraps ErrNotFound.
	Remove(ctx context.Context, location string) error
}

// Properties are storage settings by the names PyIceberg users write in
// .pyiceberg.yaml ("s3.endpoint", "s3.access-key-id", "adls.account-name",
// "gcs.project-id", "hdfs.user" ...). Values may be secrets: never log them.
type Properties map[string]string

// Get returns the first of names that is set, or "".
func (p Properties) Get(names ...string) string {
	for _, n := range names {
		if v, ok := p[n]; ok {
			return v
		}
	}
	return ""
}

// Backend builds the FileIO that serves some URI schemes from Properties.
// Each storage package (fileio/s3, fileio/gcs, fileio/azure, fileio/hdfs)
// exports one, and the registry that configuration builds holds them all.
type Backend struct {
	// Name names the storage in messages ("S3", "HDFS").
	Name string
	// Schemes are the URI schemes served, lower case ("s3", "s3a", "s3n").
	Schemes []string
	// New returns a FileIO configured by props. It does no I/O that can
	// fail on a store that is down: the first Open reports that.
	New func(ctx context.Context, props Properties) (FileIO, error)
}

// ExclusiveCreator is a Creator that can also create a file only where none
// exists: the atomic step of a directory catalog's commit (two writers
// racing for vN+1.metadata.json, one wins). Local disks use a hard link,
// object stores a conditional write (S3 If-None-Match: *, GCS
// DoesNotExist, Azure If-None-Match: *), HDFS a rename that refuses to
// replace.
type ExclusiveCreator interface {
	// CreateExclusive starts a new file at location. Close publishes it
	// only if nothing is at location by then, and otherwise fails with an
	// error wrapping ErrExist, leaving the other file in place.
	CreateExclusive(ctx context.Context, location string) (io.WriteCloser, error)
}

// ErrExist marks a file that CreateExclusive found already there.
var ErrExist = errors.New("file already exists")

// CreateExclusive starts a file at location with fio, which must be an
// ExclusiveCreator; otherwise the error wraps ErrUnsupportedScheme.
func CreateExclusive(ctx context.Context, fio FileIO, location string) (io.WriteCloser, error) {
	c, ok := fio.(ExclusiveCreator)
	if !ok {
		return nil, fmt.Errorf("create %s: %w: the storage cannot create files exclusively", location, ErrUnsupportedScheme)
	}
	return c.CreateExclusive(ctx, location)
}
