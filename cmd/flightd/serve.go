package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/flight"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// serveConfig holds the flags of "flightd serve".
type serveConfig struct {
	warehouse      string
	listen         string
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
	logLevel       string
	drainTimeout   time.Duration
	refresh        time.Duration
	cacheBytes     int64
	batchRows      int
}

func (c *serveConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.warehouse, "warehouse", "", "directory warehouse: every folder below it with a metadata/ folder is a table (required unless --role worker)")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8815", "host:port to listen on; a non-loopback address needs --tokens, --users or --insecure-listen")
	fs.StringVar(&c.role, "role", "all", "all (plan and stream), coordinator (plan, place endpoints on --workers) or worker (redeem tickets only)")
	fs.StringVar(&c.workers, "workers", "", "the workers endpoints are placed on: host:port,host:port or dns:///name:port (re-resolved every 10s, e.g. a Kubernetes headless service)")
	fs.StringVar(&c.advertise, "advertise", "", "host:port written into endpoint locations when this process serves them itself; default: clients reuse the connection they planned on")
	fs.StringVar(&c.ticketKeys, "ticket-keys", "", "file of ticket signing keys, one ID=HEX a line (≥32 bytes): the first signs, all verify; default: a random key per process")
	fs.StringVar(&c.ticketKeyFile, "ticket-key-file", "", "file holding a single ticket key (hex or raw, ≥32 bytes); superseded by --ticket-keys")
	fs.DurationVar(&c.ticketTTL, "ticket-ttl", flight.DefaultTicketTTL, "how long a ticket stays redeemable (RenewFlightEndpoint extends it)")
	fs.StringVar(&c.tokens, "tokens", "", "file of bearer tokens, one `TOKEN NAMESPACE[,NAMESPACE...]` a line (* for all)")
	fs.StringVar(&c.users, "users", "", "file of Basic users for Handshake, one `USER PASSWORD NAMESPACE[,...]` a line (PASSWORD plain or sha256:HEX)")
	fs.BoolVar(&c.insecureListen, "insecure-listen", false, "allow serving without authentication on a non-loopback address")
	fs.StringVar(&c.tls.cert, "tls-cert", "", "PEM certificate: serve TLS (and present it to workers that require mutual TLS)")
	fs.StringVar(&c.tls.key, "tls-key", "", "PEM private key of --tls-cert")
	fs.StringVar(&c.tls.clientCA, "tls-client-ca", "", "PEM CA bundle: require client certificates signed by it (mutual TLS)")
	fs.StringVar(&c.tls.workerCA, "worker-ca", "", "PEM CA bundle the coordinator verifies workers with; set it (or --tls-cert) when workers serve TLS")
	fs.IntVar(&c.maxStreams, "max-streams", flight.DefaultMaxStreams, "concurrent DoGet streams; more are refused with ResourceExhausted (0: unbounded)")
	fs.IntVar(&c.maxPlans, "max-plans", flight.DefaultMaxPlans, "concurrent planning calls (GetFlightInfo, PollFlightInfo, GetSchema); more are refused with ResourceExhausted (0: unbounded)")
	fs.StringVar(&c.metricsListen, "metrics-listen", "", "host:port serving Prometheus /metrics; empty: no metrics endpoint")
	fs.BoolVar(&c.pprof, "pprof", false, "also serve Go's profiles at /debug/pprof/ on --metrics-listen (keep that port private)")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&c.refresh, "metadata-refresh", catalog.DefaultRefreshInterval, "how long table metadata is served from cache before the current metadata file is looked up again (DoAction refresh forces it)")
	fs.Int64Var(&c.cacheBytes, "manifest-cache-bytes", planner.DefaultCacheBytes, "memory bound of the cache of decoded manifests and manifest lists (0 disables it)")
	fs.IntVar(&c.batchRows, "batch-rows", reader.DefaultBatchSize, "rows per record batch a stream sends at most (the differential tests vary it)")
	fs.DurationVar(&c.drainTimeout, "drain-timeout", 30*time.Second, "on SIGTERM, how long running streams may finish (health says NOT_SERVING meanwhile) before they are cut")
}

// check validates the flags that do not need I/O.
func (c *serveConfig) check() (flight.Role, error) {
	role, err := flight.ParseRole(c.role)
	if err != nil {
		return 0, usageError{"--role: " + err.Error()}
	}
	switch {
	case role != flight.RoleWorker && c.warehouse == "":
		return 0, usageError{"--warehouse is required"}
	case role == flight.RoleCoordinator && c.workers == "":
		return 0, usageError{"--role coordinator needs --workers"}
	case role == flight.RoleWorker && c.workers != "":
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
	if c.tokens == "" && c.users == "" && !c.insecureListen && !loopback(c.listen) {
		return 0, usageError{fmt.Sprintf("--listen %s is reachable from other hosts but no --tokens or --users are set: "+
			"anyone could read every table. Give credentials, listen on 127.0.0.1, or pass --insecure-listen "+
			"if a trusted network or proxy guards this port", c.listen)}
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

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.flags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
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
	flight.WarmUp()
	runtime.GC()
	lis, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	scheme := cfg.tls.scheme()
	if role == flight.RoleWorker {
		fmt.Fprintf(stdout, "iceflight worker on %s://%s\n", scheme, lis.Addr())
	} else {
		fmt.Fprintf(stdout, "iceflight serving %d tables from %s on %s://%s\n", p.tables, cfg.warehouse, scheme, lis.Addr())
		// The command a newcomer can paste needs no pyarrow of their own:
		// the iceflight CLI comes with it (make run installs it in .venv).
		fmt.Fprintf(stdout, "list the tables: iceflight --server %s://%s tables   (the CLI of clients/python: pip install ./clients/python; make run puts it in .venv/bin)\n", scheme, lis.Addr())
	}

	errc := make(chan error, 1)
	go func() { errc <- p.grpc.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	p.drain(cfg.drainTimeout, log)
	if err := <-errc; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

// process is one flightd server: the gRPC server with its services and
// the background work (worker health checks, telemetry) behind it.
type process struct {
	grpc     *grpc.Server
	health   *health.Server
	draining chan struct{} // closed when the drain starts
	tables   int
	workers  sync.WaitGroup
	closers  []func()
}

// newProcess builds the services for a configuration.
func newProcess(ctx context.Context, cfg serveConfig, role flight.Role, log *slog.Logger) (_ *process, err error) {
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
	var cat catalog.Catalog
	if role != flight.RoleWorker {
		dir, err := catalog.NewDirectory(cfg.warehouse, catalog.WithRefreshInterval(cfg.refresh))
		if err != nil {
			return nil, fmt.Errorf("warehouse: %w", err)
		}
		tables, err := dir.ListTables(ctx)
		if err != nil {
			return nil, fmt.Errorf("warehouse: %w", err)
		}
		cat, p.tables = dir, len(tables)
	}
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
	pl := planner.New(planner.WithCacheBytes(cfg.cacheBytes))
	metrics, err := flight.NewMetrics(mp, func() (int64, int64) {
		st := pl.CacheStats()
		return st.Hits, st.Misses
	})
	if err != nil {
		return nil, err
	}
	opts := []flight.Option{
		flight.WithLogger(log),
		flight.WithRole(role),
		flight.WithLimits(cfg.maxStreams, cfg.maxPlans),
		flight.WithPlanner(pl),
		flight.WithMetrics(metrics),
	}
	if cfg.workers != "" {
		wopts := []flight.WorkersOption{flight.WithWorkersLogger(log)}
		if wc, err := cfg.tls.workerClient(); err != nil {
			return nil, err
		} else if wc != nil {
			wopts = append(wopts, flight.WithWorkerTLS(wc))
		}
		ws, err := flight.NewWorkers(cfg.workers, wopts...)
		if err != nil {
			return nil, usageError{"--workers: " + err.Error()}
		}
		// Know the members before the first plan; Run keeps them current.
		ws.Refresh(ctx)
		p.workers.Go(func() { ws.Run(ctx) })
		opts = append(opts, flight.WithWorkers(ws))
	} else if cfg.advertise != "" {
		opts = append(opts, flight.WithAdvertise(cfg.tls.scheme()+"://"+cfg.advertise))
	}
	// The call log comes first so that refused calls are logged too.
	unary := []grpc.UnaryServerInterceptor{flight.UnaryCallLog(log, metrics)}
	stream := []grpc.StreamServerInterceptor{flight.StreamCallLog(log, metrics), p.endWatchesOnDrain}
	if cfg.tokens != "" || cfg.users != "" {
		creds, err := flight.LoadCredentials(cfg.tokens, cfg.users)
		if err != nil {
			return nil, err
		}
		// Sessions are signed with the ticket keys, so every process of a
		// deployment accepts the others' and they rotate together.
		sign, verify := signer.SessionSecrets()
		auth, err := flight.NewAuthenticator(creds, sign, flight.WithSessionVerifySecrets(verify...))
		if err != nil {
			return nil, err
		}
		unary = append(unary, auth.UnaryInterceptor())
		stream = append(stream, auth.StreamInterceptor())
		opts = append(opts, flight.WithAuthenticator(auth))
	}
	rd := reader.New(fileio.NewResolver(), reader.WithBatchSize(cfg.batchRows))
	svc := flight.NewService(cat, rd, signer, opts...)

	p.draining = make(chan struct{})
	serverOpts := []grpc.ServerOption{grpc.ChainUnaryInterceptor(unary...), grpc.ChainStreamInterceptor(stream...)}
	if creds != nil {
		serverOpts = append(serverOpts, grpc.Creds(creds))
	}
	p.grpc = grpc.NewServer(serverOpts...)
	arrowflight.RegisterFlightServiceServer(p.grpc, svc)
	p.health = health.NewServer()
	healthpb.RegisterHealthServer(p.grpc, p.health)
	p.health.SetServingStatus(flightServiceName, healthpb.HealthCheckResponse_SERVING)
	reflection.Register(p.grpc)
	return p, nil
}

// flightServiceName is the Flight service's name for per-service health.
const flightServiceName = "arrow.flight.protocol.FlightService"

func loadSigner(cfg serveConfig) (*flight.Signer, error) {
	switch {
	case cfg.ticketKeys != "":
		return flight.LoadKeyring(cfg.ticketKeys, cfg.ticketTTL)
	case cfg.ticketKeyFile != "":
		return flight.LoadSigner(cfg.ticketKeyFile, cfg.ticketTTL)
	}
	return flight.NewRandomSigner(cfg.ticketTTL)
}

// drain stops a process the way a rolling update wants: health turns
// NOT_SERVING so load balancers stop sending calls, no new call is taken,
// running streams get up to timeout to finish, and the rest are cut.
func (p *process) drain(timeout time.Duration, log *slog.Logger) {
	log.Info("draining: health NOT_SERVING, finishing running calls", "timeout", timeout)
	p.health.Shutdown()
	close(p.draining)
	done := make(chan struct{})
	go func() { p.grpc.GracefulStop(); close(done) }()
	select {
	case <-done:
		log.Info("drained")
	case <-time.After(timeout):
		log.Warn("drain timeout: cutting the remaining streams")
		p.grpc.Stop()
		<-done
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
