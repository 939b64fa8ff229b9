package main

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/restcatalog"
	"github.com/iceflight/iceflight/writer"
)

// propVendCredentials is the catalog property (in --config) that lets the
// REST catalog hand the catalog's storage credentials to clients that ask
// for them. Off by default: a client given them reads the whole bucket,
// not only the tables its grants name.
const propVendCredentials = "iceflight.rest.vend-credentials"

// vendedPrefixes are the storage properties a vended credential holds:
// what a client needs to reach the storage, nothing of the catalog's.
var vendedPrefixes = []string{"s3.", "gcs.", "adls.", "client.region"}

// restScheme is the scheme of the REST catalog's address.
func (c *serveConfig) restScheme() string {
	if c.tls.cert != "" {
		return "https"
	}
	return "http"
}

// newRESTServer builds the REST catalog front end over eng, committing
// through w, the writer the Flight front end commits with.
func newRESTServer(cfg serveConfig, eng *engine.Engine, w *writer.Writer, log *slog.Logger) (*http.Server, error) {
	opts := []restcatalog.Option{restcatalog.WithVendedCredentials(vendFunc(cfg.catalogs))}
	if len(cfg.catalogs) > 0 {
		opts = append(opts, restcatalog.WithCatalogs(slices.Sorted(maps.Keys(cfg.catalogs))))
	}
	if reason := readOnlyReason(cfg, cfg.restListen); reason != "" {
		opts = append(opts, restcatalog.WithReadOnly(reason))
	}
	if w != nil {
		opts = append(opts, restcatalog.WithWriter(w))
	}
	h, err := restcatalog.New(eng, opts...)
	if err != nil {
		return nil, err
	}
	tlsCfg, err := cfg.tls.serverConfig()
	if err != nil {
		return nil, err
	}
	return &http.Server{
		Handler:           h,
		TLSConfig:         tlsCfg,
		ReadHeaderTimeout: 10 * time.Second,
		// A body is read whole before it is served; a client that sends
		// it slower than this is cut.
		ReadTimeout:    time.Minute,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}, nil
}

// vendFunc returns the storage properties of a table's catalog when its
// configuration allows vending them.
func vendFunc(catalogs map[string]fileio.Properties) restcatalog.VendFunc {
	return func(_ context.Context, t *catalog.Table) fileio.Properties {
		props := catalogs[t.Catalog]
		if props[propVendCredentials] != "true" {
			return nil
		}
		out := fileio.Properties{}
		for k, v := range props {
			for _, p := range vendedPrefixes {
				if strings.HasPrefix(k, p) {
					out[k] = v
				}
			}
		}
		return out
	}
}

// serveREST serves the REST catalog until the drain shuts it down.
func (p *process) serveREST() error {
	var err error
	if p.rest.TLSConfig != nil {
		err = p.rest.ServeTLS(p.restListener, "", "")
	} else {
		err = p.rest.Serve(p.restListener)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
