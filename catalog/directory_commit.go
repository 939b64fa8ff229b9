package catalog

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

var (
	_ Committer           = (*Directory)(nil)
	_ Namespaces          = (*Directory)(nil)
	_ NamespaceProperties = (*Directory)(nil)
	_ Renamer             = (*Directory)(nil)
	_ Registrar           = (*Directory)(nil)
)

// writeIO is the FileIO a Directory writes metadata with: for a local
// warehouse the Local confined to it (whatever reads the tables' files),
// else the warehouse's own FileIO.
func (d *Directory) writeIO() fileio.FileIO {
	if lt, ok := d.tree.(*localTree); ok {
		return lt.fio
	}
	return d.io
}

// CommitTable commits to a table as Iceberg Java's HadoopTableOperations
// does: the current metadata is read afresh (never from the cache), the
// requirements checked and the updates applied to it, and the result
// written as metadata/v{N+1}.metadata.json (v{N+1}.gz.metadata.json when
// write.metadata.compression-codec is gzip) only if no such file exists:
// of two writers racing, one wins and the other gets ErrCommitConflict.
// The version hint is rewritten after; readers follow versions past a
// stale hint, so a hint that fails to be written loses nothing.
func (d *Directory) CommitTable(ctx context.Context, id Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*Table, error) {
	if err := d.writable(id); err != nil {
		return nil, err
	}
	base, err := d.loadFresh(ctx, id)
	if err != nil {
		return nil, err
	}
	n, err := metadataVersionOf(d.tree.base(base.MetadataLocation))
	if err != nil {
		return nil, fmt.Errorf("commit table %s: %w", id, err)
	}
	md, err := ApplyCommit(id, base.Metadata, base.MetadataLocation, reqs, updates)
	if err != nil {
		return nil, err
	}
	if md == base.Metadata {
		return base, nil
	}
	metaDir := d.tree.join(base.Location, "metadata")
	return d.publish(ctx, id, base.Location, metaDir, n+1, md, ErrCommitConflict)
}

// writable refuses commits to a table pinned to one metadata file: what
// it serves is not the table's newest version.
func (d *Directory) writable(id Identifier) error {
	if err := id.Validate(); err != nil {
		return err
	}
	if d.pick.files[id.String()] != "" || d.pick.files[""] != "" {
		return fmt.Errorf("commit table %s: %w: the table is pinned to a metadata file", id, ErrReadOnly)
	}
	return nil
}

// loadFresh reads a table's current metadata, bypassing the cache.
func (d *Directory) loadFresh(ctx context.Context, id Identifier) (*Table, error) {
	return fileio.Await(ctx, func() (*Table, error) {
		folder, rel, metaFile, err := d.locate(ctx, id)
		if err != nil {
			return nil, err
		}
		t, _, err := d.load(ctx, id, folder, rel, metaFile)
		return t, err
	})
}

// metadataVersionOf returns the version of a metadata file name: N of
// vN.metadata.json, or of a NNNNN-<uuid> name written by another catalog.
func metadataVersionOf(name string) (int64, error) {
	v, ok := metadataVersion(name)
	if !ok {
		return 0, fmt.Errorf("metadata file %s has no version number", name)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n >= timeVersions {
		return 0, fmt.Errorf("metadata file %s: version %s cannot be followed by a next one", name, v)
	}
	return n, nil
}

// publish writes md as version n of the table in folder, exclusively (a
// file already there wraps lost, with fileio.ErrExist), then the version
// hint, and returns the table as committed.
func (d *Directory) publish(ctx context.Context, id Identifier, folder, metaDir string, n int64, md *iceberg.TableMetadata, lost error) (*Table, error) {
	name := "v" + strconv.FormatInt(n, 10) + ".metadata.json"
	if MetadataGzip(md) {
		name = "v" + strconv.FormatInt(n, 10) + ".gz.metadata.json"
	}
	loc := d.tree.join(metaDir, name)
	fio := d.writeIO()
	if err := WriteMetadataFile(ctx, fio, loc, md, true); err != nil {
		d.Refresh(id)
		if lostRace(err) {
			return nil, fmt.Errorf("commit table %s: %w: version %d was written first by another writer: %w", id, lost, n, err)
		}
		return nil, fmt.Errorf("commit table %s: %w", id, fileio.Rename(err, loc, "metadata/"+name))
	}
	// The commit is done; the hint only saves readers a search.
	_ = writeFile(ctx, fio, d.tree.join(metaDir, hintNames[0]), []byte(strconv.FormatInt(n, 10)), false)
	d.Refresh(id)
	rel, _ := d.tree.rel(folder)
	c := newConfinement(d, folder, nil)
	rules := d.tableRules(ctx, md.Location, folder)
	return &Table{
		Identifier:       identifierFor(rel),
		MetadataLocation: loc,
		Metadata:         md,
		IO:               c.tableIO(rules),
		Location:         folder,
		rules:            rules,
		confine:          c,
	}, nil
}

// CreateTable creates the table id in its namespace's folder, as Iceberg
// Java's HadoopCatalog lays tables out (<warehouse>/<namespace
// folders>/<table>): md is written as metadata/v1.metadata.json only if no
// such file exists. An md without a location gets the table's folder. A
// table already there wraps ErrTableExists, a namespace with no folder
// ErrNamespaceNotFound.
func (d *Directory) CreateTable(ctx context.Context, id Identifier, md *iceberg.TableMetadata) (*Table, error) {
	if err := d.writable(id); err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("create table %s: no metadata", id)
	}
	return d.create(ctx, "create table", id, md)
}

// create makes the table id in its namespace's folder with md as its
// first version, for CreateTable and RegisterTable.
func (d *Directory) create(ctx context.Context, op string, id Identifier, md *iceberg.TableMetadata) (*Table, error) {
	parent, err := d.namespaceFolder(ctx, id.Namespace())
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, id, err)
	}
	if _, err := d.loadFresh(ctx, id); err == nil {
		return nil, fmt.Errorf("%s %s: %w", op, id, ErrTableExists)
	} else if !errors.Is(err, ErrTableNotFound) {
		return nil, fmt.Errorf("%s %s: %w", op, id, err)
	}
	folder := d.tree.join(parent, id.Name())
	if md.Location == "" {
		cp := *md
		cp.Location = folder
		md = &cp
	}
	metaDir := d.tree.join(folder, "metadata")
	return d.publish(ctx, id, folder, metaDir, 1, md, ErrTableExists)
}

// RegisterTable adds the table id from the metadata file at
// metadataLocation as Iceberg Java's HadoopCatalog does (it keeps
// BaseMetastoreCatalog's registerTable): the file is parsed and written
// as the new table's metadata/v1.metadata.json, exclusively, as
// CreateTable writes a new table. The table is then read as every table of
// a directory warehouse is, in its own folder (see tableRules): the files
// its metadata records below its location must be there, as when a
// dropped table's metadata is registered again over the data it left.
//
// The file must lie below the warehouse or an allowed root
// (ErrOutsideWarehouse), as every file a table reads, and not in another
// table's folder (ErrOtherTable): a copy of a table's metadata under a
// second name would be read in a folder where that table's files are not,
// and would show whoever may read the new name the other table's schema
// and history.
func (d *Directory) RegisterTable(ctx context.Context, id Identifier, metadataLocation string) (*Table, error) {
	if err := d.writable(id); err != nil {
		return nil, err
	}
	if _, ok := fileio.CleanLocation(metadataLocation); !ok {
		return nil, fmt.Errorf("register table %s: metadata file %s: %w: not an absolute location", id, metadataLocation, ErrOutsideWarehouse)
	}
	// An existing name is ErrTableExists before the file is looked at: the
	// file of the table being registered again lies in its own folder,
	// which the confinement below would refuse as another table's.
	if _, err := d.loadFresh(ctx, id); err == nil {
		return nil, fmt.Errorf("register table %s: %w", id, ErrTableExists)
	} else if !errors.Is(err, ErrTableNotFound) {
		return nil, fmt.Errorf("register table %s: %w", id, err)
	}
	noOtherTable := func(Identifier) bool { return false }
	if err := newConfinement(d, "", noOtherTable).check(metadataLocation); err != nil {
		return nil, fmt.Errorf("register table %s: metadata file %s: %w", id, metadataLocation, err)
	}
	md, _, err := ReadMetadata(ctx, d.io, metadataLocation, d.maxMetadata)
	if err != nil {
		return nil, fmt.Errorf("register table %s: %w", id, err)
	}
	return d.create(ctx, "register table", id, md)
}

// RenameTable refuses, wrapping ErrUnsupported: a directory warehouse
// names a table by its folder, which no storage but a local disk can move
// in one step, and Iceberg Java's HadoopCatalog cannot rename either.
func (d *Directory) RenameTable(ctx context.Context, from, to Identifier) error {
	for _, id := range []Identifier{from, to} {
		if err := id.Validate(); err != nil {
			return err
		}
	}
	return fmt.Errorf("rename table %s to %s: %w: a directory warehouse names a table by its folder", from, to, ErrUnsupported)
}

// DropTable removes the table id from the warehouse. Without purge its
// metadata files (every vN and NNNNN-<uuid> metadata file and the version
// hints) are deleted, so the folder is no table any more, and its data and
// manifests stay; with purge everything below the table's folder is
// deleted. Files a table keeps outside its folder are left alone.
func (d *Directory) DropTable(ctx context.Context, id Identifier, purge bool) error {
	if err := d.writable(id); err != nil {
		return err
	}
	_, err := fileio.Await(ctx, func() (struct{}, error) {
		folder, _, _, err := d.locate(ctx, id)
		if err != nil {
			return struct{}{}, err
		}
		if purge {
			return struct{}{}, d.removeTree(ctx, folder)
		}
		metaDir := d.tree.join(folder, "metadata")
		entries, err := listAll(ctx, d.tree, metaDir)
		if err != nil {
			return struct{}{}, err
		}
		fio := d.writeIO()
		for _, e := range entries {
			_, isMeta := metadataVersion(e.Name)
			if e.IsDir || !isMeta && !isHintName(e.Name) {
				continue
			}
			if err := fileio.Remove(ctx, fio, d.tree.join(metaDir, e.Name)); err != nil && !errors.Is(err, fileio.ErrNotFound) {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	d.Refresh(id)
	if err != nil {
		return fmt.Errorf("drop table %s: %w", id, err)
	}
	return nil
}

func isHintName(name string) bool {
	for _, h := range hintNames {
		if name == h {
			return true
		}
	}
	return false
}

// removeTree deletes everything below the folder dir, then dir itself
// where folders exist (a local disk); symlinks are removed, not followed.
func (d *Directory) removeTree(ctx context.Context, dir string) error {
	entries, err := listAll(ctx, d.tree, dir)
	if err != nil {
		return err
	}
	fio := d.writeIO()
	for _, e := range entries {
		p := d.tree.join(dir, e.Name)
		if e.IsDir {
			if err := d.removeTree(ctx, p); err != nil {
				return err
			}
			continue
		}
		if err := fileio.Remove(ctx, fio, p); err != nil && !errors.Is(err, fileio.ErrNotFound) {
			return err
		}
	}
	if d.local {
		if err := fileio.Remove(ctx, fio, dir); err != nil && !errors.Is(err, fileio.ErrNotFound) {
			return err
		}
	}
	return nil
}

// namespaceFolder returns the folder of the namespace ns: each part a
// folder named as the part or, Hive style, part.db. The warehouse itself
// is the empty namespace.
func (d *Directory) namespaceFolder(ctx context.Context, ns []string) (string, error) {
	cur := d.root
	for i, part := range ns {
		if err := (Identifier{part}).Validate(); err != nil {
			return "", err
		}
		entries, err := listAll(ctx, d.tree, cur)
		if err != nil {
			return "", err
		}
		next := ""
		for _, want := range []string{part, part + ".db"} {
			for _, e := range entries {
				if e.IsDir && e.Name == want {
					next = d.tree.join(cur, want)
					break
				}
			}
			if next != "" {
				break
			}
		}
		if next == "" {
			return "", fmt.Errorf("%w: %s", ErrNamespaceNotFound, strings.Join(ns[:i+1], "."))
		}
		if is, err := d.isTable(ctx, next); err != nil {
			return "", err
		} else if is {
			return "", fmt.Errorf("%w: %s is a table", ErrNamespaceNotFound, strings.Join(ns[:i+1], "."))
		}
		cur = next
	}
	return cur, nil
}
