// Package storage builds the FileIO that reads every location a
// deployment reaches: one fileio.Resolver per distinct set of storage
// properties (PyIceberg's names: "s3.endpoint", "adls.account-name" ...),
// serving the local file system and every compiled-in storage back end by
// URI scheme. Catalogs, the planner and the reader all read through what
// it builds, so a file is reached the same way whoever opens it.
package storage

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/iceflight/iceflight/fileio"
)

// DefaultMaxProfiles is how many distinct property sets a Registry keeps
// a FileIO for. Configured catalogs need one each; vended credentials (a
// REST catalog's per-table storage credentials) need one per credential
// set, which a busy catalog renews all day, so the bound matters.
const DefaultMaxProfiles = 256

// Registry hands out the FileIO of each storage profile (a set of
// properties), building it once and keeping the most recently used ones.
// It is safe for concurrent use.
type Registry struct {
	backends []fileio.Backend
	local    fileio.FileIO // nil: the Resolver's own local file system
	noLocal  bool
	max      int

	mu      sync.Mutex
	byKey   map[[sha256.Size]byte]*list.Element
	recency *list.List // of *profile, most recently used first
}

// profile is one property set and the FileIO built from it.
type profile struct {
	key [sha256.Size]byte
	io  *fileio.Resolver
}

// Option configures a Registry made by New.
type Option func(*Registry)

// WithBackends replaces the compiled-in back ends (Backends) with bs.
func WithBackends(bs ...fileio.Backend) Option {
	return func(r *Registry) { r.backends = append([]fileio.Backend(nil), bs...) }
}

// WithLocal serves bare paths and file:// with local instead of the
// unconfined local file system: a process confines its local reads to
// the folders it was given this way.
func WithLocal(local fileio.FileIO) Option { return func(r *Registry) { r.local = local } }

// WithoutLocal serves no local file at all, for deployments that must read
// only from remote storage.
func WithoutLocal() Option { return func(r *Registry) { r.noLocal = true } }

// WithMaxProfiles bounds the property sets kept (DefaultMaxProfiles); the
// least recently used goes first. Less than 1 keeps one.
func WithMaxProfiles(n int) Option { return func(r *Registry) { r.max = max(n, 1) } }

// New returns a Registry of the compiled-in back ends and the local file
// system, then applies opts in order.
func New(opts ...Option) *Registry {
	r := &Registry{backends: Backends(), max: DefaultMaxProfiles,
		byKey: map[[sha256.Size]byte]*list.Element{}, recency: list.New()}
	for _, o := range opts {
		o(r)
	}
	return r
}

// ForProperties returns the FileIO of the storage profile props: the same
// one for equal properties, however often asked. A back end is built from
// props when a location of one of its schemes is first opened, so that a
// profile never reaching a store costs nothing for it, and a back end
// that cannot be built (say, malformed credentials) fails only the reads
// of its own schemes, naming the back end and never a property's value.
func (r *Registry) ForProperties(ctx context.Context, props fileio.Properties) (fileio.FileIO, error) {
	key := profileKey(props)
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byKey[key]; ok {
		r.recency.MoveToFront(e)
		return e.Value.(*profile).io, nil
	}
	p := &profile{key: key, io: r.build(props)}
	r.byKey[key] = r.recency.PushFront(p)
	for r.recency.Len() > r.max {
		// An evicted profile's FileIO stays usable by whoever holds it; it
		// is only no longer handed out, and goes when its last user does.
		old := r.recency.Remove(r.recency.Back()).(*profile)
		delete(r.byKey, old.key)
	}
	return p.io, nil
}

// Len returns how many storage profiles the Registry holds.
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recency.Len()
}

// build makes the Resolver of one profile.
func (r *Registry) build(props fileio.Properties) *fileio.Resolver {
	var opts []fileio.ResolverOption
	switch {
	case r.noLocal:
		opts = append(opts, fileio.WithoutLocal())
	case r.local != nil:
		opts = append(opts, fileio.WithScheme("", r.local), fileio.WithScheme("file", r.local))
	}
	// The properties are copied: a caller may reuse its map.
	own := fileio.Properties(make(map[string]string, len(props)))
	for k, v := range props {
		own[k] = v
	}
	for _, b := range r.backends {
		lz := &lazy{backend: b, props: own}
		for _, s := range b.Schemes {
			opts = append(opts, fileio.WithScheme(s, lz))
		}
	}
	return fileio.NewResolver(opts...)
}

// profileKey is a digest of props that equal property sets share, so the
// map holds no secret as its key.
func profileKey(props fileio.Properties) [sha256.Size]byte {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	var n [8]byte
	for _, k := range keys {
		// Length-prefixed, so that no two property sets encode alike.
		for _, s := range []string{k, props[k]} {
			binary.BigEndian.PutUint64(n[:], uint64(len(s)))
			h.Write(n[:])
			h.Write([]byte(s))
		}
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// errBuild names the back end that could not be built from a profile.
func errBuild(b fileio.Backend, err error) error {
	return fmt.Errorf("storage %s: configure: %w", b.Name, err)
}

// unsupported says that back end b cannot do what to location.
func unsupported(b fileio.Backend, what, location string) error {
	return fmt.Errorf("%s %s: %w: storage %s cannot %s files", what, location, fileio.ErrUnsupportedScheme, b.Name, what)
}
