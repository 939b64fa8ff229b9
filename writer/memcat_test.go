package writer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// memCatalog is a catalog of tables in memory over fileio.Mem, applying
// only snapshot commits: it tests the commit loop apart from the real
// catalogs and metadata builder.
type memCatalog struct {
	mu     sync.Mutex
	io     *trackedIO
	tables map[string]*iceberg.TableMetadata
	// commits counts CommitTable calls.
	commits int
	// root is where new tables go.
	root string
}

// writableIO is a FileIO that creates and removes files.
type writableIO interface {
	fileio.FileIO
	Create(ctx context.Context, loc string) (io.WriteCloser, error)
	Remove(ctx context.Context, loc string) error
}

// trackedIO is a FileIO that remembers which files exist, for orphan
// checks.
type trackedIO struct {
	writableIO
	mu    sync.Mutex
	files map[string]bool
}

func (t *trackedIO) Create(ctx context.Context, loc string) (io.WriteCloser, error) {
	w, err := t.writableIO.Create(ctx, loc)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.files[loc] = true
	t.mu.Unlock()
	return w, nil
}

func (t *trackedIO) Remove(ctx context.Context, loc string) error {
	t.mu.Lock()
	delete(t.files, loc)
	t.mu.Unlock()
	return t.writableIO.Remove(ctx, loc)
}

func (t *trackedIO) list() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(maps.Keys(t.files))
}

func newMemCatalog(fio writableIO, root string) *memCatalog {
	return &memCatalog{io: &trackedIO{writableIO: fio, files: map[string]bool{}}, root: root, tables: map[string]*iceberg.TableMetadata{}}
}

func (c *memCatalog) ListTables(ctx context.Context) ([]catalog.Identifier, error) { return nil, nil }

func (c *memCatalog) LoadTable(ctx context.Context, id catalog.Identifier) (*catalog.Table, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	md, ok := c.tables[id.String()]
	if !ok {
		return nil, catalog.ErrTableNotFound
	}
	return &catalog.Table{Identifier: id, Metadata: md, IO: c.io, Location: md.Location, MetadataLocation: fmt.Sprintf("mem://v%d", len(md.Snapshots))}, nil
}

func (c *memCatalog) CreateTable(ctx context.Context, id catalog.Identifier, md *iceberg.TableMetadata) (*catalog.Table, error) {
	c.mu.Lock()
	if _, ok := c.tables[id.String()]; ok {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", catalog.ErrTableExists, id)
	}
	if md.Location == "" {
		cp := *md
		cp.Location = c.root + "/" + id.String()
		md = &cp
	}
	c.tables[id.String()] = md
	c.mu.Unlock()
	return c.LoadTable(ctx, id)
}

func (c *memCatalog) DropTable(ctx context.Context, id catalog.Identifier, purge bool) error {
	return errors.New("not supported")
}

// CommitTable checks the requirements and applies the updates with the
// iceberg package's own Validate and ApplyUpdates, as the directory
// catalog does, without writing a metadata file.
func (c *memCatalog) CommitTable(ctx context.Context, id catalog.Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*catalog.Table, error) {
	c.mu.Lock()
	c.commits++
	base := c.tables[id.String()]
	for _, r := range reqs {
		if err := r.Validate(base); err != nil {
			c.mu.Unlock()
			return nil, fmt.Errorf("%w: %w", catalog.ErrCommitConflict, err)
		}
	}
	md, err := iceberg.ApplyUpdates(base, "", updates)
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	c.tables[id.String()] = md
	c.mu.Unlock()
	return c.LoadTable(ctx, id)
}

// memFixture is a fixture over a memCatalog.
func newMemFixture(t *testing.T, formatVersion int, partitioned bool, props map[string]string, opts ...Option) (*fixture, *memCatalog) {
	t.Helper()
	return newCatalogFixture(t, newMemCatalog(fileio.NewMem(), "mem://wh"), formatVersion, partitioned, props, opts...)
}

// newCatalogFixture is a fixture of a new table in mc.
func newCatalogFixture(t *testing.T, mc *memCatalog, formatVersion int, partitioned bool, props map[string]string, opts ...Option) (*fixture, *memCatalog) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	f := &fixture{t: t, mem: mem, id: catalog.Identifier{"db", "t"}}
	f.load = func() *catalog.Table {
		tb, err := mc.LoadTable(context.Background(), f.id)
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	f.files = mc.io.list
	f.newWriter = func(wrap func(Catalog) Catalog) *Writer {
		var c Catalog = mc
		if wrap != nil {
			c = wrap(c)
		}
		return New(c, WithAllocator(mem))
	}
	f.w = New(mc, append([]Option{WithAllocator(mem)}, opts...)...)
	f.create(formatVersion, partitioned, props)
	return f, mc
}
