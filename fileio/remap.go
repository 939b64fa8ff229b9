package fileio

import (
	"context"
	"io"
	"path"
	"path/filepath"
	"strings"
)

// Rule maps every location under the prefix From to the same place under To.
//
// From is a bare absolute path, a Windows path ("C:\wh\t"), a file URI,
// a URI with an authority ("hdfs://nn:8020/wh/t", "s3://bucket/t") or a
// relative path ("wh/t", "./wh/t"). All spellings of a local path are one:
// "/a/b", "file:/a/b", "file:///a/b" and "file://localhost/a/b"; a Windows
// path is the local path "/C:/a/b", so "C:\a\b" and "file:///C:/a/b" are
// one too. A relative From matches relative locations only, after both are
// cleaned: "./wh//t" and "wh/x/../t" are "wh/t".
type Rule struct {
	From string
	To   string
}

// Remapper is a FileIO that rewrites locations by Rules before opening them
// with a base FileIO. It serves tables whose metadata records the paths of
// the cluster that wrote them (see Remap for how rules match). A Remapper is
// immutable and safe for concurrent use.
type Remapper struct {
	base  FileIO
	rules []compiledRule
	dir   string // base folder for relative locations; "" leaves them alone
}

// A Remapper has every optional method of a FileIO: each maps its location
// and forwards to the base, which answers ErrUnsupportedScheme for what it
// cannot do.
var (
	_ Lister      = (*Remapper)(nil)
	_ SizedOpener = (*Remapper)(nil)
	_ Creator     = (*Remapper)(nil)
	_ Remover     = (*Remapper)(nil)
)

type compiledRule struct {
	Rule
	from splitLoc
}

// splitLoc is a location cut into its parts for matching. Local spellings
// share scheme "file" with an empty authority; path is cleaned and absolute.
// A relative location has neither scheme nor authority, and its path is
// cleaned but has no root ("wh/t", "../t", or "." for the folder itself).
type splitLoc struct {
	scheme, authority, path string
}

func (l splitLoc) local() bool { return l.scheme == "file" && l.authority == "" }

func (l splitLoc) relative() bool { return l.scheme == "" }

// Remap returns a Remapper that maps locations by rules and opens them with
// base.
//
// A rule matches a location when the rule's path is a prefix of the
// location's path that ends at a segment boundary ("/wh/t" matches "/wh/t"
// and "/wh/t/x", never "/wh/t2"), and either both have the same scheme and
// authority, or one of the two is a local spelling with no authority: tables
// copied between clusters record "/wh/t" in one file and
// "hdfs://nn:8020/wh/t" in another, so such a rule matches by path alone.
// Two different schemes or authorities never match ("s3://a/t" is not
// "s3://b/t"). When several rules match, the one with the longest path wins;
// on a tie a same-scheme match beats a path-only one, then the earlier rule.
// Paths are cleaned before matching, so "." and ".." segments cannot step
// around a rule.
//
// A relative From (a table written from a working directory records
// "wh/t" and names its files "wh/t/data/f.parquet" or "./wh/t/data/...")
// matches a relative location whose cleaned path starts with its cleaned
// path, segment-wise, and nothing else: a relative location whose ".."
// segments climb out of From ("wh/t/../../x" is "../x") is left to the base
// folder of WithBase, where a caller's confinement judges it.
func Remap(base FileIO, rules ...Rule) *Remapper {
	r := &Remapper{base: base}
	for _, rule := range rules {
		from, ok := splitLocation(rule.From)
		if !ok {
			continue
		}
		r.rules = append(r.rules, compiledRule{Rule: rule, from: from})
	}
	return r
}

// WithBase returns a copy of r that resolves relative locations (no scheme,
// no leading "/") against dir, a folder path or a URI. Relative locations are
// resolved after rules, so a rule's To may itself be relative to dir. The
// result is cleaned, so a relative location with ".." segments can land
// outside dir: callers that must confine reads check the mapped location.
func (r *Remapper) WithBase(dir string) *Remapper {
	c := *r
	c.dir = dir
	return &c
}

// Base returns the folder relative locations are resolved against; "" when
// they are left alone.
func (r *Remapper) Base() string { return r.dir }

// Rules returns the rules in effect, in the order given to Remap; rules
// whose From is no location (empty, or a URI without a rooted path such as
// "file:x") are left out, as they never match.
func (r *Remapper) Rules() []Rule {
	out := make([]Rule, len(r.rules))
	for i, cr := range r.rules {
		out[i] = cr.Rule
	}
	return out
}

// Map returns where location really is: rewritten by the best matching rule,
// then, if relative, resolved against the base folder. A location that no
// rule matches comes back unchanged.
func (r *Remapper) Map(location string) string {
	out := location
	if loc, ok := splitLocation(location); ok {
		if best := r.match(loc); best != nil {
			rest := loc.path
			switch {
			case best.from.path == ".":
				rest = "/" + loc.path
			case best.from.path != "/":
				rest = loc.path[len(best.from.path):]
			}
			out = joinRest(best.To, rest)
		}
	}
	if r.dir != "" && out != "" && isRelative(out) {
		out = joinRest(r.dir, "/"+out)
	}
	return out
}

// Open maps location and opens the result with the base FileIO. Errors
// name location as recorded, never where it was mapped to: the server's
// own paths are none of a client's business.
func (r *Remapper) Open(ctx context.Context, location string) (File, error) {
	mapped := r.Map(location)
	f, err := r.base.Open(ctx, mapped)
	if err != nil && mapped != location {
		return nil, Rename(err, mapped, location)
	}
	return f, err
}

// OpenSized maps location and opens the result with the base FileIO,
// trusting size where the base can. Errors name location as recorded.
func (r *Remapper) OpenSized(ctx context.Context, location string, size int64) (File, error) {
	mapped := r.Map(location)
	f, err := OpenSized(ctx, r.base, mapped, size)
	if err != nil {
		return nil, Rename(err, mapped, location)
	}
	return f, nil
}

// ReadDir maps the folder dir and lists the result with the base FileIO;
// entries are named as below the mapped folder, which are the same names
// as below dir. Errors name dir as given.
func (r *Remapper) ReadDir(ctx context.Context, dir string) ([]Entry, error) {
	mapped := r.Map(dir)
	entries, err := ReadDir(ctx, r.base, mapped)
	if err != nil {
		return nil, Rename(err, mapped, dir)
	}
	return entries, nil
}

// Create maps location and starts a file there with the base FileIO.
func (r *Remapper) Create(ctx context.Context, location string) (io.WriteCloser, error) {
	mapped := r.Map(location)
	w, err := Create(ctx, r.base, mapped)
	if err != nil {
		return nil, Rename(err, mapped, location)
	}
	return w, nil
}

// CreateExclusive maps location and starts a file there, only where none
// exists, with the base FileIO.
func (r *Remapper) CreateExclusive(ctx context.Context, location string) (io.WriteCloser, error) {
	mapped := r.Map(location)
	w, err := CreateExclusive(ctx, r.base, mapped)
	if err != nil {
		return nil, Rename(err, mapped, location)
	}
	return &renamedWriter{WriteCloser: w, real: mapped, shown: location}, nil
}

// renamedWriter names the location as the caller gave it in the errors of
// a writer made for its mapped location.
type renamedWriter struct {
	io.WriteCloser
	real, shown string
}

func (w *renamedWriter) Write(p []byte) (int, error) {
	n, err := w.WriteCloser.Write(p)
	return n, Rename(err, w.real, w.shown)
}

func (w *renamedWriter) Close() error { return Rename(w.WriteCloser.Close(), w.real, w.shown) }

// Remove maps location and deletes the file there with the base FileIO.
func (r *Remapper) Remove(ctx context.Context, location string) error {
	mapped := r.Map(location)
	return Rename(Remove(ctx, r.base, mapped), mapped, location)
}

// Rename returns err with the location real in its message, in any local
// spelling, replaced by shown: errors then name a file as a table's
// metadata records it, never by the server's own path. errors.Is and
// errors.As still see err.
func Rename(err error, real, shown string) error {
	if err == nil || real == shown {
		return err
	}
	return &renamedError{real: real, shown: shown, err: err}
}

// renamedError is an error whose message names a file otherwise.
type renamedError struct {
	real, shown string
	err         error
}

func (e *renamedError) Error() string {
	msg := strings.ReplaceAll(e.err.Error(), e.real, e.shown)
	if p, err := LocalPath(e.real); err == nil && p != e.real {
		msg = strings.ReplaceAll(msg, p, e.shown)
	}
	return msg
}

func (e *renamedError) Unwrap() error { return e.err }

// match returns the winning rule for loc, or nil.
func (r *Remapper) match(loc splitLoc) *compiledRule {
	var best *compiledRule
	bestExact := false
	for i := range r.rules {
		cr := &r.rules[i]
		if cr.from.relative() != loc.relative() {
			continue
		}
		exact := cr.from.scheme == loc.scheme && strings.EqualFold(cr.from.authority, loc.authority)
		if !exact && !cr.from.local() && !loc.local() {
			continue
		}
		if !underPath(loc.path, cr.from.path) {
			continue
		}
		if best == nil || len(cr.from.path) > len(best.from.path) ||
			len(cr.from.path) == len(best.from.path) && exact && !bestExact {
			best, bestExact = cr, exact
		}
	}
	return best
}

// underPath reports whether p is prefix or lies below it, segment-wise. The
// relative prefix "." holds every relative path that does not climb out.
func underPath(p, prefix string) bool {
	switch prefix {
	case "/":
		return strings.HasPrefix(p, "/")
	case ".":
		return p != "." && p != ".." && !strings.HasPrefix(p, "../")
	}
	return p == prefix || strings.HasPrefix(p, prefix) && p[len(prefix)] == '/'
}

// splitLocation cuts a location into scheme, authority and cleaned path; ok
// is false for what names no place, such as "" or "file:x".
func splitLocation(s string) (splitLoc, bool) {
	scheme := Scheme(s)
	if scheme == "" {
		switch {
		case strings.HasPrefix(s, "/"):
			return splitLoc{scheme: "file", path: cleanPath(s)}, true
		case IsWindowsPath(s):
			return splitLoc{scheme: "file", path: path.Clean("/" + strings.ReplaceAll(s, `\`, "/"))}, true
		case filepath.IsAbs(s): // a UNC path on Windows
			return splitLoc{scheme: "file", path: path.Clean("/" + filepath.ToSlash(s))}, true
		case s == "":
			return splitLoc{}, false
		}
		return splitLoc{path: path.Clean(s)}, true
	}
	rest := s[len(scheme)+1:]
	var authority string
	if strings.HasPrefix(rest, "//") {
		var p string
		authority, p, _ = strings.Cut(rest[2:], "/")
		rest = "/" + p
	}
	if scheme == "file" && strings.EqualFold(authority, "localhost") {
		authority = ""
	}
	if !strings.HasPrefix(rest, "/") {
		return splitLoc{}, false
	}
	return splitLoc{scheme: scheme, authority: authority, path: cleanPath(rest)}, true
}

// cleanPath is path.Clean for a rooted path, returning p itself without
// scanning it twice when it is clean already, as the paths a table's
// manifests record are: a plan maps every one of up to millions of them.
func cleanPath(p string) string {
	if isCleanPath(p) {
		return p
	}
	return path.Clean(p)
}

// isCleanPath reports whether path.Clean would return the rooted path p
// unchanged: no empty, "." or ".." segment and no trailing slash. It looks
// at slashes and dots only, with the byte searches of package strings.
func isCleanPath(p string) bool {
	if p == "/" {
		return true
	}
	if len(p) == 0 || p[0] != '/' || p[len(p)-1] == '/' || strings.Contains(p, "//") {
		return false
	}
	for i := strings.IndexByte(p, '.'); i >= 0; {
		if p[i-1] == '/' { // a segment starts with a dot
			seg := p[i:]
			if j := strings.IndexByte(seg, '/'); j >= 0 {
				seg = seg[:j]
			}
			if seg == "." || seg == ".." {
				return false
			}
		}
		next := strings.IndexByte(p[i+1:], '.')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return true
}

// isRelative reports whether location has neither a scheme nor a root.
func isRelative(location string) bool {
	return Scheme(location) == "" && !strings.HasPrefix(location, "/") && !IsWindowsPath(location) &&
		!filepath.IsAbs(location)
}

// IsWindowsPath reports whether location starts with a drive letter and a
// separator ("C:\x", "c:/x"), as a writer on Windows records it, whatever
// system reads it: such a location is absolute, never relative.
func IsWindowsPath(location string) bool {
	if len(location) < 3 || location[1] != ':' || location[2] != '\\' && location[2] != '/' {
		return false
	}
	c := location[0]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// joinRest appends rest ("" or "/...", cleaned) to prefix, a folder path or
// a URI.
func joinRest(prefix, rest string) string {
	if Scheme(prefix) == "" {
		if filepath.Separator == '/' && prefix != "/" && isCleanPath(prefix) && isCleanPath(rest) {
			return prefix + rest // what filepath.Join gives, without cleaning again
		}
		return filepath.Join(prefix, filepath.FromSlash(rest))
	}
	return strings.TrimRight(prefix, "/") + rest
}
