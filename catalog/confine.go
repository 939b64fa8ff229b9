package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/iceflight/iceflight/fileio"
)

// Access reports whether the caller of a plan may read the table id names;
// nil lets every table be read.
type Access func(id Identifier) bool

// confinement decides which files one table may read: only below the
// warehouse root or an extra root the operator allowed, after symlinks are
// resolved, and inside another table's folder only when access lets the
// caller read that table. Table metadata is written by whoever may write
// the table, not by the server's operator, so no path it records is taken
// on trust.
type confinement struct {
	dir    *Directory
	folder string // the table's own folder, real
	access Access

	// Files of a table share few folders, so what a file's folder resolves
	// to is worked out once per folder, and which of its files are
	// symlinks is read from one listing of it once a plan checks more than
	// a few of them: a plan of 100,000 files then costs a listing a folder,
	// not an lstat(2) a file.
	mu       sync.Mutex
	folders  map[string]folderInfo   // folder as named → what it is
	tables   map[string]bool         // real folder → is a table
	listings map[string]*folderLinks // real folder → its entries
}

// folderLinks is what a confinement knows of the entries of one folder.
type folderLinks struct {
	checked int             // files checked by lstat so far
	entries map[string]bool // its entries, once listed (true: a symlink); nil before
}

// listAfter is how many files of one folder are checked one lstat(2) at a
// time before the folder is listed instead: a plan of a few files of a
// large folder does not list it.
const listAfter = 16

// folderInfo is what the confinement knows of one folder.
type folderInfo struct {
	real     string // symlinks resolved; the folder as named if it is missing
	missing  bool   // it does not exist, so neither do files in it
	readable bool   // below the warehouse or an extra root
	owner    string // folder of the table it lies in, "" for none
}

func newConfinement(d *Directory, folder string, access Access) *confinement {
	return &confinement{dir: d, folder: folder, access: access,
		folders: map[string]folderInfo{}, tables: map[string]bool{}, listings: map[string]*folderLinks{}}
}

// check reports whether the table may read the file at location, a
// location as mapped (where the file really is). The error is
// ErrOutsideWarehouse or ErrOtherTable, and names no path: where the file
// resolved to is the server's business.
func (c *confinement) check(location string) error {
	if !c.dir.local {
		return c.checkObject(location)
	}
	p, err := fileio.LocalPath(location)
	if err != nil {
		return ErrOutsideWarehouse
	}
	abs, err := filepath.Abs(p)
	if err != nil || !c.dir.mayRead(abs, true) {
		return ErrOutsideWarehouse
	}
	parent, base := filepath.Split(abs)
	info, err := c.folderOf(parent)
	if err != nil {
		return err
	}
	// The file itself may be a symlink; a file that does not exist is
	// left to the open to report.
	if !info.missing && c.isSymlink(info.real, base) {
		target, err := filepath.EvalSymlinks(filepath.Join(info.real, base))
		if err != nil {
			// A dangling symlink: what it points to is no table's file.
			return ErrOutsideWarehouse
		}
		if info, err = c.folderOf(filepath.Dir(target)); err != nil {
			return err
		}
	}
	if !info.readable {
		return ErrOutsideWarehouse
	}
	if info.owner == "" || info.owner == c.folder || c.access == nil {
		return nil
	}
	return c.mayReadTable(info.owner)
}

// mayReadTable reports whether the caller may read the files of the table
// in folder owner, one that is not the table's own.
func (c *confinement) mayReadTable(owner string) error {
	rel, ok := c.dir.tree.rel(owner)
	if !ok || !c.access(identifierFor(rel)) {
		return ErrOtherTable
	}
	return nil
}

// checkObject is check for a warehouse on an object store: the location
// must lie below the warehouse URI or an allowed root (same scheme and
// authority, a path prefix at a segment boundary) both as written and
// cleaned. No name there can lead anywhere else, so that is the whole
// check, with the other-table rule as on a local disk.
//
// Both, because an object store takes a key literally ("wh2/../wh/x" is a
// key below wh2/) while Hadoop-style storage resolves its "..": a location
// either may read must be below the warehouse.
func (c *confinement) checkObject(location string) error {
	clean, ok := fileio.CleanLocation(location)
	if !ok || !c.dir.mayReadObject(location, clean) {
		return ErrOutsideWarehouse
	}
	folder := clean[:strings.LastIndexByte(clean, '/')]
	owner := c.tableFolder(folder)
	if owner == "" || owner == c.folder || c.access == nil {
		return nil
	}
	return c.mayReadTable(owner)
}

// isSymlink reports whether the entry name of the folder dir (real) is a
// symlink: by lstat(2) for the first files of a folder, then from one
// listing of it. A name the listing lacks (written since) is asked by
// lstat(2) again.
func (c *confinement) isSymlink(dir, name string) bool {
	c.mu.Lock()
	l := c.listings[dir]
	if l == nil {
		l = &folderLinks{}
		c.listings[dir] = l
	}
	entries := l.entries
	list := entries == nil && l.checked >= listAfter
	l.checked++
	c.mu.Unlock()
	if list {
		if entries = entriesOf(dir); entries != nil {
			c.mu.Lock()
			l.entries = entries
			c.mu.Unlock()
		}
	}
	if link, ok := entries[name]; ok {
		return link
	}
	st, err := os.Lstat(filepath.Join(dir, name))
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// readDir lists the local folder dir, sorted by name, with the types of
// its entries as lstat(2) sees them (fileio.Entry has no symlinks, which
// are what this listing is for). Anything but a folder is refused without
// blocking on it: a FIFO in a folder's place would hold open(2) forever.
func readDir(dir string) ([]os.DirEntry, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a folder", dir)
	}
	entries, err := f.ReadDir(-1)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, err
}

// entriesOf returns the entries of the folder dir, true for a symlink, or
// nil when it cannot be listed (the caller then asks file by file).
func entriesOf(dir string) map[string]bool {
	list, err := readDir(dir) // a FIFO in a folder's place must not block
	if err != nil {
		return nil
	}
	entries := make(map[string]bool, len(list))
	for _, e := range list {
		entries[e.Name()] = e.Type()&fs.ModeSymlink != 0
	}
	return entries
}

// folderOf returns what the folder dir is, from the cache or worked out.
func (c *confinement) folderOf(dir string) (folderInfo, error) {
	c.mu.Lock()
	info, ok := c.folders[dir]
	c.mu.Unlock()
	if ok {
		return info, nil
	}
	real, err := filepath.EvalSymlinks(dir)
	missing := errors.Is(err, fs.ErrNotExist)
	switch {
	case missing:
		real = filepath.Clean(dir)
	case err != nil:
		return folderInfo{}, fmt.Errorf("resolve: %w", fileio.ErrUnavailable)
	}
	info = folderInfo{real: real, missing: missing, readable: c.dir.mayRead(real, false), owner: c.tableFolder(real)}
	c.mu.Lock()
	c.folders[dir] = info
	c.mu.Unlock()
	return info, nil
}

// tableFolder returns the folder of the table the folder real lies in, or
// "" when it lies in none. Folders are tried from the root down, as tables
// are found: the first table on the way owns everything below it.
func (c *confinement) tableFolder(real string) string {
	rel, ok := c.dir.tree.rel(real)
	if !ok {
		return ""
	}
	cur := c.dir.root
	for _, part := range strings.Split(rel, "/") {
		cur = c.dir.tree.join(cur, part)
		c.mu.Lock()
		is, ok := c.tables[cur]
		c.mu.Unlock()
		if !ok {
			// CheckFile has no context; the FileIO below a table bounds
			// each request itself.
			var err error
			// Storage that fails says nothing of the folder: not
			// remembered, and the read that follows reports it.
			if is, err = c.dir.isTable(context.Background(), cur); err == nil {
				c.mu.Lock()
				c.tables[cur] = is
				c.mu.Unlock()
			}
		}
		if is {
			return cur
		}
	}
	return ""
}

// confinedIO is a FileIO that opens only what a table's confinement
// allows. It sits below the table's Remapper, so it sees mapped locations
// and the Remapper's errors name the recorded ones.
type confinedIO struct {
	base fileio.FileIO
	c    *confinement
}

func (f confinedIO) Open(ctx context.Context, location string) (fileio.File, error) {
	if err := f.c.check(location); err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	return f.base.Open(ctx, location)
}

// OpenSized opens location with its known size, if the confinement allows
// it, so that manifests and data files cost no metadata request.
func (f confinedIO) OpenSized(ctx context.Context, location string, size int64) (fileio.File, error) {
	if err := f.c.check(location); err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	return fileio.OpenSized(ctx, f.base, location, size)
}

var _ fileio.SizedOpener = confinedIO{}

// ForCaller returns a copy of t that reads for a caller whose access says
// which tables it may read: its IO and CheckFile refuse files in the folder
// of a table the caller may not read. Tables of catalogs without folders
// are returned as they are.
func (t *Table) ForCaller(access Access) *Table {
	if t.confine == nil {
		return t
	}
	c := *t
	c.confine = newConfinement(t.confine.dir, t.confine.folder, access)
	c.IO = c.confine.tableIO(t.rules)
	return &c
}

// tableIO returns the FileIO of a table whose files are mapped by rules:
// relative locations are resolved against its folder, and every open is
// confined by c.
func (c *confinement) tableIO(rules []fileio.Rule) *fileio.Remapper {
	return fileio.Remap(confinedIO{base: c.dir.io, c: c}, rules...).WithBase(c.folder)
}

// CheckFile reports whether t may read the file at location, a location as
// mapped by t.IO, without opening it: the planner records data and delete
// files in tickets that a worker opens later. The error is ErrOutsideWarehouse
// or ErrOtherTable, naming no path: the caller names the file.
func (t *Table) CheckFile(location string) error {
	if t.confine == nil {
		return nil
	}
	return t.confine.check(location)
}

// Recorded returns location, as mapped by t.IO, the way the table's
// metadata names it: below the location the table was written at rather
// than the folder the server keeps it in, so that a client is never shown
// the server's own paths. A location that no rule maps comes back as it is.
func (t *Table) Recorded(location string) string {
	best := -1
	for i, r := range t.rules {
		if !mappedBelow(location, r.To) {
			continue
		}
		if best < 0 || len(r.To) > len(t.rules[best].To) {
			best = i
		}
	}
	if best < 0 {
		return location
	}
	r := t.rules[best]
	return strings.TrimRight(r.From, "/") + filepath.ToSlash(location[len(strings.TrimRight(r.To, "/")):])
}

// mappedBelow reports whether location, as a Remapper maps it, lies at or
// below to, a rule's target: a local folder or a URI.
func mappedBelow(location, to string) bool {
	if fileio.Scheme(to) == "" {
		return fileio.Within(location, to)
	}
	rest, ok := strings.CutPrefix(location, strings.TrimRight(to, "/"))
	return ok && (rest == "" || rest[0] == '/')
}

// mayReadObject reports whether loc, as written, and clean, the same
// location cleaned, both lie below the warehouse URI or one allowed root.
func (d *Directory) mayReadObject(loc, clean string) bool {
	for i := -1; i < len(d.roots); i++ {
		root := d.root
		if i >= 0 {
			root = d.roots[i].real
		}
		if mappedBelow(loc, root) && fileio.Under(clean, root) {
			return true
		}
	}
	return false
}

// mayRead reports whether the absolute path p lies below the root or an
// extra root; lexical also accepts the extra roots as given, before
// symlinks are resolved.
func (d *Directory) mayRead(p string, lexical bool) bool {
	if fileio.Within(p, d.root) {
		return true
	}
	for _, r := range d.roots {
		if fileio.Within(p, r.real) || lexical && fileio.Within(p, r.given) {
			return true
		}
	}
	return false
}

// Confinement is what confines a table's files (see CheckFile), in a form
// a ticket carries to a process that redeems it without the catalog: the
// files of a scan planned at the manifest level are first seen there.
type Confinement struct {
	// Warehouse is the warehouse's root: a local folder, symlinks
	// resolved, or a cleaned URI.
	Warehouse string
	// Roots are the other roots the operator allowed, as configured.
	Roots []string
	// Folder is the table's own folder, as Warehouse is spelled.
	Folder string
}

// Confinement returns what confines t's files; nil when its catalog
// confines nothing (any location its metadata names is read).
func (t *Table) Confinement() *Confinement {
	c := t.confine
	if c == nil {
		return nil
	}
	out := &Confinement{Warehouse: c.dir.root, Folder: c.folder}
	for _, r := range c.dir.roots {
		out.Roots = append(out.Roots, r.given)
	}
	return out
}

// Checker returns the check CheckFile makes for a table confined by c, for
// a caller whose access says which tables it may read: the same rule (the
// warehouse and the allowed roots, symlinks resolved, and no other table's
// folder unless access lets the caller read that table), worked out from
// the storage itself. fio reads a remote warehouse (a local one is walked
// with a Local confined to it, as the catalog walks it).
func (c *Confinement) Checker(fio fileio.FileIO, access Access) (func(location string) error, error) {
	opts := []Option{WithAllowedRoots(c.Roots...), WithMetadataCacheBytes(0)}
	var d *Directory
	var err error
	if s := fileio.Scheme(c.Warehouse); s == "" || s == "file" {
		d, err = NewDirectory(c.Warehouse, opts...)
	} else {
		d, err = NewDirectoryAt(c.Warehouse, fio, opts...)
	}
	if err != nil {
		return nil, err
	}
	return newConfinement(d, c.Folder, access).check, nil
}
