package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/flight"
	"github.com/iceflight/iceflight/flightsql"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// serveConfig holds the flags of "flightd serve".
type serveConfig struct {
	configFile     string
	warehouse      string
	allowRoots     folderList
	listen         string
	restListen     string
	role           string
	workers        string
	advertise      string
	ticketKeys     string
	ticketKeyFile  string
	ticketTTL      time.Duration
	tokens         string
	users          string
	insecureListen bool
	tls            tlsFiles
	maxStreams     int
	maxPlans       int
	metricsListen  string
	pprof          bool
	insecurePprof  bool
	logLevel       string
	drainTimeout   time.Duration
	refresh        time.Duration
	cacheBytes     int64
	metaCacheBytes int64
	maxMetadata    int64
	maxManifest    int64
	manifestAbove  int64
	largeTickets   string
	maxRead        int64
	validate       bool
	batchRows      int
	// sqlMaxEndpoints caps the endpoints of a Flight SQL statement's plan.
	sqlMaxEndpoints int
	// ipcCompression is --ipc-compression: none, lz4 or zstd; check parses
	// it into compression.
	ipcCompression string
	compression    engine.Compression
	writeFlags

	// catalogs are the catalogs of --config and the environment, by name;
	// none when --warehouse serves one directory alone.
	catalogs map[string]fileio.Properties
}

func (c *serveConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.warehouse, "warehouse", "", "`DIR` of the warehouse: every folder below it with a metadata/ folder is a table (required unless --role worker or --config names catalogs)")
	fs.StringVar(&c.configFile, "config", "", "`FILE` of catalogs (PyIceberg's property names; tables are named CATALOG.NAMESPACE.TABLE) and serve flags, as the README's Configuration section says; ICEFLIGHT_CATALOG__NAME__PROP variables add to it")
	fs.Var(&c.allowRoots, "allow-root", "`DIR` beyond the warehouse that tables may read files from (write.data.path elsewhere); repeatable. A worker given it, or --warehouse, reads only below them")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8815", "`HOST:PORT` to listen on; a non-loopback address needs --tokens, --users or --insecure-listen")
	fs.StringVar(&c.role, "role", "all", "`ROLE`: all (plan and stream), coordinator (plan, place endpoints on --workers) or worker (redeem tickets only)")
	fs.StringVar(&c.workers, "workers", "", "the workers endpoints are placed on: `LIST` of host:port,host:port or dns:///name:port (re-resolved every 10s, e.g. a Kubernetes headless service)")
	fs.StringVar(&c.advertise, "advertise", "", "`HOST:PORT` written into endpoint locations when this process serves them itself; default: clients reuse the connection they planned on")
	fs.StringVar(&c.ticketKeys, "ticket-keys", "", "`FILE` of ticket signing keys, one ID=HEX a line (≥32 bytes): the first signs, all verify; default: a random key per process")
	fs.StringVar(&c.ticketKeyFile, "ticket-key-file", "", "`FILE` holding a single ticket key (hex or raw, ≥32 bytes); superseded by --ticket-keys")
	fs.DurationVar(&c.ticketTTL, "ticket-ttl", engine.DefaultTicketTTL, "how long a ticket stays redeemable (RenewFlightEndpoint extends it)")
	fs.StringVar(&c.tokens, "tokens", "", "`FILE` of bearer tokens, one \"TOKEN NAMESPACE[,NAMESPACE...]\" a line (* for all)")
	fs.StringVar(&c.users, "users", "", "`FILE` of Basic users for Handshake, one \"USER PASSWORD NAMESPACE[,...]\" a line (PASSWORD plain or sha256:HEX)")
	fs.BoolVar(&c.insecureListen, "insecure-listen", false, "allow serving without authentication on a non-loopback address")
	fs.StringVar(&c.restListen, "rest-listen", "", "`HOST:PORT` serving the Iceberg REST catalog API (HTTPS with --tls-cert) over the same catalogs, credentials and grants, for Spark, Trino, PyIceberg and Iceberg Java; empty: not served")
	fs.StringVar(&c.tls.cert, "tls-cert", "", "PEM certificate `FILE`: serve TLS (and present it to workers that require mutual TLS)")
	fs.StringVar(&c.tls.key, "tls-key", "", "PEM private key `FILE` of --tls-cert")
	fs.StringVar(&c.tls.clientCA, "tls-client-ca", "", "PEM CA bundle `FILE`: require client certificates signed by it (mutual TLS)")
	fs.StringVar(&c.tls.workerCA, "worker-ca", "", "PEM CA bundle `FILE` the coordinator verifies workers with; set it (or --tls-cert) when workers serve TLS")
	fs.IntVar(&c.maxStreams, "max-streams", engine.DefaultMaxStreams, "concurrent DoGet streams; more are refused with ResourceExhausted (0: unbounded)")
	fs.IntVar(&c.maxPlans, "max-plans", engine.DefaultMaxPlans, "concurrent planning calls (GetFlightInfo, PollFlightInfo, GetSchema, ListFlights, DoAction); more are refused with ResourceExhausted (0: unbounded)")
	fs.StringVar(&c.metricsListen, "metrics-listen", "", "`HOST:PORT` serving Prometheus /metrics; empty: no metrics endpoint")
	fs.BoolVar(&c.pprof, "pprof", false, "also serve Go's profiles at /debug/pprof/ on --metrics-listen; a non-loopback --metrics-listen needs --insecure-pprof")
	fs.BoolVar(&c.insecurePprof, "insecure-pprof", false, "allow --pprof on a non-loopback --metrics-listen, whose profiles anyone reaching the port can take")
	fs.StringVar(&c.logLevel, "log-level", "info", "log `LEVEL`: debug, info, warn or error")
	fs.DurationVar(&c.refresh, "metadata-refresh", catalog.DefaultRefreshInterval, "how long table metadata is served from cache before the current metadata file is looked up again (DoAction refresh forces it)")
	fs.Int64Var(&c.cacheBytes, "manifest-cache-bytes", planner.DefaultCacheBytes, "memory bound of the cache of decoded manifests and manifest lists (0 disables it)")
	fs.IntVar(&c.batchRows, "batch-rows", reader.DefaultBatchSize, "rows per record batch a stream sends at most (the differential tests vary it)")
	fs.BoolVar(&c.validate, "validate-batches", false, "debugging: check every batch with Arrow's full validation at each stage of the reader and fail the stream naming file and stage (costs a pass over the data; ICEFLIGHT_VALIDATE_BATCHES=1 does the same)")
	fs.Int64Var(&c.metaCacheBytes, "metadata-cache-bytes", catalog.DefaultMetadataCacheBytes, "memory bound of the cache of parsed table metadata, by metadata file size; least recently used tables go first (0 keeps none)")
	fs.Int64Var(&c.maxMetadata, "max-metadata-bytes", catalog.DefaultMaxMetadataBytes, "largest table metadata file read, after gunzip; a larger one fails with FailedPrecondition (0: no bound)")
	fs.Int64Var(&c.manifestAbove, "manifest-tickets-above", engine.DefaultManifestTicketsAbove, "plan a scan at the manifest level when its manifest list counts more live data files than this: tickets name manifests, which the worker redeeming each plans and reads (0: every scan without a row limit; -1: never)")
	fs.StringVar(&c.largeTickets, "large-plan-tickets", engine.TicketsManifests, "what a plan past --manifest-tickets-above becomes when its command does not say: manifests (tickets naming manifest groups) or files (exact file-level endpoints, the groups planned in parallel on the workers)")
	fs.Int64Var(&c.maxManifest, "max-manifest-bytes", planner.DefaultMaxManifestBytes, "largest manifest or manifest list read; a larger one fails the plan with FailedPrecondition (0: no bound)")
	fs.Int64Var(&c.maxRead, "max-read-bytes", reader.DefaultMaxReadBytes, "largest piece of a data or delete file held in memory whole: Parquet/ORC footer, ORC stream, Avro block, deletion vector, a batch's strings of one Parquet column (0: the formats' own bounds)")
	fs.IntVar(&c.sqlMaxEndpoints, "sql-max-endpoints", flightsql.DefaultMaxEndpoints, "endpoints of a Flight SQL query's plan at most: ADBC's driver opens them all at once (0: the planner's cap, 64)")
	fs.StringVar(&c.ipcCompression, "ipc-compression", "none", "`CODEC` compressing the Arrow buffers DoGet streams send: none, lz4 or zstd (every Arrow reader decodes them); pays on a slow network, costs server CPU on a fast one")
	c.writeFlags.flags(fs)
	fs.DurationVar(&c.drainTimeout, "drain-timeout", 30*time.Second, "on SIGTERM, how long running streams may finish (health says NOT_SERVING meanwhile) before they are cut; the process exits at most "+drainGrace.String()+" later, whatever its calls are doing")
}

// check validates the flags that do not need I/O.
func (c *serveConfig) check() (engine.Role, error) {
	role, err := engine.ParseRole(c.role)
	if err != nil {
		return 0, usageError{"--role: " + err.Error()}
	}
	if c.compression, err = engine.ParseCompression(c.ipcCompression); err != nil {
		return 0, usageError{"--ipc-compression: " + err.Error()}
	}
	if c.largeTickets == "" {
		c.largeTickets = engine.TicketsManifests // a config made without the flag set
	}
	switch {
	case c.largeTickets != engine.TicketsManifests && c.largeTickets != engine.TicketsFiles:
		return 0, usageError{fmt.Sprintf("--large-plan-tickets %q: want %s or %s", c.largeTickets, engine.TicketsManifests, engine.TicketsFiles)}
	case role != engine.RoleWorker && c.warehouse == "" && len(c.catalogs) == 0:
		return 0, usageError{"--warehouse (or --config with catalogs) is required"}
	case c.warehouse != "" && len(c.catalogs) > 0:
		return 0, usageError{fmt.Sprintf("give --warehouse or catalogs (%s) in --config or the environment, not both", strings.Join(slices.Sorted(maps.Keys(c.catalogs)), ", "))}
	case role == engine.RoleCoordinator && c.workers == "":
		return 0, usageError{"--role coordinator needs --workers"}
	case role == engine.RoleWorker && c.workers != "":
		return 0, usageError{"--workers is for a coordinator; a worker only redeems tickets"}
	case c.ticketKeys != "" && c.ticketKeyFile != "":
		return 0, usageError{"give --ticket-keys or --ticket-key-file, not both"}
	case (c.tls.cert == "") != (c.tls.key == ""):
		return 0, usageError{"--tls-cert and --tls-key go together"}
	case c.tls.clientCA != "" && c.tls.cert == "":
		return 0, usageError{"--tls-client-ca needs --tls-cert and --tls-key"}
	case c.pprof && c.metricsListen == "":
		return 0, usageError{"--pprof needs --metrics-listen"}
	}
	if c.advertise != "" {
		if _, _, err := net.SplitHostPort(c.advertise); err != nil {
			return 0, usageError{fmt.Sprintf("--advertise %q: want host:port", c.advertise)}
		}
	}
	if c.pprof && !c.insecurePprof && !loopback(c.metricsListen) {
		// Profiles show memory contents and command lines and cost CPU to
		// take, and the metrics port has no authentication.
		return 0, usageError{fmt.Sprintf("--metrics-listen %s is reachable from other hosts and --pprof would serve "+
			"unauthenticated profiles there. Listen on 127.0.0.1, drop --pprof, or pass --insecure-pprof "+
			"if a trusted network guards this port", c.metricsListen)}
	}
	for _, l := range []struct{ flag, addr string }{{"--listen", c.listen}, {"--rest-listen", c.restListen}} {
		if l.addr != "" && c.tokens == "" && c.users == "" && !c.insecureListen && !loopback(l.addr) {
			return 0, usageError{fmt.Sprintf("%s %s is reachable from other hosts but no --tokens or --users are set: "+
				"anyone could read every table. Give credentials, listen on 127.0.0.1, or pass --insecure-listen "+
				"if a trusted network or proxy guards this port", l.flag, l.addr)}
		}
	}
	if c.restListen != "" && role == engine.RoleWorker {
		return 0, usageError{"--rest-listen needs a catalog: serve it from a coordinator or an all process, not a worker"}
	}
	return role, nil
}

// loopback reports whether a listen address accepts only local connections.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveUsage prints the serve flags with the one required flag,
// --warehouse, first, and the others in the flag package's alphabetical
// order.
func serveUsage(fs *flag.FlagSet) func() {
	return func() {
		out := fs.Output()
		first := flag.NewFlagSet("serve", flag.ContinueOnError)
		rest := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.VisitAll(func(f *flag.Flag) {
			to := rest
			if f.Name == "warehouse" {
				to = first
			}
			to.Var(f.Value, f.Name, f.Usage)
			to.Lookup(f.Name).DefValue = f.DefValue // as declared, not as parsed so far
		})
		fmt.Fprintln(out, "usage: flightd serve --warehouse DIR [flags]\n       flightd serve --config FILE [flags]\n\nrequired (unless --role worker, or --config names catalogs):")
		first.SetOutput(out)
		first.PrintDefaults()
		fmt.Fprintln(out, "\nflags:")
		rest.SetOutput(out)
		rest.PrintDefaults()
	}
}

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.flags(fs)
	fs.Usage = serveUsage(fs)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	fc, err := loadConfig(cfg.configFile, os.Environ())
	if err != nil {
		return err
	}
	if err := applyServe(fs, fc.serve); err != nil {
		return err
	}
	cfg.catalogs = fc.catalogs
	role, err := cfg.check()
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.logLevel)); err != nil {
		return usageError{fmt.Sprintf("--log-level: %v", err)}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := newProcess(ctx, cfg, role, log)
	if err != nil {
		return err
	}
	defer func() {
		cancel()
		p.workers.Wait()
		p.close()
	}()
	// Before listening, so a load balancer's first call finds it done.
	// The collection leaves start-up's garbage (table listing, telemetry
	// set-up) behind, so the first request's allocations do not trigger a
	// collection on top of it.
	engine.WarmUp()
	runtime.GC()
	lis, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if cfg.restListen != "" {
		rl, err := net.Listen("tcp", cfg.restListen)
		if err != nil {
			lis.Close()
			return fmt.Errorf("rest listen: %w", err)
		}
		p.restListener = rl
	}
	scheme := cfg.tls.scheme()
	if role == engine.RoleWorker {
		fmt.Fprintf(stdout, "iceflight %s worker on %s://%s\n", buildVersion(), scheme, lis.Addr())
	} else {
		fmt.Fprintf(stdout, "iceflight %s serving %d tables from %s on %s://%s\n", buildVersion(), p.tables, cfg.source(), scheme, lis.Addr())
		// The command a newcomer can paste needs no pyarrow of their own:
		// the iceflight CLI comes with it (make run installs it in .venv).
		fmt.Fprintf(stdout, "list the tables: iceflight --server %s://%s tables   (the CLI of clients/python: pip install ./clients/python; make run puts it in .venv/bin)\n", scheme, lis.Addr())
	}
	if p.restListener != nil {
		// After the first line, which scripts and tests read the Flight
		// address from.
		fmt.Fprintf(stdout, "Iceberg REST catalog on %s://%s (PyIceberg: load_catalog(\"iceflight\", type=\"rest\", uri=\"%s://%s\"))\n",
			cfg.restScheme(), p.restListener.Addr(), cfg.restScheme(), p.restListener.Addr())
	}

	return p.serve(ctx, lis, cfg.drainTimeout, log)
}

// drainGrace is how long a drain waits, after the drain timeout has cut
// the remaining calls, for their handlers to return. A handler stuck in a
// system call on hung storage may never return; the process exits without
// it rather than outlive its drain timeout (and a supervisor's patience).
const drainGrace = 5 * time.Second

// serve serves lis until ctx is done, then drains: it returns at most
// drainTimeout plus drainGrace after ctx is done, whatever its calls are
// doing.
func (p *process) serve(ctx context.Context, lis net.Listener, drainTimeout time.Duration, log *slog.Logger) error {
	errc := make(chan error, 1)
	go func() { errc <- p.grpc.Serve(lis) }()
	restc := make(chan error, 1)
	if p.restListener != nil {
		go func() { restc <- p.serveREST() }()
	}
	select {
	case err := <-errc:
		return err
	case err := <-restc:
		p.grpc.Stop()
		return fmt.Errorf("rest catalog: %w", err)
	case <-ctx.Done():
	}
	p.drain(drainTimeout, log)
	select {
	case err := <-errc:
		if err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			return err
		}
	case <-time.After(drainGrace):
		log.Warn("the server did not stop within the drain grace; exiting without it", "grace", drainGrace)
	}
	return nil
}

// process is one flightd server: the gRPC server with its services and
// the background work (worker health checks, telemetry) behind it.
type process struct {
	grpc *grpc.Server
	// rest serves the Iceberg REST catalog on restListener when
	// --rest-listen is set.
	rest         *http.Server
	restListener net.Listener
	health       *health.Server
	draining     chan struct{} // closed when the drain starts
	tables       int
	workers      sync.WaitGroup
	closers      []func()
}

// newProcess builds the services for a configuration.
func newProcess(ctx context.Context, cfg serveConfig, role engine.Role, log *slog.Logger) (_ *process, err error) {
	p := &process{}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	signer, err := loadSigner(cfg)
	if err != nil {
		return nil, err
	}
	rdOpts := []reader.Option{reader.WithMaxReadBytes(cfg.maxRead), reader.WithBatchSize(cfg.batchRows)}
	if cfg.validate {
		rdOpts = append(rdOpts, reader.WithValidation(true))
	}
	src, err := openTables(ctx, cfg, role, log, rdOpts)
	if err != nil {
		return nil, err
	}
	p.tables = src.tables
	creds, err := cfg.tls.server()
	if err != nil {
		return nil, err
	}
	mp, stopTelemetry, err := setupTelemetry(ctx, cfg.metricsListen, cfg.pprof, log)
	if err != nil {
		return nil, err
	}
	p.closers = append(p.closers, func() {
		// Flush spans after the server has stopped, even though ctx is done.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := stopTelemetry(ctx); err != nil {
			log.Warn("telemetry shutdown", "err", err)
		}
	})
	pl := planner.New(planner.WithCacheBytes(cfg.cacheBytes), planner.WithMaxManifestBytes(cfg.maxManifest))
	metrics, err := engine.NewMetrics(mp, func() (int64, int64) {
		st := pl.CacheStats()
		return st.Hits, st.Misses
	})
	if err != nil {
		return nil, err
	}
	if err := metrics.ObserveReader(mp, src.readerStats); err != nil {
		return nil, err
	}
	opts := []engine.Option{
		engine.WithLogger(log),
		engine.WithRole(role),
		engine.WithLimits(cfg.maxStreams, cfg.maxPlans),
		engine.WithPlanner(pl),
		engine.WithMetrics(metrics),
		engine.WithCompression(cfg.compression),
		engine.WithManifestTicketsAbove(cfg.manifestAbove),
		engine.WithLargePlanTickets(cfg.largeTickets),
	}
	if cfg.workers != "" {
		wopts := []engine.WorkersOption{engine.WithWorkersLogger(log)}
		if wc, err := cfg.tls.workerClient(); err != nil {
			return nil, err
		} else if wc != nil {
			wopts = append(wopts, engine.WithWorkerTLS(wc))
		}
		ws, err := engine.NewWorkers(cfg.workers, wopts...)
		if err != nil {
			return nil, usageError{"--workers: " + err.Error()}
		}
		// Know the members before the first plan; Run keeps them current.
		ws.Refresh(ctx)
		p.workers.Go(func() { ws.Run(ctx) })
		opts = append(opts, engine.WithWorkers(ws))
	} else if cfg.advertise != "" {
		opts = append(opts, engine.WithAdvertise(cfg.tls.scheme()+"://"+cfg.advertise))
	}
	// The call log comes first so that refused calls are logged too.
	unary := []grpc.UnaryServerInterceptor{engine.UnaryCallLog(log, metrics)}
	stream := []grpc.StreamServerInterceptor{engine.StreamCallLog(log, metrics), p.endWatchesOnDrain}
	if cfg.tokens != "" || cfg.users != "" {
		creds, err := engine.LoadCredentials(cfg.tokens, cfg.users)
		if err != nil {
			return nil, err
		}
		// Sessions are signed with the ticket keys, so every process of a
		// deployment accepts the others' and they rotate together.
		sign, verify := signer.SessionSecrets()
		auth, err := engine.NewAuthenticator(creds, sign, engine.WithSessionVerifySecrets(verify...))
		if err != nil {
			return nil, err
		}
		unary = append(unary, auth.UnaryInterceptor())
		stream = append(stream, auth.StreamInterceptor())
		opts = append(opts, engine.WithAuthenticator(auth))
	}
	if len(src.profiles) > 0 {
		opts = append(opts, engine.WithProfileReaders(src.profiles))
	}
	// A worker opens the credentials sealed in a ticket with the same
	// registry, which keeps one FileIO per credential set.
	opts = append(opts, engine.WithStorage(src.storage.ForProperties))
	eng := engine.New(src.catalog, src.reader, signer, opts...)
	w := newWriter(src.catalog, pl, log)
	svc := flight.NewService(eng, writeOptions(cfg, src.catalog, w)...)
	if cfg.restListen != "" {
		if p.rest, err = newRESTServer(cfg, eng, w, log); err != nil {
			return nil, err
		}
	}
	sqlOpts := []flightsql.Option{flightsql.WithVersion(buildVersion()), flightsql.WithMaxEndpoints(cfg.sqlMaxEndpoints)}
	if len(cfg.catalogs) > 0 {
		sqlOpts = append(sqlOpts, flightsql.WithCatalogs())
	}
	fe, err := flightsql.New(eng, sqlOpts...)
	if err != nil {
		return nil, err
	}

	p.draining = make(chan struct{})
	serverOpts := []grpc.ServerOption{grpc.ChainUnaryInterceptor(unary...), grpc.ChainStreamInterceptor(stream...),
		grpc.WriteBufferSize(writeBufferBytes)}
	if cfg.maxMessage > 0 {
		serverOpts = append(serverOpts, grpc.MaxRecvMsgSize(cfg.maxMessage))
	}
	if creds != nil {
		serverOpts = append(serverOpts, grpc.Creds(creds))
	}
	p.grpc = grpc.NewServer(serverOpts...)
	arrowflight.RegisterFlightServiceServer(p.grpc, flight.NewMux(svc, fe))
	p.health = health.NewServer()
	healthpb.RegisterHealthServer(p.grpc, p.health)
	p.health.SetServingStatus(flightServiceName, healthpb.HealthCheckResponse_SERVING)
	reflection.Register(p.grpc)
	return p, nil
}

// folderList is a repeatable flag of folders.
type folderList []string

func (l *folderList) String() string { return strings.Join(*l, ",") }

func (l *folderList) Set(s string) error {
	if s == "" {
		return errors.New("empty folder")
	}
	*l = append(*l, s)
	return nil
}

// flightServiceName is the Flight service's name for per-service health.
const flightServiceName = "arrow.flight.protocol.FlightService"

// writeBufferBytes is the gRPC write buffer of each connection. gRPC's
// default, 32 KiB, makes a DoGet of big files one write(2) per 32 KiB; at
// 256 KiB flightd spent about 5% less CPU per read of the benchmark's big
// case (1.4 GB over loopback), for 224 KiB more per open connection.
const writeBufferBytes = 256 << 10

func loadSigner(cfg serveConfig) (*engine.Signer, error) {
	switch {
	case cfg.ticketKeys != "":
		return engine.LoadKeyring(cfg.ticketKeys, cfg.ticketTTL)
	case cfg.ticketKeyFile != "":
		return engine.LoadSigner(cfg.ticketKeyFile, cfg.ticketTTL)
	}
	return engine.NewRandomSigner(cfg.ticketTTL)
}

// drain stops a process the way a rolling update wants: health turns
// NOT_SERVING so load balancers stop sending calls, no new call is taken,
// running streams get up to timeout to finish, and the rest are cut.
func (p *process) drain(timeout time.Duration, log *slog.Logger) {
	log.Info("draining: health NOT_SERVING, finishing running calls", "timeout", timeout)
	p.health.Shutdown()
	close(p.draining)
	if p.rest != nil {
		// REST calls are short (a plan waits at most its plan wait): they
		// get the same timeout, after which Close cuts them.
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			if err := p.rest.Shutdown(ctx); err != nil {
				p.rest.Close()
			}
		}()
	}
	done := make(chan struct{})
	go func() { p.grpc.GracefulStop(); close(done) }()
	select {
	case <-done:
		log.Info("drained")
	case <-time.After(timeout):
		log.Warn("drain timeout: cutting the remaining streams")
		// Stop cancels every call's context and closes the connections,
		// but the graceful stop still waits for each handler to return:
		// one stuck in a system call never does.
		go p.grpc.Stop()
		select {
		case <-done:
		case <-time.After(drainGrace):
			log.Warn("calls still running after the drain timeout; exiting without them", "grace", drainGrace)
		}
	}
}

// endWatchesOnDrain ends health Watch streams once the drain starts, after
// they have sent NOT_SERVING: a watch never ends by itself, so it would
// otherwise hold a graceful stop until the drain timeout.
func (p *process) endWatchesOnDrain(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if info.FullMethod != healthpb.Health_Watch_FullMethodName {
		return handler(srv, ss)
	}
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	go func() {
		select {
		case <-p.draining:
			// Let the NOT_SERVING update reach the watcher first.
			time.Sleep(100 * time.Millisecond)
			cancel()
		case <-ctx.Done():
		}
	}()
	return handler(srv, &watchStream{ServerStream: ss, ctx: ctx})
}

// watchStream is a server stream with a context of its own.
type watchStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (w *watchStream) Context() context.Context { return w.ctx }

// close stops the background work once the server has stopped.
func (p *process) close() {
	for _, c := range p.closers {
		c()
	}
}
