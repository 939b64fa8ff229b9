package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/flight"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// serveConfig holds the flags of "flightd serve".
type serveConfig struct {
	warehouse     string
	listen        string
	ticketKeyFile string
	ticketTTL     time.Duration
	logLevel      string
	drainTimeout  time.Duration
	refresh       time.Duration
	cacheBytes    int64
}

func (c *serveConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.warehouse, "warehouse", "", "directory warehouse: every folder below it with a metadata/ folder is a table (required)")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8815", "host:port to listen on")
	fs.StringVar(&c.ticketKeyFile, "ticket-key-file", "", "file holding the HMAC key that signs tickets (hex or raw, ≥32 bytes); default: a random key per process")
	fs.DurationVar(&c.ticketTTL, "ticket-ttl", flight.DefaultTicketTTL, "how long a ticket stays redeemable")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&c.refresh, "metadata-refresh", catalog.DefaultRefreshInterval, "how long table metadata is served from cache before the current metadata file is looked up again (DoAction refresh forces it)")
	fs.Int64Var(&c.cacheBytes, "manifest-cache-bytes", planner.DefaultCacheBytes, "memory bound of the cache of decoded manifests and manifest lists (0 disables it)")
	fs.DurationVar(&c.drainTimeout, "drain-timeout", 30*time.Second, "on SIGTERM, how long running streams may finish before they are cut")
}

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.flags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if cfg.warehouse == "" {
		return usageError{"--warehouse is required"}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.logLevel)); err != nil {
		return usageError{fmt.Sprintf("--log-level: %v", err)}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	svc, ntables, err := newService(ctx, cfg, log)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := arrowflight.NewServerWithMiddleware(nil)
	srv.RegisterFlightService(svc)
	srv.InitListener(lis)
	fmt.Fprintf(stdout, "iceflight serving %d tables from %s on grpc://%s\n", ntables, cfg.warehouse, lis.Addr())
	fmt.Fprintf(stdout, "connect: python3 -c \"import pyarrow.flight as fl; c = fl.connect('grpc://%s'); print([f.descriptor.path for f in c.list_flights()])\"\n", lis.Addr())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining streams", "timeout", cfg.drainTimeout)
	done := make(chan struct{})
	go func() { srv.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(cfg.drainTimeout):
		log.Warn("drain timeout: closing remaining streams")
		lis.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// newService builds the Flight service for a configuration and returns it
// with the number of tables found.
func newService(ctx context.Context, cfg serveConfig, log *slog.Logger) (*flight.Service, int, error) {
	cat, err := catalog.NewDirectory(cfg.warehouse, catalog.WithRefreshInterval(cfg.refresh))
	if err != nil {
		return nil, 0, fmt.Errorf("warehouse: %w", err)
	}
	tables, err := cat.ListTables(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("warehouse: %w", err)
	}
	var signer *flight.Signer
	if cfg.ticketKeyFile != "" {
		signer, err = flight.LoadSigner(cfg.ticketKeyFile, cfg.ticketTTL)
	} else {
		signer, err = flight.NewRandomSigner(cfg.ticketTTL)
	}
	if err != nil {
		return nil, 0, err
	}
	rd := reader.New(fileio.NewResolver())
	pl := planner.New(planner.WithCacheBytes(cfg.cacheBytes))
	return flight.NewService(cat, rd, signer, flight.WithLogger(log), flight.WithPlanner(pl)), len(tables), nil
}
