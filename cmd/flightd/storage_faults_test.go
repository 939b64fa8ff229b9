package main

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers/azurite"
	"github.com/iceflight/iceflight/testkit/servers/fakegcs"
)

// faultTable is the sample table the fault tests read: several row groups
// and a delete file, so a stream of it reads storage after its first batch.
const faultTable = "samples.pos_deletes_rowgroups"

// callTimeout is the deadline of every call of the fault tests: a fault
// must end a call with its own error well before it.
const callTimeout = 30 * time.Second

// oneEndpoint plans table as one endpoint, so that one stream reads every
// file of it.
func oneEndpoint(ctx context.Context, t *testing.T, c flight.Client, table string) (*flight.FlightInfo, error) {
	t.Helper()
	return c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD,
		Cmd: []byte(`{"table": "` + table + `", "max_endpoints": 1}`)})
}

// planFaultTable plans faultTable of catalog cat as one endpoint, failing
// t if it cannot.
func planFaultTable(ctx context.Context, t *testing.T, c flight.Client, cat string) *flight.FlightInfo {
	t.Helper()
	info, err := oneEndpoint(ctx, t, c, cat+"."+faultTable)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// drain reads a stream to its end and returns how many record batches it
// held and the error that ended it (nil at a clean end).
func drain(stream flight.FlightService_DoGetClient, afterFirst func()) (int, error) {
	n := 0
	for {
		_, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
		if n == 1 && afterFirst != nil {
			afterFirst()
		}
	}
}

// TestAStorageServerStoppedMidStreamEndsItUnavailable stops
// fake-gcs-server after a stream's first message: the stream ends with
// Unavailable; restarted, the next plan and read of the table equal the
// oracle's; with flightd stopped no goroutine is left. Not parallel, so
// that goleak sees only this test's goroutines.
func TestAStorageServerStoppedMidStreamEndsItUnavailable(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Run("stopped and restarted", func(t *testing.T) {
		s, props := gcsLake(t)
		client, _ := serveConfigured(t, map[string]fileio.Properties{"gcs": props})
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		info := planFaultTable(ctx, t, client, "gcs")
		stream, err := client.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		n, err := drain(stream, s.Kill)
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "gs://lake/"+movedPrefix+"/") {
			t.Fatalf("the stream of %d messages ended with %v, want Unavailable naming a file below gs://lake/%s", n, err, movedPrefix)
		}
		t.Logf("after %d messages: %v", n, err)
		s.Restart(t)
		tl := compareServed(t, client, "gcs.", expectedDir, []string{faultTable})
		if tl.scans == 0 || tl.scansEqual != tl.scans {
			t.Errorf("after the restart: %s", tl)
		}
	})
	goleak.VerifyNone(t, ignore)
}

// TestWrongCredentialsArePermissionDeniedWithoutTheSecret serves a
// container of Azurite with an account key the server does not know: the
// calls are PermissionDenied naming the container and the credential
// source, and the key appears neither in the errors nor in the server's
// log at debug level.
func TestWrongCredentialsArePermissionDeniedWithoutTheSecret(t *testing.T) {
	t.Parallel()
	s := azurite.Start(t)
	s.CreateContainer(t, "lake")
	uploadSample(func(dir, prefix string) { s.Upload(t, dir, "lake", prefix) })
	wrongKey := base64.StdEncoding.EncodeToString([]byte(plantedSecret + plantedSecret))
	props := s.Props()
	props["type"], props["warehouse"], props["adls.account-key"] = "directory", azurite.Location("lake", movedPrefix), wrongKey
	client, srv := serveConfigured(t, map[string]fileio.Properties{"azure": props}, "--log-level", "debug")
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, planErr := oneEndpoint(ctx, t, client, "azure."+faultTable)
	_, listErr := listFlights(ctx, client)
	for what, err := range map[string]error{"GetFlightInfo": planErr, "ListFlights": listErr} {
		msg := status.Convert(err).Message()
		if status.Code(err) != codes.PermissionDenied || !strings.Contains(msg, "lake") || !strings.Contains(msg, "adls.account-key") {
			t.Errorf("%s: %v, want PermissionDenied naming container lake and adls.account-key", what, err)
		}
		t.Logf("%s: %v", what, err)
		if strings.Contains(msg, wrongKey) || strings.Contains(msg, plantedSecret) {
			t.Errorf("%s: the message shows the key: %s", what, msg)
		}
	}
	if logs := srv.stderr.String() + srv.stdout.String(); strings.Contains(logs, wrongKey) || strings.Contains(logs, plantedSecret) {
		t.Error("the server's log shows the key")
	}
}

// listFlights lists every flight and returns their tables' names and the
// error that ended the listing, with its trailer.
func listFlights(ctx context.Context, c flight.Client) ([]string, error) {
	tables, _, err := listFlightsTrailer(ctx, c)
	return tables, err
}

// listFlightsTrailer is listFlights that also returns the stream's
// trailer.
func listFlightsTrailer(ctx context.Context, c flight.Client) ([]string, metadata.MD, error) {
	var trailer metadata.MD
	stream, err := c.ListFlights(ctx, &flight.Criteria{}, grpc.Trailer(&trailer))
	if err != nil {
		return nil, nil, err
	}
	var tables []string
	for {
		fi, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return tables, trailer, nil
		}
		if err != nil {
			return tables, trailer, err
		}
		tables = append(tables, strings.Join(fi.FlightDescriptor.Path, "."))
	}
}

// TestAMissingBucketIsNamed serves a directory catalog on a bucket that
// does not exist: planning and listing fail with an error naming it.
func TestAMissingBucketIsNamed(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	props := s.Props()
	props["type"], props["warehouse"] = "directory", "gs://no-such-lake/"+movedPrefix
	client, _ := serveConfigured(t, map[string]fileio.Properties{"gcs": props})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, planErr := oneEndpoint(ctx, t, client, "gcs."+faultTable)
	_, listErr := listFlights(ctx, client)
	for what, err := range map[string]error{"GetFlightInfo": planErr, "ListFlights": listErr} {
		if code := status.Code(err); code != codes.NotFound || !strings.Contains(err.Error(), "no-such-lake") {
			t.Errorf("%s: %v, want NotFound naming bucket no-such-lake", what, err)
		}
		t.Logf("%s: %v", what, err)
	}
}

// TestAFileDeletedAfterPlanningIsNotFound deletes a data file of a planned
// table before its ticket is redeemed: the stream fails with NotFound
// naming the file.
func TestAFileDeletedAfterPlanningIsNotFound(t *testing.T) {
	t.Parallel()
	s, props := gcsLake(t)
	client, _ := serveConfigured(t, map[string]fileio.Properties{"gcs": props})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	info := planFaultTable(ctx, t, client, "gcs")
	ns, table, _ := strings.Cut(faultTable, ".")
	data, err := filepath.Glob(filepath.Join(sampleWarehouse, ns, table, "data", "*.parquet"))
	if err != nil || len(data) == 0 {
		t.Fatalf("data files of %s: %v %v", faultTable, data, err)
	}
	gone := movedPrefix + "/" + ns + "/" + table + "/data/" + filepath.Base(data[len(data)-1])
	s.Delete(t, "lake", gone)
	stream, err := client.DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		_, err = drain(stream, nil)
	}
	if status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), "gs://lake/"+gone) {
		t.Fatalf("the stream with gs://lake/%s deleted: %v, want NotFound naming it", gone, err)
	}
}

// TestACatalogOnAStoppedServerLeavesTheOthersServing mounts a catalog on
// fake-gcs-server and one on Azurite, and stops Azurite: the GCS tables
// still list and read, the listing's trailer names the failed catalog, and
// a call on its tables ends with Unavailable of its own, before the
// call's deadline.
func TestACatalogOnAStoppedServerLeavesTheOthersServing(t *testing.T) {
	t.Parallel()
	_, gcsProps := gcsLake(t)
	az := azurite.Start(t)
	az.CreateContainer(t, "lake")
	uploadSample(func(dir, prefix string) { az.Upload(t, dir, "lake", prefix) })
	azProps := az.Props()
	azProps["type"], azProps["warehouse"] = "directory", azurite.Location("lake", movedPrefix)
	client, _ := serveConfigured(t, map[string]fileio.Properties{"gcs": gcsProps, "azure": azProps})
	az.Kill()
	checkOthersServe(t, client, "gcs", "azure", codes.Unavailable, callTimeout)
}

// checkOthersServe checks that, with catalog bad failing, client lists
// the tables of catalog good with a trailer naming bad, reads one of good
// equal to the oracle, and that planning a table of bad fails with want
// naming bad and the table. Each call has timeout for its deadline and
// must end with its own answer before it.
func checkOthersServe(t *testing.T, client flight.Client, good, bad string, want codes.Code, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tables, trailer, err := listFlightsTrailer(ctx, client)
	if err != nil {
		t.Fatalf("ListFlights with catalog %s failing: %v", bad, err)
	}
	if ctx.Err() != nil {
		t.Errorf("ListFlights with catalog %s failing ran into its deadline", bad)
	}
	if len(tables) < len(storageSample) {
		t.Errorf("ListFlights listed %v, want the %d tables of catalog %s", tables, len(storageSample), good)
	}
	failed := trailer.Get("iceflight-catalog-errors")
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "catalog "+bad+":") {
		t.Errorf("the listing's trailer names %q, want catalog %s", failed, bad)
	}
	t.Logf("trailer: %q", failed)
	table := bad + "." + faultTable
	planCtx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, err = oneEndpoint(planCtx, t, client, table)
	if status.Code(err) != want || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), strings.TrimPrefix(table, bad+".")) {
		t.Errorf("GetFlightInfo %s: %v, want %v naming the catalog and the table", table, err, want)
	}
	t.Logf("GetFlightInfo %s: %v", table, err)
	if planCtx.Err() != nil {
		t.Errorf("GetFlightInfo %s ran into its deadline", table)
	}
	tl := compareServed(t, client, good+".", expectedDir, []string{faultTable})
	if tl.scans == 0 || tl.scansEqual != tl.scans {
		t.Errorf("catalog %s beside the failed one: %s", good, tl)
	}
}

// TestAFailingRESTCatalogLeavesTheOthersServing mounts a REST catalog that
// answers 500, or never answers, beside a directory catalog of the sample
// warehouse: calls on the REST catalog's tables fail promptly naming it
// and the table, the directory catalog's tables list and read.
func TestAFailingRESTCatalogLeavesTheOthersServing(t *testing.T) {
	t.Parallel()
	wh, err := filepath.Abs(sampleWarehouse)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		handler func(release <-chan struct{}) http.HandlerFunc
		want    codes.Code
		timeout time.Duration
	}{
		{"answering 500", func(<-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = io.WriteString(w, `{"error":{"message":"boom","type":"ServerError","code":500}}`)
			}
		}, codes.Unavailable, callTimeout},
		{"hanging", func(release <-chan struct{}) http.HandlerFunc {
			return func(_ http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-release:
				}
			}
		}, codes.DeadlineExceeded, 5 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			rest := httptest.NewServer(tc.handler(release))
			t.Cleanup(rest.Close)
			t.Cleanup(func() { close(release) })
			client, _ := serveConfigured(t, map[string]fileio.Properties{
				"local": {"type": "directory", "warehouse": wh},
				"rest":  {"type": "rest", "uri": rest.URL},
			})
			checkOthersServe(t, client, "local", "rest", tc.want, tc.timeout)
		})
	}
}
