package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/client"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// server is a "flightd serve" running in this process.
type server struct {
	addr   string
	stop   context.CancelFunc
	done   chan int
	stdout *testutil.LockedBuffer
	stderr *testutil.LockedBuffer
}

var addrLine = regexp.MustCompile(`on grpc(?:\+tls)?://(\S+)`)

// startServe runs "flightd serve args..." until the test ends (or stop).
func startServe(t *testing.T, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	errw := &testutil.LockedBuffer{}
	outw := &testutil.LockedBuffer{}
	s := &server{stop: cancel, done: make(chan int, 1), stdout: outw, stderr: errw}
	go func() {
		code := run(ctx, append([]string{"serve", "--log-level", "warn"}, args...), pw, errw)
		pw.Close()
		s.done <- code
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	outw.Write([]byte(line))
	go io.Copy(outw, br)
	m := addrLine.FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("flightd serve %v did not start (%v): %q %s", args, err, line, errw.String())
	}
	s.addr = m[1]
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Error("flightd serve did not stop")
		}
	})
	return s
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func testKeys(t *testing.T) string {
	return writeFile(t, "keys", "k1="+strings.Repeat("ab", 32)+"\n")
}

func TestServeRefusesAnOpenPortWithoutCredentials(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCmd(t, "serve", "--warehouse", sampleWarehouse, "--listen", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "--insecure-listen") {
		t.Fatalf("exit %d, %q; want a usage error naming --insecure-listen", code, stderr)
	}
	for _, bad := range [][]string{
		{"--role", "boss"},
		{"--role", "coordinator"},
		{"--role", "worker", "--workers", "a:1"},
		{"--tls-cert", "x.pem"},
		{"--ticket-keys", "a", "--ticket-key-file", "b"},
		{"--advertise", "nohostport"},
	} {
		if code, _, stderr := runCmd(t, append([]string{"serve", "--warehouse", sampleWarehouse}, bad...)...); code != 2 {
			t.Errorf("serve %v: exit %d (%s), want 2", bad, code, stderr)
		}
	}
	s := startServe(t, "--warehouse", sampleWarehouse, "--listen", "0.0.0.0:0", "--insecure-listen")
	if !strings.HasPrefix(s.addr, "[::]:") && !strings.HasPrefix(s.addr, "0.0.0.0:") {
		t.Errorf("listening on %s", s.addr)
	}
}

// TestServeRefusesProfilesOnAnOpenMetricsPort checks that --pprof, whose
// profiles have no authentication, is served only on a loopback
// --metrics-listen unless --insecure-pprof says otherwise, as --listen
// refuses an open address without credentials.
func TestServeRefusesProfilesOnAnOpenMetricsPort(t *testing.T) {
	t.Parallel()
	for _, open := range []string{"0.0.0.0:0", ":9090", "10.1.2.3:9090", "[::]:9090"} {
		code, _, stderr := runCmd(t, "serve", "--warehouse", sampleWarehouse, "--metrics-listen", open, "--pprof")
		if code != 2 || !strings.Contains(stderr, "--insecure-pprof") {
			t.Errorf("--pprof on --metrics-listen %s: exit %d, %q; want a usage error naming --insecure-pprof", open, code, stderr)
		}
	}
	for _, ok := range []serveConfig{
		{metricsListen: "127.0.0.1:9090", pprof: true},
		{metricsListen: "localhost:9090", pprof: true},
		{metricsListen: "0.0.0.0:9090", pprof: true, insecurePprof: true},
		{metricsListen: "0.0.0.0:9090"}, // metrics alone
	} {
		ok.warehouse, ok.role, ok.listen = sampleWarehouse, "all", "127.0.0.1:0"
		if _, err := ok.check(); err != nil {
			t.Errorf("metrics on %s (pprof %v, insecure %v): %v", ok.metricsListen, ok.pprof, ok.insecurePprof, err)
		}
	}
}

func dial(t *testing.T, addr string, opts ...grpc.DialOption) flight.Client {
	t.Helper()
	if len(opts) == 0 {
		opts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	c, err := flight.NewClientWithMiddleware(addr, nil, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readEndpoints redeems every endpoint at its first location and counts rows.
func readEndpoints(t *testing.T, info *flight.FlightInfo, client func(uri string) flight.Client) int64 {
	t.Helper()
	var rows int64
	for _, ep := range info.Endpoint {
		stream, err := client(ep.Location[0].Uri).DoGet(context.Background(), ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := flight.NewRecordReader(stream)
		if err != nil {
			t.Fatal(err)
		}
		for rdr.Next() {
			rows += rdr.RecordBatch().NumRows()
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
	}
	return rows
}

// TestCoordinatorPlacesOnWorkersOverMutualTLS runs a coordinator and two
// workers that require client certificates from one CA.
func TestCoordinatorPlacesOnWorkersOverMutualTLS(t *testing.T) {
	t.Parallel()
	pki := newPKI(t)
	keys := testKeys(t)
	tlsArgs := []string{"--tls-cert", pki.cert, "--tls-key", pki.key, "--tls-client-ca", pki.ca}
	w1 := startServe(t, append([]string{"--role", "worker", "--listen", "127.0.0.1:0", "--ticket-keys", keys}, tlsArgs...)...)
	w2 := startServe(t, append([]string{"--role", "worker", "--listen", "127.0.0.1:0", "--ticket-keys", keys}, tlsArgs...)...)
	coord := startServe(t, append([]string{"--role", "coordinator", "--warehouse", sampleWarehouse, "--listen", "127.0.0.1:0",
		"--ticket-keys", keys, "--workers", w1.addr + "," + w2.addr, "--worker-ca", pki.ca}, tlsArgs...)...)

	clients := map[string]flight.Client{}
	client := func(uri string) flight.Client {
		addr := strings.TrimPrefix(uri, "grpc+tls://")
		if c := clients[addr]; c != nil {
			return c
		}
		c := dial(t, addr, grpc.WithTransportCredentials(pki.clientCreds(t)))
		clients[addr] = c
		return c
	}
	info, err := client("grpc+tls://"+coord.addr).GetFlightInfo(context.Background(),
		&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table": "samples.trips", "max_endpoints": 8}`)})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ep := range info.Endpoint {
		if len(ep.Location) != 2 {
			t.Fatalf("locations %v, want both workers (placed one, fallback)", ep.Location)
		}
		seen[ep.Location[0].Uri] = true
	}
	if !seen["grpc+tls://"+w1.addr] && !seen["grpc+tls://"+w2.addr] {
		t.Errorf("endpoints placed on %v, not on the workers", seen)
	}
	if rows := readEndpoints(t, info, client); rows != info.TotalRecords {
		t.Errorf("read %d rows from the workers, planned %d", rows, info.TotalRecords)
	}

	// Without a client certificate the handshake fails.
	noCert := dial(t, w1.addr, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pki.pool})))
	if _, err := noCert.DoGet(context.Background(), info.Endpoint[0].Ticket); err == nil {
		stream, _ := noCert.DoGet(context.Background(), info.Endpoint[0].Ticket)
		if _, err := stream.Recv(); status.Code(err) != codes.Unavailable {
			t.Errorf("DoGet without a client certificate: %v, want Unavailable", err)
		}
	}
}

// TestDrainFinishesRunningStreams stops a server in the middle of a stream:
// health watchers see NOT_SERVING, the stream still completes, and the
// server exits.
func TestDrainFinishesRunningStreams(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--warehouse", sampleWarehouse, "--listen", "127.0.0.1:0", "--drain-timeout", "20s")
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	watch, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := watch.Recv(); err != nil || st.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health before the drain: %v %v", st, err)
	}
	fc := flight.NewClientFromConn(conn, nil)
	stream := startTripsStream(ctx, t, fc) // the schema came: the stream is running
	s.stop()
	if st, err := watch.Recv(); err != nil || st.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health during the drain: %v %v, want NOT_SERVING", st, err)
	}
	if _, err := watch.Recv(); err == nil {
		t.Error("the health watch did not end with the drain")
	}
	var bodies int
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("stream cut by the drain after %d messages: %v", bodies, err)
		}
		if len(msg.DataBody) > 0 {
			bodies++
		}
	}
	if bodies == 0 {
		t.Error("the running stream delivered no batch")
	}
	select {
	case code := <-s.done:
		s.done <- code // for Cleanup
		if code != 0 {
			t.Errorf("exit %d after the drain: %s", code, s.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server still running after its streams finished")
	}
	if _, err := fc.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"samples", "trips"}}); err == nil {
		t.Error("a drained server took a new call")
	}
}

// TestADrainCutStreamIsLoggedAsCanceled stops a server whose client has
// stopped reading: once the drain timeout cuts the stream, the call ends
// Canceled, at INFO, and not as an Internal error at WARN.
func TestADrainCutStreamIsLoggedAsCanceled(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--warehouse", sampleWarehouse, "--listen", "127.0.0.1:0", "--drain-timeout", "200ms", "--log-level", "info")
	startTripsStream(context.Background(), t, dial(t, s.addr))
	// The client reads no more: the server blocks on flow control until
	// the drain timeout cuts the stream.
	s.stop()
	select {
	case code := <-s.done:
		s.done <- code // for Cleanup
	case <-time.After(20 * time.Second):
		t.Fatal("server still running 20s after a drain timeout of 200ms")
	}
	var line string
	for _, l := range strings.Split(s.stderr.String(), "\n") {
		if strings.Contains(l, "msg=call") && strings.Contains(l, "FlightService/DoGet") {
			line = l
		}
	}
	if !strings.Contains(line, "code=Canceled") || !strings.Contains(line, "level=INFO") {
		t.Fatalf("the cut stream's call line is %q, want code=Canceled at level=INFO", line)
	}
}

// startTripsStream plans samples.trips as one endpoint and starts its
// stream, returning once the first message has arrived.
func startTripsStream(ctx context.Context, t *testing.T, fc flight.Client) flight.FlightService_DoGetClient {
	t.Helper()
	info, err := fc.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table": "samples.trips", "max_endpoints": 1}`)})
	if err != nil {
		t.Fatal(err)
	}
	stream, err := fc.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	return stream
}

// pki is a throwaway CA and one certificate for 127.0.0.1, used by every
// process here both as server and as client certificate.
type pki struct {
	ca, cert, key string
	pool          *x509.CertPool
	pair          tls.Certificate
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "iceflight test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "iceflight"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	p := &pki{ca: filepath.Join(dir, "ca.pem"), cert: filepath.Join(dir, "cert.pem"), key: filepath.Join(dir, "key.pem"), pool: x509.NewCertPool()}
	for path, block := range map[string]*pem.Block{
		p.ca:   {Type: "CERTIFICATE", Bytes: caDER},
		p.cert: {Type: "CERTIFICATE", Bytes: der},
		p.key:  {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p.pool.AddCert(caCert)
	if p.pair, err = tls.LoadX509KeyPair(p.cert, p.key); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *pki) clientCreds(t *testing.T) credentials.TransportCredentials {
	return credentials.NewTLS(&tls.Config{RootCAs: p.pool, Certificates: []tls.Certificate{p.pair}})
}

// TestAuthenticatedServeWithTheGoClient logs in through Handshake and with
// a static token, and is refused without either.
func TestAuthenticatedServeWithTheGoClient(t *testing.T) {
	t.Parallel()
	tokens := writeFile(t, "tokens", "go-client-token-0123456789 samples\n")
	users := writeFile(t, "users", "carol pa55word samples\n")
	s := startServe(t, "--warehouse", sampleWarehouse, "--listen", "127.0.0.1:0", "--tokens", tokens, "--users", users)
	ctx := context.Background()
	cmd := client.Command{Table: "samples.trips", Columns: []string{"id"}}
	for name, opt := range map[string]client.Option{
		"basic login": client.WithBasicAuth("carol", "pa55word"),
		"token":       client.WithToken("go-client-token-0123456789"),
	} {
		c, err := client.Dial(ctx, "grpc://"+s.addr, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tbl, err := c.Read(ctx, cmd)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tbl.NumRows() != 20000 {
			t.Errorf("%s: %d rows, want 20000", name, tbl.NumRows())
		}
		tbl.Release()
		c.Close()
	}
	if _, err := client.Dial(ctx, "grpc://"+s.addr, client.WithBasicAuth("carol", "wrong")); status.Code(err) != codes.Unauthenticated {
		t.Errorf("wrong password: %v, want Unauthenticated", err)
	}
	c, err := client.Dial(ctx, "grpc://"+s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Read(ctx, cmd); status.Code(err) != codes.Unauthenticated {
		t.Errorf("no credentials: %v, want Unauthenticated", err)
	}
}

// A table whose data folder is a symlink out of the warehouse is refused
// until --allow-root names the folder it leads to; then every row is read,
// through a reader confined to the warehouse and that root.
func TestServeAllowRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	wh, outside := filepath.Join(base, "wh"), filepath.Join(base, "outside")
	tbl := filepath.Join(wh, "samples", "trips")
	testutil.CopyTree(t, filepath.Join(sampleWarehouse, "samples", "trips", "metadata"), filepath.Join(tbl, "metadata"))
	testutil.CopyTree(t, filepath.Join(sampleWarehouse, "samples", "trips", "data"), filepath.Join(outside, "trips_data"))
	if err := os.Symlink(filepath.Join(outside, "trips_data"), filepath.Join(tbl, "data")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cmd := client.Command{Table: "samples.trips", Columns: []string{"id"}}
	for _, tc := range []struct {
		name string
		args []string
		want codes.Code
	}{
		{"data outside the warehouse is PermissionDenied", nil, codes.PermissionDenied},
		{"an allowed root is read", []string{"--allow-root", outside}, codes.OK},
	} {
		s := startServe(t, append([]string{"--warehouse", wh, "--listen", "127.0.0.1:0"}, tc.args...)...)
		c, err := client.Dial(ctx, "grpc://"+s.addr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Read(ctx, cmd)
		if status.Code(err) != tc.want {
			t.Errorf("%s: Read = %v, want %v", tc.name, err, tc.want)
		}
		if err == nil {
			if got.NumRows() != 20000 {
				t.Errorf("%s: %d rows, want 20000", tc.name, got.NumRows())
			}
			got.Release()
		} else if strings.Contains(err.Error(), outside) {
			t.Errorf("%s: error %q shows the server path", tc.name, err)
		}
		c.Close()
	}
}

func TestServeRESTListenRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--warehouse", sampleWarehouse, "--rest-listen", "0.0.0.0:0"}, "--rest-listen 0.0.0.0:0 is reachable"},
		{[]string{"--role", "worker", "--rest-listen", "127.0.0.1:0"}, "needs a catalog"},
	} {
		code, _, stderr := runCmd(t, append([]string{"serve"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("serve %v: exit %d, %q; want a usage error with %q", c.args, code, stderr, c.want)
		}
	}
}
