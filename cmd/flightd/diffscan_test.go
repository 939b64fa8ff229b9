package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/tests/diffscan"
)

// diffscanDir holds the differential seed set and its regression cases.
var diffscanDir = filepath.Join("..", "..", "testdata", "diffscan")

// diffSet is a warehouse the differential scans read, with the plain
// oracle output the generator draws values from.
type diffSet struct {
	name, root, expected string
}

var diffSets = []diffSet{
	{"warehouse", filepath.Join("..", "..", "testdata", "warehouse"), filepath.Join("..", "..", "testdata", "expected")},
	{"conformance", conformanceDir, filepath.Join("..", "..", "testdata", "conformance")},
}

// present reports whether the set's warehouse is here, printing a line the
// tally filter keeps when it is not.
func (s diffSet) present(label string) bool {
	if _, err := os.Stat(s.root); err != nil {
		fmt.Printf("%s: SKIPPED the %s scans: %s is absent\n", label, s.name, s.root)
		return false
	}
	return true
}

// diffTally counts the outcomes of differential scans.
type diffTally struct {
	mu                 sync.Mutex
	total, equal, diff int
	bothRefuse         int
	javaPruning        int
	skipped            map[string]int
}

// verdict is the outcome of one scan: equal, skipped for a reason, or a
// difference.
type verdict struct {
	skip, diff string
	// refused: both sides refused the scan; unpruned: iceflight equals Java's
	// answer without pruning.
	refused, unpruned bool
}

func (d *diffTally) add(v verdict) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.total++
	switch {
	case v.diff != "":
		d.diff++
	case v.skip != "":
		if d.skipped == nil {
			d.skipped = map[string]int{}
		}
		d.skipped[v.skip]++
	default:
		d.equal++
		if v.refused {
			d.bothRefuse++
		}
		if v.unpruned {
			d.javaPruning++
		}
	}
}

func (d *diffTally) String() string {
	var why []string
	n := 0
	for k, c := range d.skipped {
		why = append(why, fmt.Sprintf("%d× %s", c, k))
		n += c
	}
	sort.Strings(why)
	return fmt.Sprintf("%d/%d scans equal to the Java oracle (%d refused by both, %d equal to Java's unpruned answer where its UUID pruning drops a file); %d differences; %d skipped%s",
		d.equal, d.total, d.bothRefuse, d.javaPruning, d.diff, n, noteLines(why))
}

// diffServers are flightd processes on one warehouse, one per batch size of
// diffscan.BatchSizes.
type diffServers map[int]flight.Client

func startDiffServers(t *testing.T, warehouse string, extra ...string) diffServers {
	t.Helper()
	s := diffServers{}
	for _, b := range diffscan.BatchSizes {
		args := slices.Clone(extra)
		if b > 0 {
			args = append(args, "--batch-rows", strconv.Itoa(b))
		}
		s[b] = startFlightd(t, warehouse, args...)
	}
	return s
}

// javaRefusal is the exception class of an oracle error: how a skip names
// what Java refused.
var javaRefusal = regexp.MustCompile(`^[\w.]*?(\w+): (.{0,48})`)

// checkCase runs one scan through flightd and compares it with the oracle's
// answer. A limit leaves the row set open: the count must be the limit (or
// every row) and each row served must be in the unlimited answer.
func checkCase(ctx context.Context, servers diffServers, c *diffscan.Case) verdict {
	client, ok := servers[c.Scan.BatchRows]
	if !ok {
		client = servers[0]
	}
	cmd, err := c.Scan.Command()
	if err != nil {
		return verdict{diff: err.Error()}
	}
	desc := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd}
	if c.Oracle.Error != "" {
		_, err := client.GetFlightInfo(ctx, desc)
		switch status.Code(err) {
		case codes.InvalidArgument, codes.NotFound:
			return verdict{refused: true}
		case codes.OK:
			m := javaRefusal.FindStringSubmatch(c.Oracle.Error)
			if m == nil {
				m = []string{"", c.Oracle.Error, ""}
			}
			return verdict{skip: fmt.Sprintf("Java refuses (%s: %s...), iceflight answers", m[1], m[2])}
		case codes.Unimplemented:
			return verdict{skip: "both refuse, iceflight as unimplemented: " + unimplemented(err)}
		}
		return verdict{diff: fmt.Sprintf("Java refuses (%.80s), iceflight fails: %v", c.Oracle.Error, err)}
	}
	var schema iceberg.Schema
	if err := json.Unmarshal(c.Oracle.Schema, &schema); err != nil {
		return verdict{diff: "oracle schema: " + err.Error()}
	}
	schema = *requestedOrder(&schema, c.Scan.Columns)
	got, err := scanRows(ctx, client, desc, &schema)
	if status.Code(err) == codes.Unimplemented {
		return verdict{skip: "iceflight: unimplemented " + unimplemented(err)}
	}
	if err != nil {
		return verdict{diff: fmt.Sprintf("iceflight fails where Java answers %d rows: %v", len(c.Oracle.Rows), err)}
	}
	want, err := canonical(&schema, c.Oracle.Rows)
	if err != nil {
		return verdict{diff: err.Error()}
	}
	d := sameAnswer(got, want, c.Scan.Limit)
	if d == "" {
		return verdict{}
	}
	if c.Oracle.UnprunedRows != nil {
		unpruned, err := canonical(&schema, c.Oracle.UnprunedRows)
		if err != nil {
			return verdict{diff: err.Error()}
		}
		if sameAnswer(got, unpruned, c.Scan.Limit) == "" {
			return verdict{unpruned: true}
		}
	}
	return verdict{diff: d}
}

// sameAnswer compares a served answer with the oracle's, "" when they agree.
func sameAnswer(got, want []string, limit *int64) string {
	if limit == nil {
		return testutil.DiffRows(got, want)
	}
	n := min(int(*limit), len(want))
	switch {
	case len(got) != n:
		return fmt.Sprintf("limit %d: got %d rows, want %d of the oracle's %d", *limit, len(got), n, len(want))
	case !subset(got, want):
		return fmt.Sprintf("limit %d: rows not in the unlimited answer: %s", *limit, testutil.DiffRows(got, want))
	}
	return ""
}

func canonical(schema *iceberg.Schema, rows []json.RawMessage) ([]string, error) {
	out := make([]string, len(rows))
	for i, r := range rows {
		var err error
		if out[i], err = testutil.OracleRow(schema, r); err != nil {
			return nil, fmt.Errorf("oracle row %d: %w", i, err)
		}
	}
	return out, nil
}

func unimplemented(err error) string {
	reason := status.Convert(err).Message()
	if m := unsupportedKind.FindStringSubmatch(reason); m != nil {
		return m[1]
	}
	return fmt.Sprintf("%.60s", reason)
}

// describe is a difference with the scan that shows it, for a test log.
func describe(c *diffscan.Case, diff string) string {
	cmd, _ := c.Scan.Command()
	return fmt.Sprintf("%s: %s\n  command: %s (batch rows %d)", c.Scan.Name, diff, cmd, c.Scan.BatchRows)
}

// runCases checks cases against servers in parallel subtests, reporting
// every difference as a test error and through onDiff.
func runCases(t *testing.T, servers diffServers, cases []diffscan.Case, tl *diffTally, onDiff func(*diffscan.Case)) {
	t.Run("scans", func(t *testing.T) {
		for i := range cases {
			c := &cases[i]
			t.Run(c.Scan.Name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				v := checkCase(ctx, servers, c)
				tl.add(v)
				if v.diff != "" {
					t.Error(describe(c, v.diff))
					if onDiff != nil {
						onDiff(c)
					}
				}
			})
		}
	})
}

// TestDiffscanSampleAndConformanceMatchJavaOracle runs the checked-in seed
// set (make diffscan-expected) and the saved regression cases, on servers
// that plan file by file and on servers that plan at the manifest level.
func TestDiffscanSampleAndConformanceMatchJavaOracle(t *testing.T) {
	t.Run("file-level", func(t *testing.T) { runDiffSets(t, "diffscan") })
	t.Run("manifest-level", func(t *testing.T) { runDiffSets(t, "diffscan manifest-level", manifestLevel...) })
}

// runDiffSets runs the seed sets and their regressions on flightd started
// with extra and prints the tally labelled label.
func runDiffSets(t *testing.T, label string, extra ...string) {
	tl := &diffTally{}
	for _, set := range diffSets {
		if !set.present("diffscan") {
			continue
		}
		cases, err := diffscan.ReadSeeds(diffscan.SeedFile(diffscanDir, set.name))
		if err != nil {
			t.Fatalf("seed set (make diffscan-expected): %v", err)
		}
		saved, err := diffscan.ReadRegressions(diffscan.RegressionDir(diffscanDir, set.name))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(set.name, func(t *testing.T) {
			runCases(t, startDiffServers(t, set.root, extra...), append(cases, saved...), tl, nil)
		})
	}
	printTally(label, tl)
}

// TestFuzzScanAgainstJavaOracle is make fuzz-scan: for $DIFFSCAN_FUZZTIME
// it generates new scans (from $DIFFSCAN_SEED on, else a seed from the
// clock), has the Java oracle answer them and compares flightd's answers;
// a difference is saved as a regression case, which the seed-set test then
// runs.
func TestFuzzScanAgainstJavaOracle(t *testing.T) {
	budget, err := time.ParseDuration(os.Getenv("DIFFSCAN_FUZZTIME"))
	if err != nil || budget <= 0 {
		t.Skip("set DIFFSCAN_FUZZTIME (make fuzz-scan) to run")
	}
	seed := uint64(time.Now().UnixNano() % 1_000_000_000)
	if s := os.Getenv("DIFFSCAN_SEED"); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("DIFFSCAN_SEED: %v", err)
		}
	}
	jar := os.Getenv("DIFFSCAN_JAR")
	if jar == "" {
		jar = filepath.Join("..", "..", "tools", "javaref", "target", "javaref.jar")
	}
	const batch = 200
	type ready struct {
		set     diffSet
		tables  []*diffscan.Table
		servers diffServers
		oracle  *diffscan.Oracle
	}
	var sets []ready
	for _, set := range diffSets {
		if !set.present("fuzz-scan") {
			continue
		}
		tables, err := diffscan.LoadTables(set.root, set.expected)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, ready{set, tables, startDiffServers(t, set.root), &diffscan.Oracle{Jar: jar, Root: set.root}})
	}
	tl := &diffTally{}
	start := time.Now()
	var saved []string
	var mu sync.Mutex
	round := uint64(0)
	for ; time.Since(start) < budget; round++ {
		s := sets[round%uint64(len(sets))]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cases, err := s.oracle.Answer(ctx, diffscan.Generate(s.tables, seed+round, batch))
		cancel()
		if err != nil {
			t.Fatalf("seed %d: %v", seed+round, err)
		}
		dir := diffscan.RegressionDir(diffscanDir, s.set.name)
		runCases(t, s.servers, cases, tl, func(c *diffscan.Case) {
			if err := diffscan.WriteRegression(dir, c); err != nil {
				t.Error(err)
			}
			mu.Lock()
			saved = append(saved, filepath.Join(dir, c.Scan.Name+".json"))
			mu.Unlock()
		})
	}
	printTally("fuzz-scan", tl)
	fmt.Printf("fuzz-scan: %d scans in %s, seeds %d..%d (%d a seed); %d differences saved%s\n",
		tl.total, time.Since(start).Round(time.Second), seed, seed+round-1, batch, len(saved), noteLines(saved))
}
