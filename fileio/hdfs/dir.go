package hdfs

import (
	"context"
	"os"
	"sort"

	hdfsclient "github.com/colinmarc/hdfs/v2"

	"github.com/iceflight/iceflight/fileio"
)

// ReadDir lists the entries directly below dir, sorted by name. HDFS has
// real folders, so a missing one wraps fileio.ErrNotFound, as on a local
// disk.
func (f *FileIO) ReadDir(ctx context.Context, dir string) ([]fileio.Entry, error) {
	t, err := f.parse(dir)
	if err != nil {
		return nil, err
	}
	var infos []os.FileInfo
	err = f.retry(ctx, t, func(c *hdfsclient.Client) error {
		var err error
		infos, err = c.ReadDir(t.path)
		return err
	})
	if err != nil {
		return nil, f.wrap("list", dir, t, err)
	}
	entries := make([]fileio.Entry, 0, len(infos))
	for _, fi := range infos {
		e := fileio.Entry{Name: fi.Name(), IsDir: fi.IsDir(), ModTime: fi.ModTime()}
		if !e.IsDir {
			e.Size = fi.Size()
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// Remove deletes the file at location; a missing file wraps
// fileio.ErrNotFound.
func (f *FileIO) Remove(ctx context.Context, location string) error {
	t, err := f.parse(location)
	if err != nil {
		return err
	}
	err = f.retry(ctx, t, func(c *hdfsclient.Client) error { return c.Remove(t.path) })
	if err != nil {
		return f.wrap("remove", location, t, err)
	}
	return nil
}

// Compile-time checks of the capabilities the rest of iceflight looks for.
var (
	_ fileio.FileIO      = (*FileIO)(nil)
	_ fileio.SizedOpener = (*FileIO)(nil)
	_ fileio.Lister      = (*FileIO)(nil)
	_ fileio.Creator     = (*FileIO)(nil)
	_ fileio.Remover     = (*FileIO)(nil)
)
