// Package layout checks the import rules of the team map (DESIGN.md,
// "Packages"): arrows point one way, so no package imports one above it.
package layout

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/iceflight/iceflight"

// pkg is what `go list -json` says of a package, test imports included.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages: not the module", len(pkgs))
	}
	return pkgs
}

// rel is a module package's path below the module ("engine", "iceberg/expr").
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// in reports whether package path p is room or below it.
func in(p, room string) bool { return p == room || strings.HasPrefix(p, room+"/") }

// rule refuses imports of to by from, for non-test code or for tests too.
type rule struct {
	why      string
	from, to func(string) bool
	tests    bool
}

func rooms(names ...string) func(string) bool {
	return func(p string) bool {
		for _, n := range names {
			if in(p, n) {
				return true
			}
		}
		return false
	}
}

var frontEnds = []string{"flight", "flightsql", "restcatalog"}

var rules = []rule{
	{why: "internal/ is the ground floor: it imports nothing else of the module",
		from: rooms("internal"), to: func(p string) bool { return !in(p, "internal") }, tests: true},
	{why: "planner and reader meet only in scan tasks and tickets",
		from: rooms("planner"), to: rooms("reader"), tests: true},
	{why: "planner and reader meet only in scan tasks and tickets",
		from: rooms("reader"), to: rooms("planner"), tests: true},
	{why: "the engine serves every front end and imports none",
		from: rooms("engine"), to: rooms(append(frontEnds, "cmd")...)},
	{why: "the core below the engine does not know the engine, the front ends or flightd",
		from: rooms("planner", "reader", "writer", "catalog", "iceberg", "fileio", "pqcodec", "proto"),
		to:   rooms(append(frontEnds, "engine", "cmd")...)},
	{why: "the table format and storage are below planning, reading and catalogs",
		from: rooms("iceberg", "fileio", "pqcodec"), to: rooms("planner", "reader", "writer", "catalog")},
	{why: "the wire form of the write API imports nothing of iceflight",
		from: rooms("proto/actions"), to: func(string) bool { return true }},
	{why: "test support is for tests: no package's own code imports it",
		from: func(string) bool { return true }, to: rooms("testkit")},
}

func TestImportsPointOneWay(t *testing.T) {
	for _, p := range listPackages(t) {
		from, ok := rel(p.ImportPath)
		if !ok || in(from, "tests") || in(from, "testkit") || in(from, "bench") || in(from, "tools") {
			continue
		}
		check := func(imports []string, test bool) {
			for _, imp := range imports {
				to, ok := rel(imp)
				if !ok || to == from {
					continue
				}
				for _, r := range rules {
					if test && !r.tests {
						continue
					}
					if r.from(from) && r.to(to) {
						t.Errorf("%s imports %s: %s", from, to, r.why)
					}
				}
			}
		}
		check(p.Imports, false)
		check(p.TestImports, true)
		check(p.XTestImports, true)
	}
}

// Front ends are adapters over the engine: none imports another, tests
// included, so a third is built on the core rather than beside the others.
func TestNoFrontEndImportsAnother(t *testing.T) {
	for _, p := range listPackages(t) {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		for _, fe := range frontEnds {
			if !in(from, fe) {
				continue
			}
			for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
				to, _ := rel(imp)
				for _, other := range frontEnds {
					if other != fe && in(to, other) {
						t.Errorf("front end %s imports front end %s", from, to)
					}
				}
			}
		}
	}
}
