package fileio

import (
	"context"
	"errors"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

func TestRemapMap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		rules    []Rule
		base     string
		location string
		want     string
	}{
		// Every spelling of a local path is one path.
		{"bare rule, bare path", []Rule{{"/wh/t", "/data/t"}}, "", "/wh/t/f.parquet", "/data/t/f.parquet"},
		{"bare rule, file: path", []Rule{{"/wh/t", "/data/t"}}, "", "file:/wh/t/f", "/data/t/f"},
		{"bare rule, file:/// path", []Rule{{"/wh/t", "/data/t"}}, "", "file:///wh/t/f", "/data/t/f"},
		{"bare rule, file://localhost path", []Rule{{"/wh/t", "/data/t"}}, "", "file://localhost/wh/t/f", "/data/t/f"},
		{"file: rule, bare path", []Rule{{"file:/wh/t", "/data/t"}}, "", "/wh/t/f", "/data/t/f"},
		{"file:/// rule, file://localhost path", []Rule{{"file:///wh/t", "/data/t"}}, "", "file://localhost/wh/t/f", "/data/t/f"},
		{"file://localhost rule, bare path", []Rule{{"file://localhost/wh/t", "/data/t"}}, "", "/wh/t/f", "/data/t/f"},
		{"rule with trailing slash", []Rule{{"/wh/t/", "/data/t/"}}, "", "/wh/t/f", "/data/t/f"},
		{"the prefix itself", []Rule{{"/wh/t", "/data/t"}}, "", "/wh/t", "/data/t"},
		{"root rule", []Rule{{"/", "/data"}}, "", "/wh/t/f", "/data/wh/t/f"},

		// Prefixes end at a segment boundary.
		{"sibling folder with a longer name", []Rule{{"/wh/t", "/data/t"}}, "", "/wh/t2/f", "/wh/t2/f"},
		{"sibling URI with a longer name", []Rule{{"s3://b/t", "/data/t"}}, "", "s3://b/t2/f", "s3://b/t2/f"},

		// Schemes with an authority match exactly.
		{"hdfs exact", []Rule{{"hdfs://localhost:20500/wh/t", "/data/t"}}, "", "hdfs://localhost:20500/wh/t/d/f", "/data/t/d/f"},
		{"s3a exact", []Rule{{"s3a://warehouse/t", "/data/t"}}, "", "s3a://warehouse/t/data/f", "/data/t/data/f"},
		{"s3 exact", []Rule{{"s3://bucket/t", "/data/t"}}, "", "s3://bucket/t/f", "/data/t/f"},
		{"scheme is case-insensitive", []Rule{{"S3://bucket/t", "/data/t"}}, "", "s3://bucket/t/f", "/data/t/f"},
		{"other authority", []Rule{{"hdfs://nn1:8020/wh/t", "/data/t"}}, "", "hdfs://nn2:8020/wh/t/f", "hdfs://nn2:8020/wh/t/f"},
		{"other bucket", []Rule{{"s3://a/t", "/data/t"}}, "", "s3://b/t/f", "s3://b/t/f"},
		{"other scheme, same authority", []Rule{{"s3a://warehouse/t", "/data/t"}}, "", "s3://warehouse/t/f", "s3://warehouse/t/f"},

		// Tables copied between clusters: path alone matches across a local spelling.
		{"bare rule matches hdfs path", []Rule{{"/test-warehouse/x", "/data/x"}}, "", "hdfs://localhost:20500/test-warehouse/x/f", "/data/x/f"},
		{"hdfs rule matches bare path", []Rule{{"hdfs://localhost:20500/test-warehouse/x", "/data/x"}}, "", "/test-warehouse/x/f", "/data/x/f"},
		{"hdfs rule matches file URI", []Rule{{"hdfs://localhost:20500/test-warehouse/x", "/data/x"}}, "", "file:///test-warehouse/x/f", "/data/x/f"},

		// Longest rule wins, then exact scheme, then order.
		{"longest rule wins", []Rule{{"/wh", "/a"}, {"/wh/t", "/b"}}, "", "/wh/t/f", "/b/f"},
		{"longest rule wins in any order", []Rule{{"/wh/t", "/b"}, {"/wh", "/a"}}, "", "/wh/t/f", "/b/f"},
		{"exact scheme beats path-only", []Rule{{"/wh/t", "/a"}, {"hdfs://nn/wh/t", "/b"}}, "", "hdfs://nn/wh/t/f", "/b/f"},
		{"first of equals wins", []Rule{{"/wh/t", "/a"}, {"file:///wh/t", "/b"}}, "", "/wh/t/f", "/a/f"},

		// Cleaning.
		{"dot-dot cannot step around a rule", []Rule{{"/wh/t", "/data/t"}}, "", "/wh/t/../u/f", "/wh/t/../u/f"},
		{"double slash", []Rule{{"/wh/t", "/data/t"}}, "", "hdfs://nn//wh//t/f", "/data/t/f"},

		// Targets that are URIs.
		{"to a URI", []Rule{{"/wh/t", "s3://bucket/t/"}}, "", "/wh/t/f", "s3://bucket/t/f"},

		// Relative locations resolve against the base folder.
		{"relative with base", nil, "/data/t", "data/f.parquet", "/data/t/data/f.parquet"},
		{"relative with URI base", nil, "s3://b/t/", "data/f", "s3://b/t/data/f"},
		{"relative without base", nil, "", "data/f", "data/f"},
		{"relative target with base", []Rule{{"/wh/t", "copy"}}, "/data", "/wh/t/f", "/data/copy/f"},
		{"unmatched absolute path unchanged", []Rule{{"/wh/t", "/data/t"}}, "/base", "/elsewhere/f", "/elsewhere/f"},
		{"unmatched URI unchanged", nil, "/base", "gs://b/k", "gs://b/k"},

		// Relative locations, as a writer run from a working directory
		// records them, match a relative rule after cleaning.
		{"relative rule", []Rule{{"wh/t", "/data/t"}}, "", "wh/t/f", "/data/t/f"},
		{"relative rule, the prefix itself", []Rule{{"wh/t", "/data/t"}}, "", "wh/t", "/data/t"},
		{"relative rule, ./ path", []Rule{{"wh/t", "/data/t"}}, "", "./wh/t/data/f", "/data/t/data/f"},
		{"./ rule, bare relative path", []Rule{{"./wh/t", "/data/t"}}, "", "wh/t/data/f", "/data/t/data/f"},
		{"./ rule, ./ path", []Rule{{"./wh/t", "/data/t"}}, "/base", "./wh/t/data/f", "/data/t/data/f"},
		{"relative rule, double slashes", []Rule{{"data//dir/t/", "/data/t"}}, "", "data/dir//t//metadata/snap.avro", "/data/t/metadata/snap.avro"},
		{"relative rule, dot-dot within", []Rule{{"data/dir/t", "/data/t"}}, "", "data/x/../dir/t/f", "/data/t/f"},
		{"relative rule, rule with dot-dot", []Rule{{"data/x/../dir/t", "/data/t"}}, "", "data/dir/t/f", "/data/t/f"},
		{"relative rule above the working directory", []Rule{{"../wh/t", "/data/t"}}, "", "../wh/t/f", "/data/t/f"},
		{"relative rule ends at a segment boundary", []Rule{{"wh/t", "/data/t"}}, "/base", "wh/t2/f", "/base/wh/t2/f"},
		{"relative rule of the working directory", []Rule{{".", "/data/t"}}, "", "./data/f", "/data/t/data/f"},
		{"relative rule does not match an absolute path", []Rule{{"wh/t", "/data/t"}}, "", "/wh/t/f", "/wh/t/f"},
		{"relative rule does not match a URI", []Rule{{"wh/t", "/data/t"}}, "", "hdfs://nn/wh/t/f", "hdfs://nn/wh/t/f"},
		{"absolute rule does not match a relative path", []Rule{{"/wh/t", "/data/t"}}, "/base", "wh/t/f", "/base/wh/t/f"},
		{"longest relative rule wins", []Rule{{"wh", "/a"}, {"./wh/t", "/b"}}, "", "wh/t/f", "/b/f"},

		// A relative location whose ".." climbs out of the rule is not
		// under it, so it never lands below the rule's target: it goes
		// to the base folder, cleaned, for the caller's confinement.
		{"relative dot-dot climbs out of the rule", []Rule{{"wh/t", "/data/t"}}, "/base", "wh/t/../../../etc/passwd", "/etc/passwd"},
		{"relative dot-dot climbs to a sibling", []Rule{{"wh/t", "/data/t"}}, "/base", "wh/t/../u/f", "/base/wh/u/f"},
		{"dot-dot out of the working directory rule", []Rule{{".", "/data/t"}}, "", "../x/f", "../x/f"},

		// Windows paths are local paths, whatever system reads them.
		{"windows rule, windows path", []Rule{{`C:\wh\t`, "/data/t"}}, "", `C:\wh\t\data\f.parquet`, "/data/t/data/f.parquet"},
		{"windows rule, mixed separators", []Rule{{`C:\wh\t`, "/data/t"}}, "", `C:\wh\t/data/f.parquet`, "/data/t/data/f.parquet"},
		{"windows rule, file URI", []Rule{{`C:\wh\t`, "/data/t"}}, "", "file:///C:/wh/t/data/f", "/data/t/data/f"},
		{"file URI rule, windows path", []Rule{{"file:/C:/wh/t", "/data/t"}}, "", `C:\wh\t\f`, "/data/t/f"},
		{"windows path is not relative", nil, "/base", `C:\wh\f`, `C:\wh\f`},
		{"windows dot-dot cannot step around a rule", []Rule{{`C:\wh\t`, "/data/t"}}, "", `C:\wh\t\..\u\f`, `C:\wh\t\..\u\f`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Remap(NewMem(), tc.rules...)
			if tc.base != "" {
				r = r.WithBase(tc.base)
			}
			want := tc.want
			if Scheme(want) == "" && want != tc.location {
				want = filepath.FromSlash(want)
			}
			if got := r.Map(tc.location); got != want {
				t.Errorf("Map(%q) = %q, want %q", tc.location, got, want)
			}
		})
	}
}

func TestRemapOpen(t *testing.T) {
	t.Parallel()
	mem := NewMem()
	mem.Put("/data/t/f", []byte("x"))
	r := Remap(mem, Rule{From: "hdfs://nn/wh/t", To: "/data/t"})
	ctx := context.Background()

	f, err := r.Open(ctx, "hdfs://nn/wh/t/f")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()

	_, err = r.Open(ctx, "hdfs://nn/wh/t/missing")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	// The error names the file as recorded, never the server's own path.
	if !strings.Contains(err.Error(), "hdfs://nn/wh/t/missing") || strings.Contains(err.Error(), "/data/t/missing") {
		t.Errorf("error %q does not name the recorded location alone", err)
	}
	if got := r.Rules(); len(got) != 1 || got[0].To != "/data/t" {
		t.Errorf("Rules = %v", got)
	}
}

// cleanPath and the join's shortcut must give what path.Clean and
// filepath.Join give, for clean paths and for every way of being unclean.
func TestCleanPathMatchesPathClean(t *testing.T) {
	t.Parallel()
	paths := []string{"/", "/a", "/a/b", "/a/b/", "//a", "/a//b", "/./a", "/a/.", "/a/./b", "/..", "/a/..",
		"/a/../b", "/a/b/..", "/.a", "/a./b", "/..a/b", "/a/..b", "/a/b.", "/a/b..", "/...", "/a/.../b", "a", "", "./a"}
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") {
			if isCleanPath(p) {
				t.Errorf("isCleanPath(%q) for a path without a root", p)
			}
			continue
		}
		if got, want := cleanPath(p), path.Clean(p); got != want {
			t.Errorf("cleanPath(%q) = %q, path.Clean gives %q", p, got, want)
		}
		if isCleanPath(p) != (path.Clean(p) == p) {
			t.Errorf("isCleanPath(%q) = %v, path.Clean gives %q", p, isCleanPath(p), path.Clean(p))
		}
		for _, prefix := range []string{"/w", "/w/x", "/w/", "/w/./x", "/"} {
			rest := path.Clean(p)
			if rest == "/" {
				rest = ""
			}
			if got, want := joinRest(prefix, rest), filepath.Join(prefix, filepath.FromSlash(rest)); got != want {
				t.Errorf("joinRest(%q, %q) = %q, filepath.Join gives %q", prefix, rest, got, want)
			}
		}
	}
}

// Each spelling a writer may record as a table's location maps the files
// it names below that location to the folder the table was found in, and
// a path that climbs out of the location with ".." never lands there.
func TestRemapEverySpellingOfATableLocation(t *testing.T) {
	t.Parallel()
	spellings := []struct{ name, location, sep string }{
		{"relative", "data/some/dir/t", "/"},
		{"./-relative", "./warehouse/t", "/"},
		{"bare absolute", "/wh/db/t", "/"},
		{"file:/", "file:/wh/db/t", "/"},
		{"file:///", "file:///wh/db/t", "/"},
		{"file://localhost/", "file://localhost/wh/db/t", "/"},
		{"hdfs", "hdfs://nn:8020/wh/db/t", "/"},
		{"s3a", "s3a://bucket/wh/db/t", "/"},
		{"windows", `C:\wh\db\t`, `\`},
	}
	const folder = "/srv/copy/t"
	for _, sp := range spellings {
		t.Run(sp.name, func(t *testing.T) {
			t.Parallel()
			r := Remap(NewMem(), Rule{From: sp.location, To: folder}).WithBase(folder)
			for rest, want := range map[string]string{
				"":                                   folder,
				"/metadata/snap-1-0.avro":            folder + "/metadata/snap-1-0.avro",
				"/data/p=1/00000-0.parquet":          folder + "/data/p=1/00000-0.parquet",
				"//metadata//x-m0.avro":              folder + "/metadata/x-m0.avro",
				"/data/../metadata/v1.metadata.json": folder + "/metadata/v1.metadata.json",
			} {
				loc := sp.location + strings.ReplaceAll(rest, "/", sp.sep)
				if got := r.Map(loc); got != filepath.FromSlash(want) {
					t.Errorf("Map(%q) = %q, want %q", loc, got, want)
				}
			}
			escape := sp.location + strings.ReplaceAll("/../../../../../etc/passwd", "/", sp.sep)
			if got := r.Map(escape); Within(got, folder) {
				t.Errorf("Map(%q) = %q, below the table folder", escape, got)
			}
		})
	}
}
