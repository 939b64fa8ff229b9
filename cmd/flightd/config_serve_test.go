package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// plantedSecret is a secret the tests configure and then look for
// everywhere a server shows something.
const plantedSecret = "pl4nted-s3cret-9f2e"

// localCatalogs is a configuration of two directory catalogs over the
// bundled warehouse, by a relative path (as the README's example) and by a
// file:// URI, with secrets among their properties (unused by the local
// file system, as a copied .pyiceberg.yaml would carry them).
func localCatalogs(t *testing.T) string {
	t.Helper()
	wh, err := filepath.Abs(sampleWarehouse)
	if err != nil {
		t.Fatal(err)
	}
	secretFile := writeFile(t, "secret", plantedSecret+"\n")
	return writeFile(t, "iceflight.yaml", `catalogs:
  lake:
    type: directory
    warehouse: `+sampleWarehouse+`
    s3.access-key-id: AKIAEXAMPLE
    s3.secret-access-key: ${file:`+secretFile+`}
  mirror:
    type: directory
    warehouse: file://`+wh+`
    credential: client:${env:ICEFLIGHT_TEST_PLANTED}
    token: `+plantedSecret+`
`)
}

// TestSecretsAppearNowhere serves configured catalogs whose properties
// hold a secret, uses every call that shows something (FlightInfo and its
// tickets, listings, streams, errors), scrapes /metrics and asks for
// --help, and finds the secret in none of them, nor in the logs at debug
// level or the start-up line.
func TestSecretsAppearNowhere(t *testing.T) {
	t.Setenv("ICEFLIGHT_TEST_PLANTED", plantedSecret)
	s := startServe(t, "--config", localCatalogs(t), "--listen", "127.0.0.1:0", "--log-level", "debug",
		"--metrics-listen", "127.0.0.1:0")
	c := dial(t, s.addr)
	ctx := context.Background()
	var shown []string
	show := func(what string, m proto.Message) {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		shown = append(shown, what+": "+string(b))
	}
	info, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"lake", "samples", "trips"}})
	if err != nil {
		t.Fatal(err)
	}
	show("FlightInfo", info)
	if n := readEndpoints(t, info, func(string) flight.Client { return c }); n != info.TotalRecords || n == 0 {
		t.Errorf("read %d rows of lake.samples.trips, planned %d", n, info.TotalRecords)
	}
	stream, err := c.ListFlights(ctx, &flight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	tables := 0
	for {
		fi, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		tables++
		show("ListFlights", fi)
	}
	if tables < 12 {
		t.Errorf("ListFlights listed %d tables of two catalogs of the bundled warehouse", tables)
	}
	for _, table := range []string{"lake.samples.nope", "mirror.samples.trips.x", "nope.samples.trips", "trips"} {
		_, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"` + table + `"}`)})
		if status.Code(err) != codes.NotFound {
			t.Errorf("GetFlightInfo %s: %v, want NotFound", table, err)
		}
		shown = append(shown, "error: "+status.Convert(err).Message())
	}
	m := regexp.MustCompile(`url=(http://\S+/metrics)`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no metrics url logged: %s", s.stderr)
	}
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	shown = append(shown, "/metrics: "+string(metrics), "stdout: "+s.stdout.String(), "logs: "+s.stderr.String())
	_, helpOut, helpErr := runCmd(t, "serve", "--help")
	shown = append(shown, "--help: "+helpOut+helpErr)
	if !strings.Contains(s.stdout.String(), "from catalogs lake, mirror on grpc://") {
		t.Errorf("the start-up line does not name the catalogs: %q", s.stdout.String())
	}
	for _, text := range shown {
		if strings.Contains(text, plantedSecret) {
			what, _, _ := strings.Cut(text, ":")
			t.Errorf("the secret appears in %s", what)
		}
	}
}

// TestAWorkerWithTheSameConfigReadsWhatTheCoordinatorPlanned starts a
// worker and a server with the same --config and ticket keys: the
// worker builds the same storage profiles, and reads a ticket that names
// one.
func TestAWorkerWithTheSameConfigReadsWhatTheCoordinatorPlanned(t *testing.T) {
	t.Setenv("ICEFLIGHT_TEST_PLANTED", plantedSecret)
	cfg, keys := localCatalogs(t), testKeys(t)
	planner := startServe(t, "--config", cfg, "--ticket-keys", keys, "--listen", "127.0.0.1:0")
	worker := startServe(t, "--config", cfg, "--ticket-keys", keys, "--listen", "127.0.0.1:0", "--role", "worker")
	bare := startServe(t, "--ticket-keys", keys, "--listen", "127.0.0.1:0", "--role", "worker")
	ctx := context.Background()
	info, err := dial(t, planner.addr).GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"mirror", "samples", "trips"}})
	if err != nil {
		t.Fatal(err)
	}
	wc := dial(t, worker.addr)
	if n := readEndpoints(t, info, func(string) flight.Client { return wc }); n != info.TotalRecords || n == 0 {
		t.Errorf("the worker read %d rows, planned %d", n, info.TotalRecords)
	}
	stream, err := dial(t, bare.addr).DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), `catalog "mirror"`) {
		t.Errorf("a worker without the catalogs' config: %v, want FailedPrecondition naming catalog mirror", err)
	}
}

func TestServeRefusesAWarehouseBesideCatalogs(t *testing.T) {
	t.Setenv("ICEFLIGHT_TEST_PLANTED", plantedSecret)
	code, _, stderr := runCmd(t, "serve", "--warehouse", sampleWarehouse, "--config", localCatalogs(t))
	if code != 2 || !strings.Contains(stderr, "give --warehouse or catalogs (lake, mirror)") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	if strings.Contains(stderr, plantedSecret) {
		t.Error("the usage error shows a secret")
	}
}
