package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/iceflight/iceflight/fileio"
)

// maxIdentifierParts bounds the folder search of one LoadTable.
const maxIdentifierParts = 32

// Directory is a Catalog over a warehouse folder, Hadoop style: every folder
// below the root that has a metadata/ subfolder holding metadata files is a
// table. The warehouse is a local folder (NewDirectory) or a location on any
// storage a FileIO lists and reads, such as s3://bucket/wh
// (NewDirectoryAt); the naming and version rules are the same. A table is named by its path below the root joined with ".", where a
// namespace folder "x.db" reads as "x" (Hive style: root/sales.db/orders is
// sales.orders). Folders inside a table and hidden folders (".x") are never
// searched for tables. A Directory is safe for concurrent use.
type Directory struct {
	root  string // local: absolute, symlinks resolved; else the cleaned URI
	local bool   // root is a local folder
	tree  tree   // how the warehouse is walked
	roots []extraRoot
	io    fileio.FileIO
	rules []fileio.Rule
	pick  selection

	allowed []string // WithAllowedRoots, until NewDirectory resolves them

	refresh     time.Duration
	maxMetadata int64
	cacheBytes  int64
	cache       *tableCache
}

// DefaultRefreshInterval is how long a table's metadata is served from the
// cache before the current metadata file is looked up again.
const DefaultRefreshInterval = 5 * time.Second

var _ Catalog = (*Directory)(nil)

// Option configures a Directory made by NewDirectory.
type Option func(*Directory)

// WithFileIO sets the FileIO that reads metadata files and, through each
// table's remapping, everything else. It must open local paths. The default
// is a local file system confined to the root and the allowed roots; files
// outside them are refused whatever FileIO reads them. Either is made
// fileio.Cancelable.
func WithFileIO(io fileio.FileIO) Option { return func(d *Directory) { d.io = io } }

// WithRules adds remapping rules to every table, ahead of the rules the
// directory derives itself, for files that live beyond the warehouse.
func WithRules(rules ...fileio.Rule) Option {
	return func(d *Directory) { d.rules = append(d.rules, rules...) }
}

// WithAllowedRoots lets tables read files below the folders dirs too, for
// tables whose data lies beyond the warehouse (write.data.path elsewhere,
// or a rule of WithRules leading there). Without it a table reads only
// below the warehouse root: any other file its metadata names is refused
// with ErrOutsideWarehouse.
func WithAllowedRoots(dirs ...string) Option {
	return func(d *Directory) { d.allowed = append(d.allowed, dirs...) }
}

// extraRoot is a folder of WithAllowedRoots, as given and as resolved
// (on an object store: both the cleaned URI).
type extraRoot struct{ given, real string }

// WithRefreshInterval sets how long parsed metadata is served before the
// current metadata file is looked up again; 0 looks it up on every load.
func WithRefreshInterval(d time.Duration) Option {
	return func(dir *Directory) { dir.refresh = max(d, 0) }
}

// WithMaxMetadataBytes bounds the metadata file a table may have, after
// decompression: a larger one fails to load with an error wrapping
// fileio.ErrTooLarge, as reading it would exhaust memory; 0 or less sets
// no bound. The default is DefaultMaxMetadataBytes.
func WithMaxMetadataBytes(n int64) Option { return func(d *Directory) { d.maxMetadata = n } }

// WithMetadataCacheBytes bounds the parsed metadata kept between loads, by
// the size of the metadata files it came from; the least recently used
// tables are dropped first. 0 keeps none. The default is
// DefaultMetadataCacheBytes.
func WithMetadataCacheBytes(n int64) Option {
	return func(d *Directory) { d.cacheBytes = max(n, 0) }
}

// NewDirectory returns a Catalog over the local warehouse folder root.
func NewDirectory(root string, opts ...Option) (*Directory, error) {
	abs := root
	if !filepath.IsAbs(root) {
		// Join by hand, not filepath.Abs: a lexical clean of "ln/../x"
		// would disagree with the kernel when ln is a symlink.
		cwd, err := os.Getwd()
		if err == nil {
			cwd, err = filepath.EvalSymlinks(cwd)
		}
		if err != nil {
			return nil, fmt.Errorf("warehouse %s: %w", root, err)
		}
		abs = cwd + string(filepath.Separator) + root
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("warehouse %s: %w", root, err)
	}
	if st, err := os.Stat(real); err != nil {
		return nil, fmt.Errorf("warehouse %s: %w", root, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("warehouse %s: not a folder", root)
	}
	d := &Directory{root: real, refresh: DefaultRefreshInterval, maxMetadata: DefaultMaxMetadataBytes, cacheBytes: DefaultMetadataCacheBytes}
	for _, opt := range opts {
		opt(d)
	}
	d.cache = newTableCache(d.cacheBytes)
	dirs := []string{real}
	for _, r := range d.allowed {
		given, err := filepath.Abs(r)
		if err == nil {
			var st os.FileInfo
			if st, err = os.Stat(given); err == nil && !st.IsDir() {
				err = errors.New("not a folder")
			}
		}
		if err != nil {
			return nil, fmt.Errorf("allowed root %s: %w", r, err)
		}
		real, err := filepath.EvalSymlinks(given)
		if err != nil {
			return nil, fmt.Errorf("allowed root %s: %w", r, err)
		}
		d.roots = append(d.roots, extraRoot{given: given, real: real})
		dirs = append(dirs, real)
	}
	// The warehouse is walked through a Local confined to it, whatever
	// FileIO reads the tables' files: nothing outside is ever listed.
	local, err := fileio.NewLocalWithin(dirs...)
	if err != nil {
		return nil, fmt.Errorf("warehouse %s: %w", root, err)
	}
	d.local, d.tree = true, &localTree{root: real, fio: local}
	if d.io == nil {
		d.io = fileio.NewResolver(fileio.WithScheme("", local), fileio.WithScheme("file", local))
	}
	// No call may be held by storage that hangs (see fileio.Cancelable).
	d.io = fileio.Cancelable(d.io)
	return d, nil
}

// NewDirectoryAt returns a Catalog over the warehouse at location, a local
// folder (a bare path or a file URI, as for NewDirectory) or a URI of any
// storage that fio lists and reads ("s3://bucket/wh", "gs://b/wh",
// "abfss://c@account.dfs.core.windows.net/wh", "hdfs://nn:8020/wh"). fio
// reads the tables' files too; for a local folder it is as WithFileIO,
// and nil reads with the local file system. On other storage a table
// reads only below location and the allowed roots (given as URIs), which
// are compared as cleaned URIs: there are no symlinks to lead elsewhere.
// It does no I/O for a remote warehouse: the first listing reports a
// store that is down.
func NewDirectoryAt(location string, fio fileio.FileIO, opts ...Option) (*Directory, error) {
	if s := fileio.Scheme(location); s == "" || s == "file" {
		p, err := fileio.LocalPath(location)
		if err != nil {
			return nil, fmt.Errorf("warehouse %s: %w", location, err)
		}
		if fio != nil {
			opts = append([]Option{WithFileIO(fio)}, opts...)
		}
		return NewDirectory(p, opts...)
	}
	root, ok := fileio.CleanLocation(location)
	if !ok {
		return nil, fmt.Errorf("warehouse %s: not an absolute location", location)
	}
	if fio == nil {
		return nil, fmt.Errorf("warehouse %s: no FileIO for its storage", location)
	}
	d := &Directory{root: root, refresh: DefaultRefreshInterval, maxMetadata: DefaultMaxMetadataBytes, cacheBytes: DefaultMetadataCacheBytes}
	for _, opt := range opts {
		opt(d)
	}
	d.cache = newTableCache(d.cacheBytes)
	for _, r := range d.allowed {
		clean, ok := fileio.CleanLocation(r)
		if !ok {
			return nil, fmt.Errorf("allowed root %s: not an absolute location", r)
		}
		d.roots = append(d.roots, extraRoot{given: clean, real: clean})
	}
	// The warehouse's own FileIO, not one given by WithFileIO, walks it.
	d.io = fileio.Cancelable(fio)
	d.tree = &objectTree{root: root, fio: d.io}
	return d, nil
}

// Root returns the warehouse: a local folder, absolute and with symlinks
// resolved, or the warehouse URI, cleaned.
func (d *Directory) Root() string { return d.root }

// ListTables returns every table below the root, sorted by name. Folders
// that cannot be read are skipped; symlinked folders are not followed. A
// walk held by a hung mount is abandoned when ctx ends.
func (d *Directory) ListTables(ctx context.Context) ([]Identifier, error) {
	return fileio.Await(ctx, func() ([]Identifier, error) { return d.listTables(ctx) })
}

func (d *Directory) listTables(ctx context.Context) ([]Identifier, error) {
	seen := map[string]bool{}
	var ids []Identifier
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := listAll(ctx, d.tree, dir)
		if err != nil {
			if dir == d.root {
				return err
			}
			return nil // unreadable folder: skip it
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return err
			}
			// Listings show symlinks as no folders, so they are not
			// followed; hidden folders are not searched.
			if !e.IsDir || strings.HasPrefix(e.Name, ".") {
				continue
			}
			p := d.tree.join(dir, e.Name)
			is, err := d.isTable(ctx, p)
			if err != nil {
				return err
			}
			if !is {
				if err := walk(p); err != nil {
					return err
				}
				continue
			}
			rel, ok := d.tree.rel(p)
			if !ok {
				continue
			}
			id := identifierFor(rel)
			if id.Validate() == nil && !seen[id.String()] {
				seen[id.String()] = true
				ids = append(ids, id)
			}
			// A table holds no tables: its folder is not searched.
		}
		return nil
	}
	if err := walk(d.root); err != nil {
		return nil, fmt.Errorf("list tables in %s: %w", d.root, err)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].String() < ids[j].String() })
	return ids, nil
}

// LoadTable returns the current metadata of the table id names, with a
// FileIO that maps the writer's recorded paths into the table's folder (see
// tableRules). Nothing outside the root is read through a table name: every
// folder on the way is checked after resolving symlinks.
//
// Parsed tables are cached: within the refresh interval a table is served
// from the cache; after it, the current metadata file is looked up again
// (a directory listing, no parse) and the table parsed anew only when that
// file changed.
func (d *Directory) LoadTable(ctx context.Context, id Identifier) (*Table, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load table %s: %w", id, err)
	}
	key := id.String()
	now := time.Now()
	cached := d.cache.get(key)
	if cached != nil && now.Sub(cached.checked) < d.refresh {
		return cached.table, nil
	}
	// The folder search stats and lists folders, which on a hung mount
	// never return: the call gives up when its context ends.
	next, err := fileio.Await(ctx, func() (*cachedTable, error) {
		folder, rel, metaFile, err := d.locate(ctx, id)
		if err != nil {
			return nil, err
		}
		stamp, err := d.tree.stamp(ctx, metaFile)
		if err != nil {
			// Gone since it was found is NotFound, any other failure the
			// storage's; the cause is not shown, as it may name the
			// server's path.
			cause := fileio.ErrUnavailable
			if errors.Is(err, fileio.ErrNotFound) {
				cause = fileio.ErrNotFound
			}
			return nil, fmt.Errorf("table %s: metadata file %s: %w", id, d.shown(folder, metaFile), cause)
		}
		// The file's name is not its identity: a table folder replaced by
		// another table's (or a file rewritten in place) keeps the name.
		next := &cachedTable{checked: now, stamp: stamp}
		if cached != nil && cached.table.MetadataLocation == metaFile && cached.stamp == next.stamp {
			next.table, next.bytes = cached.table, cached.bytes
		} else if next.table, next.bytes, err = d.load(ctx, id, folder, rel, metaFile); err != nil {
			return nil, err
		}
		return next, nil
	})
	if err != nil && err == ctx.Err() { // abandoned: name the table
		return nil, fmt.Errorf("load table %s: %w", id, err)
	} else if err != nil {
		return nil, err
	}
	d.cache.put(key, next)
	return next.table, nil
}

// Refresh drops cached metadata so the next LoadTable looks for the
// current metadata file at once: of one table, or of all when id is nil.
func (d *Directory) Refresh(id Identifier) {
	if id == nil {
		d.cache.clear()
		return
	}
	d.cache.drop(id.String())
}

// locate finds a table's folder and current metadata file.
func (d *Directory) locate(ctx context.Context, id Identifier) (folder, rel, metaFile string, err error) {
	var parts []string
	for _, p := range id {
		parts = append(parts, strings.Split(p, ".")...)
	}
	if len(parts) > maxIdentifierParts {
		return "", "", "", fmt.Errorf("%w %q: more than %d parts", ErrInvalidIdentifier, id.String(), maxIdentifierParts)
	}
	folder, rel, ok, err := d.find(ctx, d.root, "", parts)
	if err != nil {
		return "", "", "", fmt.Errorf("table %s: %w", id, err)
	}
	if !ok {
		// The search takes a folder it cannot read for one that is not a
		// table; storage that fails (down, refusing the credentials, a
		// missing bucket) must say so, not that the table is missing.
		if err := d.tree.scan(ctx, d.root, func(string, bool) bool { return false }); err != nil {
			return "", "", "", fmt.Errorf("table %s: list the warehouse: %w", id, err)
		}
		return "", "", "", fmt.Errorf("table %s: %w", id, ErrTableNotFound)
	}
	metaDir, ok := d.tree.inside(d.tree.join(folder, "metadata"))
	if !ok {
		return "", "", "", fmt.Errorf("table %s: %w", id, ErrTableNotFound)
	}
	metaFile, err = d.pick.current(ctx, d, identifierFor(rel).String(), folder, metaDir)
	if errors.Is(err, errNoMetadata) {
		return "", "", "", fmt.Errorf("table %s: %w: %v", id, ErrTableNotFound, err)
	} else if err != nil {
		return "", "", "", fmt.Errorf("table %s: %w", id, err)
	}
	return folder, rel, metaFile, nil
}

// shown names the file p of the table in folder by its place in the table
// ("metadata/v3.metadata.json"), never by the server's path.
func (d *Directory) shown(folder, p string) string {
	if d.local {
		if rel, err := filepath.Rel(folder, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
		return "metadata/" + filepath.Base(p)
	}
	if rest, ok := strings.CutPrefix(p, folder+"/"); ok {
		return rest
	}
	return p
}

// load reads and parses a table's metadata file, and returns the bytes
// of text the parse came from. Errors name the file by its place in the
// table ("metadata/v3.metadata.json"), not by the server's path.
func (d *Directory) load(ctx context.Context, id Identifier, folder, rel, metaFile string) (*Table, int64, error) {
	md, n, err := ReadMetadata(ctx, d.io, metaFile, d.maxMetadata)
	if err != nil {
		return nil, 0, fmt.Errorf("table %s: %w", id, fileio.Rename(err, metaFile, d.shown(folder, metaFile)))
	}
	c := newConfinement(d, folder, nil)
	rules := d.tableRules(ctx, md.Location, folder)
	return &Table{
		Identifier:       identifierFor(rel),
		MetadataLocation: metaFile,
		Metadata:         md,
		IO:               c.tableIO(rules),
		Location:         folder,
		rules:            rules,
		confine:          c,
	}, n, nil
}

// tableRules returns the remapping rules of a table found in folder whose
// metadata records location: the user's rules, then those that map the
// recorded location and its sibling roots into folder (folderRules).
func (d *Directory) tableRules(ctx context.Context, location, folder string) []fileio.Rule {
	rules := append([]fileio.Rule(nil), d.rules...)
	if location == "" {
		return rules
	}
	list := func(ctx context.Context, dir string) ([]fileio.Entry, error) { return listAll(ctx, d.tree, dir) }
	return append(rules, folderRules(ctx, location, folder, d.tree.join, list)...)
}

// find looks below dir for the table named by parts, where each folder on
// the way may join several parts with "." ("a.b" is one folder or two) and a
// namespace folder may carry the ".db" suffix. The literal folder name is
// tried before its ".db" form, and fewer parts per folder before more. It
// returns the real folder and its path relative to the root, with "/"
// between segments; storage that fails on the way ends the search with
// its error.
func (d *Directory) find(ctx context.Context, dir, rel string, parts []string) (string, string, bool, error) {
	for j := 1; j <= len(parts); j++ {
		name := strings.Join(parts[:j], ".")
		if j == len(parts) {
			real, ok := d.tree.inside(d.tree.join(dir, name))
			if !ok {
				continue
			}
			is, err := d.isTable(ctx, real)
			if err != nil || is {
				return real, path.Join(rel, name), is, err
			}
			continue
		}
		for _, ns := range []string{name, name + ".db"} {
			real, ok := d.tree.inside(d.tree.join(dir, ns))
			if !ok {
				continue
			}
			is, err := d.isTable(ctx, real)
			if err != nil {
				return "", "", false, err
			}
			if is || !d.tree.maybeFolder(ctx, real) {
				continue
			}
			if f, r, ok, err := d.find(ctx, real, path.Join(rel, ns), parts[j:]); ok || err != nil {
				return f, r, ok, err
			}
		}
	}
	return "", "", false, nil
}

// isTable reports whether folder has a metadata/ subfolder, within the
// root, that holds metadata files.
func (d *Directory) isTable(ctx context.Context, folder string) (bool, error) {
	meta, ok := d.tree.inside(d.tree.join(folder, "metadata"))
	if !ok {
		return false, nil
	}
	return hasMetadata(ctx, d.tree, meta)
}

// identifierFor names the table at rel, a path below the root: its folders
// joined, with the ".db" suffix dropped from namespace folders.
func identifierFor(rel string) Identifier {
	parts := strings.Split(rel, "/")
	for i := 0; i < len(parts)-1; i++ {
		if ns := strings.TrimSuffix(parts[i], ".db"); ns != "" {
			parts[i] = ns
		}
	}
	return Identifier(parts)
}

// parentLocation returns the folder that holds location, keeping any
// scheme and authority ("hdfs://nn/wh/t" → "hdfs://nn/wh"). A relative
// location has a relative parent ("wh/t" → "wh", "t" → "."), and a Windows
// one a Windows parent with forward slashes ("C:\wh\t" → "C:/wh").
func parentLocation(location string) (string, bool) {
	prefix, p := "", location
	if fileio.IsWindowsPath(location) {
		p = path.Clean(strings.ReplaceAll(location, `\`, "/"))
		if !strings.Contains(p, "/") {
			return "", false
		}
		return path.Dir(p), true
	}
	if s := fileio.Scheme(location); s != "" {
		rest := location[len(s)+1:]
		if strings.HasPrefix(rest, "//") {
			authority, after, _ := strings.Cut(rest[2:], "/")
			prefix, p = location[:len(s)+3+len(authority)], "/"+after
		} else {
			prefix, p = location[:len(s)+1], rest
		}
	}
	p = path.Clean(p)
	if prefix == "" && !strings.HasPrefix(p, "/") {
		// Relative to the writer's working directory, as the table is.
		if p == "." || path.Base(p) == ".." {
			return "", false
		}
		return path.Dir(p), true
	}
	if p == "/" || p == "." || !strings.HasPrefix(p, "/") {
		return "", false
	}
	return prefix + path.Dir(p), true
}
