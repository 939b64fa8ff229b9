package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// oracleIndex is the index.json the Java oracle writes per table
// (testdata/conformance/README.md).
type oracleIndex struct {
	Table             string      `json:"table"`
	FormatVersion     int         `json:"format_version"`
	CurrentSnapshotID *int64      `json:"current_snapshot_id"`
	Scans             []oracleRun `json:"scans"`
}

type oracleRun struct {
	Name       string          `json:"name"`
	SnapshotID *int64          `json:"snapshot_id"`
	Schema     json.RawMessage `json:"schema"`
	Rows       int             `json:"rows"`
	File       string          `json:"file"`
	Error      string          `json:"error"`
}

// startFlightd runs "flightd serve" in-process on a free loopback port and
// returns a Flight client connected to it over real gRPC.
func startFlightd(t *testing.T, warehouse string, extra ...string) flight.Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	args := append([]string{"serve", "--warehouse", warehouse, "--listen", "127.0.0.1:0", "--log-level", "error"}, extra...)
	go func() {
		done <- run(ctx, args, pw, os.Stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("flightd did not start: %v (exit %d)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`grpc://(\S+)`).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("flightd printed %q, want its address", line)
	}
	client, err := flight.NewClientWithMiddleware(m[1], nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.Close()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("flightd exited with %d", code)
			}
		case <-time.After(30 * time.Second):
			t.Error("flightd did not stop within 30s of cancellation")
		}
	})
	return client
}

// scanRows plans desc and reads every endpoint, returning rows in canonical
// form.
func scanRows(ctx context.Context, client flight.Client, desc *flight.FlightDescriptor, schema *iceberg.Schema) ([]string, error) {
	info, err := client.GetFlightInfo(ctx, desc)
	if err != nil {
		return nil, err
	}
	if err := sameFields(info.Schema, schema); err != nil {
		return nil, err
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	var rows []string
	for _, ep := range info.Endpoint {
		stream, err := client.DoGet(ctx, ep.Ticket)
		if err != nil {
			return nil, err
		}
		rdr, err := flight.NewRecordReader(stream, ipc.WithAllocator(mem))
		if err != nil {
			return nil, err
		}
		for rdr.Next() {
			got, err := testutil.ArrowRows(schema, rdr.RecordBatch())
			if err != nil {
				rdr.Release()
				return nil, err
			}
			rows = append(rows, got...)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return nil, err
		}
	}
	if mem.CurrentAlloc() != 0 {
		return nil, fmt.Errorf("client allocator holds %d bytes after the streams were released", mem.CurrentAlloc())
	}
	return rows, nil
}

// sameFields checks that the served Arrow schema has the oracle schema's
// top-level names and field ids, in order.
func sameFields(serialized []byte, schema *iceberg.Schema) error {
	got, err := flight.DeserializeSchema(serialized, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	want, err := iceberg.ArrowSchema(schema)
	if err != nil {
		return err
	}
	if !got.Equal(want) {
		return fmt.Errorf("served schema\n%v\nwant (from the oracle's schema)\n%v", got, want)
	}
	for i, f := range want.Fields() {
		if !got.Field(i).Metadata.Equal(f.Metadata) {
			return fmt.Errorf("column %s: metadata %v, want %v", f.Name, got.Field(i).Metadata, f.Metadata)
		}
	}
	return nil
}

// oracleRows reads the oracle's rows of one scan in canonical form.
func oracleRows(path string, schema *iceberg.Schema) ([]string, error) {
	return testutil.OracleFile(schema, path)
}

// tally counts outcomes across an oracle comparison.
type tally struct {
	mu                             sync.Mutex
	tables, tablesEqual            int
	scans, scansEqual, unsupported int
	oracleFailed                   int
	unsupportedWhy                 map[string]int
}

func (t *tally) String() string {
	var why []string
	for k, n := range t.unsupportedWhy {
		why = append(why, fmt.Sprintf("%d× %s", n, k))
	}
	sort.Strings(why)
	line := fmt.Sprintf("%d/%d tables, %d/%d snapshots equal; %d scans refused as Unimplemented; %d scans the oracle itself could not read",
		t.tablesEqual, t.tables, t.scansEqual, t.scans, t.unsupported, t.oracleFailed)
	if len(why) > 0 {
		line += "\n  unimplemented: " + strings.Join(why, "; ")
	}
	return line
}

// unsupportedKind shortens an Unimplemented message to its reason.
var unsupportedKind = regexp.MustCompile(`unsupported: ([a-zA-Z ]+?)(?: in | data file|$)`)

// compareWithOracle serves warehouse with flightd and checks every scan the
// oracle recorded under expectedDir. A scan may be refused as Unimplemented
// (a feature not built yet) but never return rows that differ.
func compareWithOracle(t *testing.T, warehouse, expectedDir string, extra ...string) *tally {
	t.Helper()
	return compareServedWithOracle(t, startFlightd(t, warehouse, extra...), "", expectedDir)
}

// manifestLevel are the flightd flags that plan every scan without a row
// limit at the manifest level, so that the oracle tallies run through the
// path huge tables take, not only through file-level plans.
var manifestLevel = []string{"--manifest-tickets-above", "0"}

// filesInParallel are the flightd flags that plan every scan without a row
// limit file by file with its manifest groups planned in parallel, as a
// large plan whose command asks for files is.
var filesInParallel = []string{"--manifest-tickets-above", "0", "--large-plan-tickets", "files"}

// compareServedWithOracle checks every scan the oracle recorded under
// expectedDir against the flightd client is connected to, naming each
// table with prefix before the oracle's name ("lake." for a table of the
// configured catalog lake).
func compareServedWithOracle(t *testing.T, client flight.Client, prefix, expectedDir string) *tally {
	t.Helper()
	entries, err := os.ReadDir(expectedDir)
	if err != nil {
		t.Fatalf("oracle output: %v", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return compareServed(t, client, prefix, expectedDir, names)
}

// compareServed checks every scan the oracle recorded under expectedDir
// for each of the tables names (folders of expectedDir) against what
// client serves, each table named with prefix before it (a mounted
// catalog's name and a dot, or "" for --warehouse).
func compareServed(t *testing.T, client flight.Client, prefix, expectedDir string, names []string) *tally {
	t.Helper()
	tl := &tally{unsupportedWhy: map[string]int{}}
	t.Run("tables", func(t *testing.T) {
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				checkTable(t, client, prefix, filepath.Join(expectedDir, name), tl)
			})
		}
	})
	return tl
}

func checkTable(t *testing.T, client flight.Client, prefix, dir string, tl *tally) {
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx oracleIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	allEqual := true
	for _, sc := range idx.Scans {
		if sc.Error != "" {
			tl.mu.Lock()
			tl.oracleFailed++
			tl.mu.Unlock()
			t.Logf("%s: the oracle could not read it (%s); not compared", sc.Name, sc.Error)
			continue
		}
		var schema iceberg.Schema
		if err := json.Unmarshal(sc.Schema, &schema); err != nil {
			t.Fatalf("%s: oracle schema: %v", sc.Name, err)
		}
		table := prefix + idx.Table
		desc := &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{table}}
		if sc.Name != "current" {
			cmd, _ := json.Marshal(map[string]any{"table": table, "snapshot_id": *sc.SnapshotID})
			desc = &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd}
		}
		got, err := scanRows(ctx, client, desc, &schema)
		tl.mu.Lock()
		tl.scans++
		tl.mu.Unlock()
		if status.Code(err) == codes.Unimplemented {
			reason := status.Convert(err).Message()
			if m := unsupportedKind.FindStringSubmatch(reason); m != nil {
				reason = m[1]
			}
			tl.mu.Lock()
			tl.unsupported++
			tl.unsupportedWhy[reason]++
			tl.mu.Unlock()
			allEqual = false
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			allEqual = false
			continue
		}
		want, err := oracleRows(filepath.Join(dir, sc.File), &schema)
		if err != nil {
			t.Fatal(err)
		}
		if d := testutil.DiffRows(got, want); d != "" {
			t.Errorf("%s: rows differ from the Java oracle: %s", sc.Name, d)
			allEqual = false
			continue
		}
		tl.mu.Lock()
		tl.scansEqual++
		tl.mu.Unlock()
	}
	tl.mu.Lock()
	tl.tables++
	if allEqual {
		tl.tablesEqual++
	}
	tl.mu.Unlock()
}

// conformanceDir is the shared corpus of tables written by other engines.
var conformanceDir = filepath.Join("..", "..", "..", "shared", "conformance", "tables")

// needCorpus skips a test of the conformance corpus when it is absent,
// saying so on a line of its own that make's tally filter keeps: a skipped
// corpus must be as visible as a failed one.
// oracleTable is a table of the oracle's output: its name and the metadata
// file, relative to the table's folder, that the oracle read.
type oracleTable struct {
	Table        string `json:"table"`
	MetadataFile string `json:"metadata_file"`
}

// oracleTables lists the tables of the oracle's output under expectedDir,
// for a test that registers each in a catalog by its metadata file.
func oracleTables(t *testing.T, expectedDir string) []oracleTable {
	t.Helper()
	entries, err := os.ReadDir(expectedDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []oracleTable
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		var idx oracleTable
		testutil.ReadJSON(t, filepath.Join(expectedDir, e.Name(), "index.json"), &idx)
		if idx.Table == "" || idx.MetadataFile == "" {
			t.Fatalf("the oracle's index of %s names no table or metadata file", e.Name())
		}
		out = append(out, idx)
	}
	return out
}

func needCorpus(t *testing.T, label string) {
	t.Helper()
	if _, err := os.Stat(conformanceDir); errors.Is(err, os.ErrNotExist) {
		fmt.Printf("%s: SKIPPED: the conformance corpus is not at %s (the shared folder beside the checkout)\n", label, conformanceDir)
		t.Skipf("conformance corpus not found at %s: skipping", conformanceDir)
	}
}

// printTally prints a tally with label before each of its lines, so that
// make's filter of the test output keeps the whole of it.
func printTally(label string, tl fmt.Stringer) {
	for line := range strings.SplitSeq(tl.String(), "\n") {
		fmt.Printf("%s: %s\n", label, line)
	}
}

func TestConformanceCorpusMatchesJavaOracle(t *testing.T) {
	needCorpus(t, "conformance")
	tl := compareWithOracle(t, conformanceDir, filepath.Join("..", "..", "testdata", "conformance"))
	printTally("conformance", tl)
}

func TestConformanceCorpusAtManifestLevelMatchesJavaOracle(t *testing.T) {
	needCorpus(t, "conformance manifest-level")
	tl := compareWithOracle(t, conformanceDir, filepath.Join("..", "..", "testdata", "conformance"), manifestLevel...)
	printTally("conformance manifest-level", tl)
}

func TestConformanceCorpusPlannedInParallelMatchesJavaOracle(t *testing.T) {
	needCorpus(t, "conformance groups in parallel")
	tl := compareWithOracle(t, conformanceDir, filepath.Join("..", "..", "testdata", "conformance"), filesInParallel...)
	printTally("conformance groups in parallel", tl)
}

func TestSampleWarehouseMatchesJavaOracle(t *testing.T) {
	for _, level := range []struct {
		label string
		extra []string
	}{{"sample warehouse", nil}, {"sample warehouse manifest-level", manifestLevel}, {"sample warehouse groups in parallel", filesInParallel}} {
		tl := compareWithOracle(t, filepath.Join("..", "..", "testdata", "warehouse"), filepath.Join("..", "..", "testdata", "expected"), level.extra...)
		printTally(level.label, tl)
		if tl.scansEqual != tl.scans {
			t.Errorf("%s: every sample scan must read back equal: %s", level.label, tl)
		}
	}
}
