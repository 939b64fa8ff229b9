package catalog

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
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

// timeVersions is the least version read as a time rather than a count:
// some writers name metadata files by the Unix time of the commit
// (v1749025517.metadata.json), and a hint to one of them says nothing of
// the next, which is not N+1.
const timeVersions = 1_000_000_000

// currentMetadata returns the name of the current metadata file in dir, a
// table's metadata folder in t.
//
// As Iceberg Java's HadoopTableOperations does, it starts from the version
// in the hint file and then takes N+1, N+2, ... while they exist, so a stale
// hint (a writer that died between writing vN+1 and the hint) is harmless.
// A hint may hold a file name instead of a number (v3.metadata.json): a vN
// name counts as N. Without a usable hint, or with one to a
// NNNNN-<uuid> name or a version named by time (whose successors cannot be
// guessed), it lists dir and takes the highest version among vN and
// NNNNN-<uuid> names, compared as numbers; equal versions fall to the
// greatest name, so the choice is deterministic. A hint that resolves
// outside the warehouse is ignored.
func currentMetadata(ctx context.Context, t tree, dir string) (string, error) {
	if n, ok := readHint(ctx, t, dir); ok && n < timeVersions {
		if name, ok := versionFile(ctx, t, dir, n); ok {
			for {
				next, ok := versionFile(ctx, t, dir, n+1)
				if !ok {
					return name, nil
				}
				name, n = next, n+1
			}
		}
	}
	entries, err := listAll(ctx, t, dir)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		// A metadata file name that is not a regular file (a FIFO, a
		// folder) is still the table's newest version: skipping it would
		// serve an older snapshot without a word, so it is taken, and
		// reading it fails naming it.
		names = append(names, e.Name)
	}
	if best := newestVersion(names); best != "" {
		return best, nil
	}
	return "", fmt.Errorf("%s: %w", t.base(dir), errNoMetadata)
}

// newestVersion returns the metadata file name of the highest version
// among names, or "" when none is one; equal versions fall to the greatest
// name.
func newestVersion(names []string) string {
	var best, bestVersion string
	for _, name := range names {
		v, ok := metadataVersion(name)
		if !ok {
			continue
		}
		newer := versionLess(bestVersion, v)
		same := !newer && !versionLess(v, bestVersion)
		if best == "" || newer || same && name > best {
			best, bestVersion = name, v
		}
	}
	return best
}

// readHint returns the version in the first hint file that exists, if it
// holds a non-negative number or the name of a vN metadata file. Only the
// name's last segment counts: a hint is no way out of the metadata folder.
func readHint(ctx context.Context, t tree, dir string) (int64, bool) {
	for _, h := range hintNames {
		p, ok := t.inside(t.join(dir, h))
		if !ok {
			continue
		}
		b, err := t.readSmall(ctx, p)
		if err != nil {
			continue
		}
		hint := strings.TrimSpace(string(b))
		if i := strings.LastIndexAny(hint, "/\\"); i >= 0 {
			hint = hint[i+1:]
		}
		if m := versionedName.FindStringSubmatch(hint); m != nil {
			hint = m[1]
		}
		n, err := strconv.ParseInt(hint, 10, 64)
		return n, err == nil && n >= 0
	}
	return 0, false
}

// versionFile returns the name of the file holding version n, in any of its
// spellings. As in currentMetadata's listing, a name that exists but is no
// regular file counts: reading it then fails, rather than the version
// before it being served as current.
func versionFile(ctx context.Context, t tree, dir string, n int64) (string, bool) {
	v := strconv.FormatInt(n, 10)
	for _, name := range []string{"v" + v + ".metadata.json", "v" + v + ".gz.metadata.json", "v" + v + ".metadata.json.gz"} {
		if t.exists(ctx, t.join(dir, name)) {
			return name, true
		}
	}
	return "", false
}

// hasMetadata reports whether dir is a folder of t holding a metadata file.
//
// A table's metadata folder also holds its manifests and manifest lists,
// thousands in a table that commits often, so the common case is answered
// without listing it: a hint naming a version file that exists. Otherwise
// the folder is scanned up to the first metadata file. Storage that
// fails the scan (down, refusing the credentials) is an error, not a
// folder without metadata.
func hasMetadata(ctx context.Context, t tree, dir string) (bool, error) {
	if n, ok := readHint(ctx, t, dir); ok {
		if _, ok := versionFile(ctx, t, dir, n); ok {
			return true, nil
		}
	}
	found := false
	err := t.scan(ctx, dir, func(name string, isDir bool) bool {
		_, ok := metadataVersion(name)
		found = ok && !isDir
		return !found
	})
	if !found && storageFailed(err) {
		return false, err
	}
	return found, nil
}

// storageFailed reports whether err is the storage failing (unreachable,
// or refusing the credentials) rather than an answer about a name.
func storageFailed(err error) bool {
	return errors.Is(err, fileio.ErrUnavailable) || errors.Is(err, fileio.ErrPermissionDenied)
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
