package fileio

import (
	"context"
	"fmt"
	stdio "io"
	"strings"
	"sync"
)

// Resolver is a FileIO that hands each location to the FileIO registered for
// its URI scheme. By default it registers the local file system for "file"
// and for bare paths (the empty scheme); object stores and HDFS are
// registered by whoever configures them. Every registered FileIO is made
// Cancelable, so that no storage, however stuck, outlasts the context of
// the call that reads it.
type Resolver struct {
	mu       sync.RWMutex
	byScheme map[string]FileIO
}

// A Resolver has every optional method of a FileIO and forwards each to
// the FileIO of the location's scheme (itself made Cancelable, which does
// the same), so what a scheme's storage can do is reachable through it.
var (
	_ Lister      = (*Resolver)(nil)
	_ SizedOpener = (*Resolver)(nil)
	_ Creator     = (*Resolver)(nil)
	_ Remover     = (*Resolver)(nil)
)

// ResolverOption configures a Resolver made by NewResolver.
type ResolverOption func(*Resolver)

// WithScheme registers io for scheme, replacing any earlier registration.
func WithScheme(scheme string, io FileIO) ResolverOption {
	return func(r *Resolver) { r.byScheme[strings.ToLower(scheme)] = Cancelable(io) }
}

// WithoutLocal removes the default local file system, for deployments that
// must read only from remote storage.
func WithoutLocal() ResolverOption {
	return func(r *Resolver) {
		delete(r.byScheme, "")
		delete(r.byScheme, "file")
	}
}

// NewResolver returns a Resolver with the local file system registered for
// "file" and bare paths, then applies opts in order.
func NewResolver(opts ...ResolverOption) *Resolver {
	local := Cancelable(NewLocal())
	r := &Resolver{byScheme: map[string]FileIO{"": local, "file": local}}
	for _, opt := range opts {
		opt(r)
	}
	return r
}

// Register makes io serve locations whose scheme is scheme (case-insensitive;
// "" for bare paths). It is safe to call while files are being opened.
func (r *Resolver) Register(scheme string, io FileIO) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byScheme[strings.ToLower(scheme)] = Cancelable(io)
}

// For returns the FileIO registered for location's scheme (made
// Cancelable), or an error
// wrapping ErrUnsupportedScheme that names the location.
func (r *Resolver) For(location string) (FileIO, error) {
	scheme := Scheme(location)
	r.mu.RLock()
	io, ok := r.byScheme[scheme]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("open %s: %w %q", location, ErrUnsupportedScheme, scheme)
	}
	return io, nil
}

// Open opens location with the FileIO registered for its scheme.
func (r *Resolver) Open(ctx context.Context, location string) (File, error) {
	io, err := r.For(location)
	if err != nil {
		return nil, err
	}
	return io.Open(ctx, location)
}

// OpenSized opens location with the FileIO registered for its scheme,
// trusting size where that FileIO can.
func (r *Resolver) OpenSized(ctx context.Context, location string, size int64) (File, error) {
	io, err := r.For(location)
	if err != nil {
		return nil, err
	}
	return OpenSized(ctx, io, location, size)
}

// ReadDir lists dir with the FileIO registered for its scheme; the error
// wraps ErrUnsupportedScheme when that FileIO cannot list.
func (r *Resolver) ReadDir(ctx context.Context, dir string) ([]Entry, error) {
	io, err := r.For(dir)
	if err != nil {
		return nil, err
	}
	return ReadDir(ctx, io, dir)
}

// Create starts a file at location with the FileIO registered for its
// scheme, which must be able to write.
func (r *Resolver) Create(ctx context.Context, location string) (stdio.WriteCloser, error) {
	io, err := r.For(location)
	if err != nil {
		return nil, err
	}
	return Create(ctx, io, location)
}

// CreateExclusive starts a file at location, only where none exists, with
// the FileIO registered for its scheme, which must be an ExclusiveCreator.
func (r *Resolver) CreateExclusive(ctx context.Context, location string) (stdio.WriteCloser, error) {
	io, err := r.For(location)
	if err != nil {
		return nil, err
	}
	return CreateExclusive(ctx, io, location)
}

// Remove deletes the file at location with the FileIO registered for its
// scheme, which must be able to delete.
func (r *Resolver) Remove(ctx context.Context, location string) error {
	io, err := r.For(location)
	if err != nil {
		return err
	}
	return Remove(ctx, io, location)
}

// Scheme returns the lower-cased URI scheme of location ("s3" for
// "s3://b/k"), or "" for a bare path. Following RFC 3986 §3.1, a scheme is a
// letter then letters, digits, "+", "-" or "." before the first ":". A single
// letter is read as a Windows drive ("C:\x"), not a scheme.
func Scheme(location string) string {
	for i := 0; i < len(location); i++ {
		c := location[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 1:
			return strings.ToLower(location[:i])
		default:
			return ""
		}
	}
	return ""
}
