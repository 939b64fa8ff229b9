package main

import (
	"flag"
	"log/slog"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/flight"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/writer"
)

// writeFlags are the flags of "flightd serve" about writing tables.
type writeFlags struct {
	readOnly    bool
	maxPuts     int
	maxPutBytes int64
}

func (w *writeFlags) flags(fs *flag.FlagSet) {
	fs.BoolVar(&w.readOnly, "read-only", false, "refuse every write (DoPut, create_table, delete, alter_table, maintenance) with FailedPrecondition")
	fs.IntVar(&w.maxPuts, "max-puts", flight.DefaultMaxPuts, "concurrent DoPut streams per process; more are refused with ResourceExhausted (0: no bound)")
	fs.Int64Var(&w.maxPutBytes, "max-put-bytes", 0, "largest Arrow IPC stream one DoPut may send; a longer one fails InvalidArgument and commits nothing (0: no bound)")
}

// writeOptions wires a writer over the process's catalog when it can
// commit: a coordinator or an all process whose catalog is a Committer.
// Without credentials on an address other hosts reach (--insecure-listen),
// anyone could write, so writes are refused there: they need --tokens or
// --users with rw: grants.
func writeOptions(cfg serveConfig, cat catalog.Catalog, pl *planner.Planner, log *slog.Logger) []flight.Option {
	opts := []flight.Option{flight.WithPutLimits(cfg.maxPuts, cfg.maxPutBytes)}
	switch {
	case cfg.readOnly:
		return append(opts, flight.WithReadOnly("the server was started with --read-only"))
	case cfg.tokens == "" && cfg.users == "" && !loopback(cfg.listen):
		return append(opts, flight.WithReadOnly("the server listens on "+cfg.listen+" without --tokens or --users; "+
			"writes need credentials with rw: grants (or a loopback --listen)"))
	}
	wc, ok := cat.(writer.Catalog)
	if !ok {
		// A worker has no catalog; checkWritable says so to a client.
		if cat != nil {
			log.Info("the catalog cannot commit; serving reads only")
		}
		return opts
	}
	w := writer.New(wc, writer.WithPlanner(pl))
	ns, _ := cat.(flight.WriteCatalog)
	return append(opts, flight.WithWriter(w, ns))
}
