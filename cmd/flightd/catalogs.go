package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/catalogs"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/storage"
	"github.com/iceflight/iceflight/reader"
)

// tables is what a process serves tables from and reads their files with.
type tables struct {
	// catalog finds the tables; nil for a worker, which only redeems
	// tickets.
	catalog catalog.Catalog
	// tables counts the tables found at start-up.
	tables int
	// reader reads the files of tickets that name no storage profile
	// (--warehouse's tables).
	reader *reader.Reader
	// profiles read the files of each configured catalog's tables, by
	// catalog name, with that catalog's storage properties.
	profiles map[string]*reader.Reader
	// storage builds the FileIO of a ticket's sealed storage properties
	// (credentials a REST catalog vended for its table).
	storage *storage.Registry
}

// startupListTimeout bounds the listing of the mounted catalogs at
// start-up, which counts their tables; a catalog that has not answered by
// then is logged as failed and served all the same.
const startupListTimeout = 10 * time.Second

// readerStats sums the running totals of every reader of the process.
func (t *tables) readerStats() reader.Stats {
	st := t.reader.Stats()
	for _, r := range t.profiles {
		st = st.Add(r.Stats())
	}
	return st
}

// openTables builds the storage registry once and hands it to the
// catalogs and the readers alike: --warehouse's directory, or every
// catalog of the configuration mounted under its name. A worker opens no
// catalog but builds the same storage profiles, so that it reads a
// ticket's files as the coordinator that planned it would.
func openTables(ctx context.Context, cfg serveConfig, role engine.Role, log *slog.Logger, rdOpts []reader.Option) (*tables, error) {
	reg, err := storageRegistry(cfg)
	if err != nil {
		return nil, err
	}
	plain, err := reg.ForProperties(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := &tables{reader: reader.New(plain, rdOpts...), profiles: map[string]*reader.Reader{}, storage: reg}
	for _, name := range slices.Sorted(maps.Keys(cfg.catalogs)) {
		fio, err := reg.ForProperties(ctx, cfg.catalogs[name])
		if err != nil {
			return nil, fmt.Errorf("catalog %s: %w", name, err)
		}
		out.profiles[name] = reader.New(fio, rdOpts...)
	}
	if role == engine.RoleWorker {
		return out, nil
	}
	env := catalogs.Env{Storage: reg, RefreshInterval: cfg.refresh, MaxMetadataBytes: cfg.maxMetadata,
		MetadataCacheBytes: cfg.metaCacheBytes, AllowedRoots: cfg.allowRoots}
	if len(cfg.catalogs) > 0 {
		mounted, err := catalogs.Mount(ctx, cfg.catalogs, env)
		if err != nil {
			return nil, err
		}
		// The count is only for the start-up line: a catalog that hangs
		// (a REST server that never answers) must not hold the start for
		// its whole request timeout.
		lctx, cancel := context.WithTimeout(ctx, startupListTimeout)
		ids, err := mounted.ListTables(lctx)
		cancel()
		if err != nil {
			// One catalog down keeps none of the others from serving; it
			// is tried again by every call.
			log.Warn("a catalog could not list its tables at start-up; serving the others", "err", err)
		}
		out.catalog, out.tables = mounted, len(ids)
		return out, nil
	}
	dir, err := catalog.NewDirectory(cfg.warehouse, catalog.WithFileIO(plain), catalog.WithRefreshInterval(cfg.refresh),
		catalog.WithMaxMetadataBytes(cfg.maxMetadata), catalog.WithMetadataCacheBytes(cfg.metaCacheBytes),
		catalog.WithAllowedRoots(cfg.allowRoots...))
	if err != nil {
		return nil, fmt.Errorf("warehouse: %w", err)
	}
	ids, err := dir.ListTables(ctx)
	if err != nil {
		return nil, fmt.Errorf("warehouse: %w", err)
	}
	if len(ids) == 0 {
		// Not an error (tables may be written later), but most often a
		// wrong path: say so before the first call finds nothing.
		log.Warn("the warehouse holds no table: no folder below it has a metadata/ folder", "warehouse", cfg.warehouse)
	}
	out.catalog, out.tables = dir, len(ids)
	return out, nil
}

// storageRegistry builds the registry of storage profiles, whose local
// file system reads only below the local folders the configuration names:
// --warehouse, --allow-root and every local directory or SQL catalog's
// warehouse. The coordinator checked every path of a ticket against the
// table's roots and the caller's grants before signing it, and a client
// cannot change a path without breaking the signature, so a worker may
// trust them; it has no catalog to tell one table's folder from another's
// anyway. Given the roots it confines its reads to them all the same, so
// that a symlink swapped in after the plan, or a leaked ticket key,
// reaches nothing outside them; --role all always has them.
func storageRegistry(cfg serveConfig) (*storage.Registry, error) {
	roots := append([]string(nil), cfg.allowRoots...)
	if cfg.warehouse != "" {
		roots = append(roots, cfg.warehouse)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.catalogs)) {
		props := cfg.catalogs[name]
		wh := props.Get("warehouse")
		// A REST catalog's warehouse is a name the server knows, not a path.
		if kind := strings.ToLower(props.Get("type")); kind != "directory" && kind != "sql" || wh == "" {
			continue
		}
		if s := fileio.Scheme(wh); s != "" && s != "file" {
			continue
		}
		p, err := fileio.LocalPath(wh)
		if err != nil {
			return nil, usageError{fmt.Sprintf("catalog %s: warehouse: %v", name, err)}
		}
		roots = append(roots, p)
	}
	if len(roots) == 0 {
		return storage.New(), nil
	}
	local, err := fileio.NewLocalWithin(roots...)
	if err != nil {
		return nil, usageError{"--allow-root: " + err.Error()}
	}
	return storage.New(storage.WithLocal(local)), nil
}

// source says where a process serves tables from, for its start-up line:
// the warehouse, or the configured catalogs by name (never their
// properties, which may hold secrets).
func (c *serveConfig) source() string {
	if len(c.catalogs) == 0 {
		return c.warehouse
	}
	return "catalogs " + strings.Join(slices.Sorted(maps.Keys(c.catalogs)), ", ")
}
