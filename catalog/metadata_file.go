package catalog

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Version hint files, in the order they are tried. Iceberg Java's
// HadoopTableOperations writes version-hint.text; some copies of tables
// carry version-hint.txt instead.
var hintNames = []string{"version-hint.text", "version-hint.txt"}

var (
	// versionedName matches Hadoop-style names: vN.metadata.json,
	// vN.gz.metadata.json (Java's compressed form) and vN.metadata.json.gz.
	versionedName = regexp.MustCompile(`^v([0-9]+)(?:\.gz)?\.metadata\.json(?:\.gz)?$`)
	// sequencedName matches names written by other catalogs:
	// NNNNN-<uuid>.metadata.json and its compressed forms.
	sequencedName = regexp.MustCompile(`^([0-9]+)-[^/\\]+\.metadata\.json(?:\.gz)?$`)
)

// errNoMetadata marks a metadata folder without any metadata file.
var errNoMetadata = errors.New("no metadata file")

// metadataVersion returns the version a metadata file name carries.
func metadataVersion(name string) (string, bool) {
	if m := versionedName.FindStringSubmatch(name); m != nil {
		return m[1], true
	}
	if m := sequencedName.FindStringSubmatch(name); m != nil {
		return m[1], true
	}
	return "", false
}

// versionLess compares two decimal versions as numbers, whatever their
// length or leading zeros.
func versionLess(a, b string) bool {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// currentMetadata returns the name of the current metadata file in dir, a
// table's metadata folder.
//
// As Iceberg Java's HadoopTableOperations does, it starts from the version
// in the hint file and then takes N+1, N+2, ... while they exist, so a stale
// hint (a writer that died between writing vN+1 and the hint) is harmless.
// Without a usable hint it takes the highest version among vN and
// NNNNN-<uuid> names, compared as numbers; equal versions fall to the
// greatest name, so the choice is deterministic.
//
// within resolves a path's symlinks and reports whether it may be read; a
// hint that resolves elsewhere is ignored.
func currentMetadata(dir string, within func(string) (string, bool)) (string, error) {
	if n, ok := readHint(dir, within); ok {
		if name, ok := versionFile(dir, n); ok {
			for {
				next, ok := versionFile(dir, n+1)
				if !ok {
					return name, nil
				}
				name, n = next, n+1
			}
		}
	}
	entries, err := readDir(dir)
	if err != nil {
		return "", err
	}
	var best, bestVersion string
	for _, e := range entries {
		// A metadata file name that is not a regular file (a FIFO, a
		// folder) is still the table's newest version: skipping it would
		// serve an older snapshot without a word, so it is taken, and
		// reading it fails naming it.
		v, ok := metadataVersion(e.Name())
		if !ok {
			continue
		}
		newer := versionLess(bestVersion, v)
		same := !newer && !versionLess(v, bestVersion)
		if best == "" || newer || same && e.Name() > best {
			best, bestVersion = e.Name(), v
		}
	}
	if best == "" {
		return "", fmt.Errorf("%s: %w", dir, errNoMetadata)
	}
	return best, nil
}

// readHint returns the version in the first hint file that exists, if it
// holds a non-negative number.
func readHint(dir string, within func(string) (string, bool)) (int64, bool) {
	for _, h := range hintNames {
		p, ok := within(filepath.Join(dir, h))
		if !ok {
			continue
		}
		b, err := readSmall(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return n, err == nil && n >= 0
	}
	return 0, false
}

// readSmall reads the start of a hint file; a real hint is a few bytes.
func readSmall(p string) ([]byte, error) {
	f, err := openNoWait(p, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 64))
}

// errWrongType marks a path that is not the kind of file it should be.
var errWrongType = errors.New("not a regular file or folder as expected")

// openNoWait opens p, a regular file or, when dir is set, a folder,
// without blocking: a FIFO in the place of a hint file or a metadata folder
// would otherwise hold open(2), and with it the table listing, until a
// writer comes. The type is taken from the open file, so nothing can be
// swapped in between.
func openNoWait(p string, dir bool) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && (dir && !st.IsDir() || !dir && !st.Mode().IsRegular()) {
		err = fmt.Errorf("%s: %w", p, errWrongType)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readDir lists the folder dir, sorted by name, as os.ReadDir does, but
// refuses anything that is not a folder without blocking on it.
func readDir(dir string) ([]os.DirEntry, error) {
	f, err := openNoWait(dir, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, err
}

// versionFile returns the name of the file holding version n, in any of its
// spellings. As in currentMetadata's listing, a name that exists but is no
// regular file counts: reading it then fails, rather than the version
// before it being served as current.
func versionFile(dir string, n int64) (string, bool) {
	v := strconv.FormatInt(n, 10)
	for _, name := range []string{"v" + v + ".metadata.json", "v" + v + ".gz.metadata.json", "v" + v + ".metadata.json.gz"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return name, true
		}
	}
	return "", false
}

// hasMetadata reports whether dir is a folder holding a metadata file.
//
// A table's metadata folder also holds its manifests and manifest lists,
// thousands in a table that commits often, so the common case is answered
// without listing it: a hint naming a version file that exists. Otherwise
// the folder is read a batch of names at a time, up to the first metadata
// file. within is as for currentMetadata.
func hasMetadata(dir string, within func(string) (string, bool)) bool {
	if n, ok := readHint(dir, within); ok {
		if _, ok := versionFile(dir, n); ok {
			return true
		}
	}
	f, err := openNoWait(dir, true)
	if err != nil {
		return false
	}
	defer f.Close()
	for {
		entries, err := f.ReadDir(256)
		for _, e := range entries {
			if name := e.Name(); strings.Contains(name, ".metadata.json") && !e.IsDir() {
				if _, ok := metadataVersion(name); ok {
					return true
				}
			}
		}
		if err != nil {
			return false
		}
	}
}

// DefaultMaxMetadataBytes bounds a table's metadata file by default, after
// decompression: a table with a million snapshots has a file of about half
// this size.
const DefaultMaxMetadataBytes = 1 << 30

// ReadMetadata reads and parses the table metadata file at location with
// fio, of at most limit bytes after any gunzip (0 or less: any size), and
// returns the number of bytes of text it came from. Every catalog loads a
// table through it, whatever says where the current metadata file is.
// Errors name location.
func ReadMetadata(ctx context.Context, fio fileio.FileIO, location string, limit int64) (*iceberg.TableMetadata, int64, error) {
	text, err := readText(ctx, fio, location, limit)
	if err != nil {
		return nil, 0, err
	}
	md, err := iceberg.ParseMetadataString(text)
	if err != nil {
		return nil, 0, fmt.Errorf("metadata file %s: %w", location, err)
	}
	return md, int64(len(text)), nil
}

// readText reads a whole metadata file, of at most limit bytes (0 or less:
// any size), into a string of its size: a busy table's metadata file is
// hundreds of kilobytes, which a growing buffer would copy many times over,
// and the parsed metadata's strings share the string's memory
// (iceberg.ParseMetadataString). A gzip-compressed file is decompressed
// here, within the same limit, so a small file cannot inflate to exhaust
// memory. Errors over the limit wrap fileio.ErrTooLarge and name the file.
func readText(ctx context.Context, fio fileio.FileIO, location string, limit int64) (string, error) {
	b, err := fileio.ReadAll(ctx, fio, location, limit)
	if err != nil || len(b) == 0 {
		return "", err
	}
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		if b, err = gunzip(b, location, limit); err != nil {
			return "", err
		}
	}
	// b is never written again, so the string may share it.
	return unsafe.String(&b[0], len(b)), nil
}

// gunzip decompresses a gzip metadata file of at most limit bytes once
// decompressed. A file that is not valid gzip is left as it is, for the
// metadata parser to report.
func gunzip(b []byte, location string, limit int64) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return b, nil
	}
	r := io.Reader(zr)
	if limit > 0 {
		r = io.LimitReader(zr, limit+1)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return b, nil
	}
	if err := fileio.CheckSize(location+" decompressed", int64(len(out)), limit); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return b, nil
	}
	return out, nil
}
