package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// The tests of this file drive Iceberg Java's own REST catalog client
// (RESTCatalog, through tools/javaref's restclient) against flightd
// --rest-listen, and hold what Java sees to what iceflight's Flight front
// end serves from the same process: issue 29's "Iceberg Java reads,
// writes and evolves tables through --rest-listen".

// serveREST runs "flightd serve" in-process with args, its Flight and REST
// front ends on free loopback ports, and returns a Flight client and the
// REST catalog's URI.
func serveREST(t *testing.T, args ...string) (flight.Client, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	all := append([]string{"serve", "--listen", "127.0.0.1:0", "--rest-listen", "127.0.0.1:0", "--log-level", "error"}, args...)
	go func() {
		done <- run(ctx, all, pw, os.Stderr)
		pw.Close()
	}()
	// The Flight address comes first, then the REST catalog's, with a
	// line between.
	rd := bufio.NewReader(pr)
	var grpcAddr, restURI string
	for grpcAddr == "" || restURI == "" {
		line, err := rd.ReadString('\n')
		if err != nil {
			cancel()
			t.Fatalf("flightd did not start: %v (exit %d)", err, <-done)
		}
		if m := regexp.MustCompile(`Iceberg REST catalog on (http://\S+)`).FindStringSubmatch(line); m != nil {
			restURI = m[1]
		}
		if m := regexp.MustCompile(`grpc://(\S+)`).FindStringSubmatch(line); m != nil {
			grpcAddr = m[1]
		}
	}
	go io.Copy(io.Discard, rd)
	fc, err := flight.NewClientWithMiddleware(grpcAddr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fc.Close()
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
	return fc, restURI
}

// javaStep is what restclient printed for one step
// (tools/javaref/.../RestSteps.java).
type javaStep struct {
	Op               string            `json:"op"`
	Error            *javaError        `json:"error"`
	Namespaces       [][]string        `json:"namespaces"`
	Tables           [][]string        `json:"tables"`
	SnapshotID       *int64            `json:"snapshot_id"`
	SnapshotIDs      []int64           `json:"snapshot_ids"`
	Schema           json.RawMessage   `json:"schema"`
	Rows             []json.RawMessage `json:"rows"`
	Scan             string            `json:"scan"`
	Remapped         bool              `json:"remapped"`
	MetadataLocation string            `json:"metadata_location"`
	Location         string            `json:"location"`
	Dropped          bool              `json:"dropped"`
}

// javaError is the exception a step raised.
type javaError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func (e *javaError) Error() string { return e.Type + ": " + e.Message }

// step is one step of a restclient script.
type step map[string]any

// runJava runs steps with Iceberg Java's RESTCatalog against the REST
// catalog at uri (flags: --credential, --warehouse, --prop, --remap) and
// returns a line per step; a failed step is in its Error, not t's.
func runJava(t *testing.T, uri string, flags []string, steps ...step) []javaStep {
	t.Helper()
	jar := servers.Program(t, "JAVAREF_JAR", "javaref")
	script, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"-cp", jar, "io.iceflight.javaref.Main", "restclient", "--uri", uri}, flags...)
	cmd := exec.CommandContext(ctx, "java", append(args, "--steps", "-")...)
	cmd.Stdin = bytes.NewReader(script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("restclient %s: %v\n%s", strings.Join(flags, " "), err, stderr.String())
	}
	var out []javaStep
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var s javaStep
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("restclient output: %v\n%s", err, stderr.String())
		}
		out = append(out, s)
	}
	if len(out) != len(steps) {
		t.Fatalf("restclient printed %d results for %d steps\n%s", len(out), len(steps), stderr.String())
	}
	return out
}

// ok fails t when Java's step failed.
func (s javaStep) ok(t *testing.T, what string) javaStep {
	t.Helper()
	if s.Error != nil {
		t.Fatalf("Iceberg Java, %s: %v", what, s.Error)
	}
	return s
}

// schema is the Iceberg schema Java read or loaded.
func (s javaStep) schema(t *testing.T) *iceberg.Schema {
	t.Helper()
	var sc iceberg.Schema
	if err := json.Unmarshal(s.Schema, &sc); err != nil {
		t.Fatalf("%s: schema %s: %v", s.Op, s.Schema, err)
	}
	return &sc
}

// rows renders the rows Java read or wrote in canonical form.
func (s javaStep) rows(t *testing.T, schema *iceberg.Schema) []string {
	t.Helper()
	out := make([]string, 0, len(s.Rows))
	for _, r := range s.Rows {
		row, err := testutil.OracleRow(schema, r)
		if err != nil {
			t.Fatalf("%s: row %s: %v", s.Op, r, err)
		}
		out = append(out, row)
	}
	return out
}

// flightTables lists the tables flightd serves over Flight, each as its
// namespace levels and name.
func flightTables(ctx context.Context, t *testing.T, fc flight.Client) [][]string {
	t.Helper()
	stream, err := fc.ListFlights(ctx, &flight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for {
		fi, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fi.FlightDescriptor.Path)
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(strings.Join(a, "."), strings.Join(b, ".")) })
	return out
}

// readFlightRows reads a table's current snapshot through Flight in
// canonical form, checking the served schema against schema.
func readFlightRows(ctx context.Context, fc flight.Client, table []string, schema *iceberg.Schema) ([]string, error) {
	return scanRows(ctx, fc, testutil.PathDesc(table...), schema)
}

// readsCase is a warehouse whose every table Java reads through REST.
type readsCase struct {
	name string
	// warehouse makes the warehouse flightd serves, a copy: Java's reads
	// must not be able to reach the files the copy was made from.
	warehouse func(t *testing.T) string
	// javaFlags are restclient's flags besides --uri.
	javaFlags []string
	// reader is restclient's reader: "generics" (IcebergGenerics) or
	// "oracle" (the oracle's, which also applies name mappings and key
	// metadata, as the corpus's tables need).
	reader string
	// oracle is the folder of the oracle's index of each table, named as
	// Flight names it below the case's namespace strip: a table Java
	// cannot read is a failure unless the oracle could not either.
	oracle, strip string
}

// copiedWarehouse copies testdata/warehouse.
func copiedWarehouse(t *testing.T) string {
	dst := t.TempDir()
	testutil.CopyTree(t, filepath.Join("..", "..", "testdata", "warehouse"), dst)
	return dst
}

// copiedCorpus copies the conformance corpus's tables into namespace
// "corpus": its tables lie at the corpus's root, and a REST catalog names
// no table outside a namespace.
func copiedCorpus(t *testing.T) string {
	needCorpus(t, "conformance rest java")
	dst := t.TempDir()
	testutil.CopyTree(t, conformanceDir, filepath.Join(dst, "corpus"))
	return dst
}

// TestRESTJavaReadsEqualFlightReads lists every namespace and table of a
// warehouse with Iceberg Java's RESTCatalog and reads every table with
// IcebergGenerics; Java's listing must be Flight's, and its rows
// iceflight's Flight read of the same table.
//
// The tables of both warehouses were copied from elsewhere: their metadata
// names files where they were written. Iceberg Java opens those paths as
// they are, so restclient reads such a table as the oracle does (--remap:
// the metadata file the REST catalog named, the recorded location mapped
// onto its folder); its metadata, listing and snapshot still come through
// REST.
func TestRESTJavaReadsEqualFlightReads(t *testing.T) {
	t.Parallel()
	for _, tc := range []readsCase{
		{name: "sample warehouse", warehouse: copiedWarehouse, javaFlags: []string{"--remap"}, reader: "generics",
			oracle: filepath.Join("..", "..", "testdata", "expected")},
		{name: "conformance corpus", warehouse: copiedCorpus, javaFlags: []string{"--remap"}, reader: "oracle",
			oracle: filepath.Join("..", "..", "testdata", "conformance"), strip: "corpus."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fc, uri := serveREST(t, "--warehouse", tc.warehouse(t), "--read-only")
			checkJavaReads(t, fc, uri, tc)
		})
	}
}

// oracleFailed returns why the oracle could not read table's current
// snapshot, or "" when it could.
func oracleFailed(t *testing.T, tc readsCase, table string) string {
	t.Helper()
	var idx oracleIndex
	testutil.ReadJSON(t, filepath.Join(tc.oracle, strings.TrimPrefix(table, tc.strip), "index.json"), &idx)
	for _, sc := range idx.Scans {
		if sc.Name == "current" {
			return sc.Error
		}
	}
	return "no current scan in its index"
}

// checkJavaReads compares Java's listing and reads of every table with
// Flight's.
func checkJavaReads(t *testing.T, fc flight.Client, uri string, tc readsCase) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tables := flightTables(ctx, t, fc)
	var namespaces [][]string
	steps := []step{{"op": "namespaces"}}
	for _, tb := range tables {
		ns := tb[:len(tb)-1]
		if !slices.ContainsFunc(namespaces, func(n []string) bool { return slices.Equal(n, ns) }) {
			namespaces = append(namespaces, ns)
			steps = append(steps, step{"op": "tables", "namespace": ns})
		}
	}
	for _, tb := range tables {
		steps = append(steps, step{"op": "read", "table": tb, "reader": tc.reader})
	}
	got := runJava(t, uri, tc.javaFlags, steps...)

	if !slices.EqualFunc(got[0].ok(t, "list namespaces").Namespaces, namespaces, slices.Equal) {
		t.Errorf("Iceberg Java lists namespaces %v, Flight's tables lie in %v", got[0].Namespaces, namespaces)
	}
	var listed [][]string
	for _, s := range got[1 : 1+len(namespaces)] {
		listed = append(listed, s.ok(t, "list tables").Tables...)
	}
	if !slices.EqualFunc(listed, tables, slices.Equal) {
		t.Errorf("Iceberg Java lists tables %v, Flight %v", listed, tables)
	}

	var equal, remapped, unimplemented, unreadable int
	for i, read := range got[1+len(namespaces):] {
		name := strings.Join(tables[i], ".")
		if read.Error != nil {
			if why := oracleFailed(t, tc, name); why != "" {
				unreadable++
				t.Logf("%s: Iceberg Java cannot read it through REST (%v), nor could the oracle (%s)", name, read.Error, why)
				continue
			}
			t.Errorf("%s: Iceberg Java could not read it through REST: %v", name, read.Error)
			continue
		}
		schema := read.schema(t)
		flightRows, err := readFlightRows(ctx, fc, tables[i], schema)
		if status.Code(err) == codes.Unimplemented {
			unimplemented++
			t.Logf("%s: Flight refuses it as Unimplemented: %v", name, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: Flight read: %v", name, err)
			continue
		}
		if d := testutil.DiffRows(flightRows, read.rows(t, schema)); d != "" {
			t.Errorf("%s: Flight's rows differ from Iceberg Java's through REST: %s", name, d)
			continue
		}
		equal++
		if read.Remapped {
			remapped++
		}
	}
	fmt.Printf("rest java reads %s: %d/%d tables equal (%d read through the remapped folder); %d the oracle cannot read either; %d refused by Flight as Unimplemented\n",
		t.Name(), equal, len(tables), remapped, unreadable, unimplemented)
}
