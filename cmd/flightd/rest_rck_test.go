package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/testkit/servers"
)

// rckEnv turns on TestRESTCompatibilityKit (make rck): it starts a flightd
// and a JVM per test of the kit, minutes in all.
const rckEnv = "ICEFLIGHT_RCK"

// rckResult is one test's line of javaref's rck.
type rckResult struct {
	Test   string `json:"test"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// rckTarget is a catalog the kit runs against, and what it claims.
type rckTarget struct {
	name  string
	serve func(t *testing.T) []string
	// flags are rck's: --warehouse for a prefix, --prop rck.*=... for
	// what the catalog does not do by design (the kit skips those tests).
	flags []string
}

// TestRESTCompatibilityKit runs Iceberg's own catalog tests (CatalogTests,
// as the REST Compatibility Kit runs them through Iceberg's REST client)
// against flightd --rest-listen, each test on a fresh server and
// warehouse so that one test's leftovers fail only itself. It reports a
// subtest per test of the kit and a tally line per catalog.
func TestRESTCompatibilityKit(t *testing.T) {
	if os.Getenv(rckEnv) == "" {
		t.Skipf("the REST Compatibility Kit runs with %s=1 (make rck): a flightd and a JVM per test, minutes in all", rckEnv)
	}
	jar := servers.Program(t, "JAVAREF_JAR", "javaref")
	list, err := exec.Command("java", "-cp", jar, "io.iceflight.javaref.Main", "rck", "--list").Output()
	if err != nil {
		t.Fatalf("rck --list: %v", err)
	}
	var methods []string
	for m := range strings.Lines(string(list)) {
		methods = append(methods, strings.TrimSpace(m))
	}
	for _, tg := range []rckTarget{
		// Iceberg Java's HadoopCatalog keeps no namespace properties, and a
		// folder's name holds no slash; the directory catalog does as it
		// does. (The kit has no claim for renames, which it refuses too.)
		{name: "directory", serve: func(t *testing.T) []string { return []string{"--warehouse", t.TempDir()} },
			flags: []string{"--prop", "rck.supports-namespace-properties=false", "--prop", "rck.supports-names-with-slashes=false"}},
		{name: "sql", serve: sqlConfig, flags: []string{"--warehouse", "jdbc"}},
	} {
		t.Run(tg.name, func(t *testing.T) {
			counts := map[string]int{}
			for _, m := range methods {
				t.Run(m, func(t *testing.T) {
					_, uri := serveREST(t, tg.serve(t)...)
					for _, r := range runRCK(t, jar, uri, tg.flags, m) {
						counts[r.Status]++
						switch r.Status {
						case "passed":
						case "skipped", "aborted":
							t.Logf("%s: %s: %s", r.Test, r.Status, r.Reason)
						default:
							t.Errorf("%s: %s", r.Test, r.Reason)
						}
					}
				})
			}
			fmt.Printf("rck %s: %d passed, %d failed, %d skipped\n", tg.name, counts["passed"], counts["failed"], counts["skipped"]+counts["aborted"])
		})
	}
}

// runRCK runs one test method of the kit against uri.
func runRCK(t *testing.T, jar, uri string, flags []string, method string) []rckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append([]string{"-cp", jar, "io.iceflight.javaref.Main", "rck", "--uri", uri, "--test", method}, flags...)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "java", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Exit 1 is a failed test, reported by its line.
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("rck --test %s: %v\n%s", method, err, stderr.String())
	}
	var out []rckResult
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("{")) {
			continue
		}
		var r rckResult
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("rck line %q: %v", line, err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		t.Fatalf("rck --test %s ran no test\n%s", method, stderr.String())
	}
	return out
}
