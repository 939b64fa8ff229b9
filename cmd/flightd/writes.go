package main

import (
	"flag"
	"log/slog"
	"os"

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
	maxMessage  int
}

// defaultMaxMessageBytes bounds one received gRPC message. gRPC's own
// default, 4 MiB, refuses the record batches pyarrow and arrow-go send
// unsplit (a 1M-row batch of a lineitem-like table is ~18 MiB); each
// message is held whole while it is decoded, so the bound is also the
// memory a DoPut stream may pin per batch.
const defaultMaxMessageBytes = 64 << 20

func (w *writeFlags) flags(fs *flag.FlagSet) {
	fs.BoolVar(&w.readOnly, "read-only", false, "refuse every write (DoPut, create_table, delete, alter_table, maintenance) with FailedPrecondition")
	fs.IntVar(&w.maxPuts, "max-puts", flight.DefaultMaxPuts, "concurrent DoPut streams per process; more are refused with ResourceExhausted (0: no bound)")
	fs.Int64Var(&w.maxPutBytes, "max-put-bytes", 0, "largest Arrow IPC stream one DoPut may send; a longer one fails InvalidArgument and commits nothing (0: no bound)")
	fs.IntVar(&w.maxMessage, "max-message-bytes", defaultMaxMessageBytes, "largest gRPC message received, such as one record batch of a DoPut; a larger one fails ResourceExhausted (the clients split their batches below 4 MiB)")
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
		opts = append(opts, flight.WithReadOnly("the server was started with --read-only"))
	case cfg.tokens == "" && cfg.users == "" && !loopback(cfg.listen):
		opts = append(opts, flight.WithReadOnly("the server listens on "+cfg.listen+" without --tokens or --users; "+
			"writes need credentials with rw: grants (or a loopback --listen)"))
	}
	// Namespaces are listed even by a read-only server.
	ns, _ := cat.(flight.WriteCatalog)
	var w flight.Writer
	if wc, ok := cat.(writer.Catalog); ok {
		// The crash tests (writes_crash_test.go) stop a real flightd at a
		// named point of a commit; the variable is unset everywhere else.
		w = writer.New(wc, writer.WithPlanner(pl), writer.WithHook(writer.CrashHook(os.Getenv("ICEFLIGHT_TEST_CRASH_POINT"))))
	} else if cat != nil {
		// A worker has no catalog; the service tells a client so.
		log.Info("the catalog cannot commit; serving reads only")
	}
	return append(opts, flight.WithWriter(w, ns))
}
