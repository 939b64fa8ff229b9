package pointer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// CommitTable commits to a table as Iceberg Java's metastore catalogs
// (BaseMetastoreTableOperations) do: the table's pointer is read afresh,
// the requirements checked and the updates applied to the metadata it
// names, the result written to <location>/metadata/NNNNN-<uuid>.metadata.json
// (.gz.metadata.json when write.metadata.compression-codec is gzip), and
// the pointer swapped to it only if it still names the metadata the commit
// started from. A swap lost wraps catalog.ErrCommitConflict and the new file
// is removed; an unknown outcome wraps catalog.ErrCommitStateUnknown and
// the file is kept, since it may be the table now.
func (c *Catalog) CommitTable(ctx context.Context, id catalog.Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*catalog.Table, error) {
	op := "commit table " + id.String()
	if err := c.writable(op); err != nil {
		return nil, err
	}
	if err := id.Validate(); err != nil {
		return nil, err
	}
	defer c.Refresh(id)
	baseLoc, err := c.store.Locate(ctx, id)
	if err != nil {
		return nil, c.fail(op, err)
	}
	base, _, err := catalog.ReadMetadata(ctx, c.io, baseLoc, c.maxMetadata)
	if err != nil {
		return nil, c.fail(op, err)
	}
	md, err := catalog.ApplyCommit(id, base, baseLoc, reqs, updates)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", c.name, err)
	}
	if md == base {
		return c.table(id, baseLoc, base), nil
	}
	loc := newMetadataLocation(md, nextVersion(baseLoc))
	if err := catalog.WriteMetadataFile(ctx, c.io, loc, md, false); err != nil {
		return nil, c.fail(op, err)
	}
	if err := c.store.Swap(ctx, id, baseLoc, loc, md); err != nil {
		if !errors.Is(err, catalog.ErrCommitStateUnknown) {
			c.removeQuietly(loc)
		}
		return nil, c.fail(op, err)
	}
	return c.table(id, loc, md), nil
}

// CreateTable creates the table id with md as its first metadata
// (<location>/metadata/00000-<uuid>.metadata.json) and points the store's
// new entry at it. A table already there wraps catalog.ErrTableExists; a
// namespace that does not exist, catalog.ErrNamespaceNotFound. An md
// without a location is put at DefaultLocation.
func (c *Catalog) CreateTable(ctx context.Context, id catalog.Identifier, md *iceberg.TableMetadata) (*catalog.Table, error) {
	op := "create table " + id.String()
	if err := c.writable(op); err != nil {
		return nil, err
	}
	if err := id.Validate(); err != nil {
		return nil, err
	}
	if md == nil {
		return nil, c.fail(op, errors.New("no metadata"))
	}
	defer c.Refresh(id)
	if err := c.absent(ctx, op, id); err != nil {
		return nil, err
	}
	if md.Location == "" {
		loc, err := c.DefaultLocation(ctx, id)
		if err != nil {
			return nil, err
		}
		cp := *md
		cp.Location = loc
		md = &cp
	}
	loc := newMetadataLocation(md, 0)
	if err := catalog.WriteMetadataFile(ctx, c.io, loc, md, false); err != nil {
		return nil, c.fail(op, err)
	}
	if err := c.store.Insert(ctx, id, loc, md); err != nil {
		if !errors.Is(err, catalog.ErrCommitStateUnknown) {
			c.removeQuietly(loc)
		}
		return nil, c.fail(op, err)
	}
	return c.table(id, loc, md), nil
}

// RegisterTable adds the table id whose current metadata is the file at
// metadataLocation, as Iceberg Java's BaseMetastoreCatalog.registerTable
// does: the file is read and must parse as table metadata, and the store
// gets an entry pointing at it; no file is written. A table of that name
// wraps catalog.ErrTableExists, a namespace that does not exist
// catalog.ErrNamespaceNotFound.
func (c *Catalog) RegisterTable(ctx context.Context, id catalog.Identifier, metadataLocation string) (*catalog.Table, error) {
	op := "register table " + id.String()
	if err := c.writable(op); err != nil {
		return nil, err
	}
	if err := id.Validate(); err != nil {
		return nil, err
	}
	defer c.Refresh(id)
	if err := c.absent(ctx, op, id); err != nil {
		return nil, err
	}
	md, _, err := catalog.ReadMetadata(ctx, c.io, metadataLocation, c.maxMetadata)
	if err != nil {
		return nil, c.fail(op, err)
	}
	if err := c.store.Insert(ctx, id, metadataLocation, md); err != nil {
		return nil, c.fail(op, err)
	}
	t := c.table(id, metadataLocation, md)
	// Registered away from where it was written, a table records its old
	// location: it is read beside its metadata file, as LoadTable reads it.
	catalog.Relocate(ctx, t)
	return t, nil
}

// absent checks that id names no table yet, before any file is written
// for it: the store's Insert refuses a duplicate too, but only after.
func (c *Catalog) absent(ctx context.Context, op string, id catalog.Identifier) error {
	_, err := c.store.Locate(ctx, id)
	switch {
	case err == nil:
		return c.fail(op, catalog.ErrTableExists)
	case errors.Is(err, catalog.ErrTableNotFound):
		return nil
	default:
		return c.fail(op, err)
	}
}

// DropTable removes the table's entry from the store; with purge, also
// the files its metadata reaches (catalog.PurgeFiles), found before the
// entry goes so that a table whose files cannot all be found is not
// dropped. No folder is listed: after a rename, another table may own the
// same location.
func (c *Catalog) DropTable(ctx context.Context, id catalog.Identifier, purge bool) error {
	op := "drop table " + id.String()
	if err := c.writable(op); err != nil {
		return err
	}
	if err := id.Validate(); err != nil {
		return err
	}
	defer c.Refresh(id)
	loc, err := c.store.Locate(ctx, id)
	if err != nil {
		return c.fail(op, err)
	}
	var files catalog.TableFiles
	if purge {
		md, _, err := catalog.ReadMetadata(ctx, c.io, loc, c.maxMetadata)
		if err != nil {
			return c.fail(op, err)
		}
		if files, err = catalog.PurgeFiles(ctx, c.io, md, loc); err != nil {
			return c.fail(op, err)
		}
	}
	if err := c.store.Delete(ctx, id); err != nil {
		return c.fail(op, err)
	}
	if purge {
		if err := catalog.RemoveFiles(ctx, c.io, files); err != nil {
			return c.fail(op, err)
		}
	}
	return nil
}

// RenameTable gives the table from the name to, as the store renames it;
// the table keeps its files and metadata. Renaming a table to its own
// name changes nothing.
func (c *Catalog) RenameTable(ctx context.Context, from, to catalog.Identifier) error {
	op := "rename table " + from.String() + " to " + to.String()
	if err := c.writable(op); err != nil {
		return err
	}
	for _, id := range []catalog.Identifier{from, to} {
		if err := id.Validate(); err != nil {
			return err
		}
	}
	defer c.Refresh(from)
	defer c.Refresh(to)
	if slices.Equal(from, to) {
		// Nothing to move, but from must name a table.
		if _, err := c.store.Locate(ctx, from); err != nil {
			return c.fail(op, err)
		}
		return nil
	}
	if err := c.store.Rename(ctx, from, to); err != nil {
		return c.fail(op, err)
	}
	return nil
}

// DefaultLocation returns where CreateTable puts a table whose metadata
// names no location: where the store says (a database's location), else
// <warehouse>/<namespace>.db/<table> as PyIceberg and Iceberg Java put it,
// or <warehouse>/<table> for a table outside any namespace.
func (c *Catalog) DefaultLocation(ctx context.Context, id catalog.Identifier) (string, error) {
	if err := id.Validate(); err != nil {
		return "", err
	}
	op := "location of table " + id.String()
	loc, err := c.store.TableLocation(ctx, id)
	if err != nil {
		return "", c.fail(op, err)
	}
	if loc != "" {
		return strings.TrimRight(loc, "/"), nil
	}
	if c.warehouse == "" {
		return "", c.fail(op, fmt.Errorf("no %q property to put it in", PropWarehouse))
	}
	namespace := strings.Join(id.Namespace(), ".")
	if namespace == "" {
		return c.warehouse + "/" + id.Name(), nil
	}
	return c.warehouse + "/" + namespace + ".db/" + id.Name(), nil
}

// removeQuietly deletes a metadata file no commit published; a failure
// leaves an orphan file, which is harmless.
func (c *Catalog) removeQuietly(loc string) {
	_ = fileio.Remove(context.WithoutCancel(context.Background()), c.io, loc)
}
