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

// readOnlyReason is why the process refuses writes, or "". Without
// credentials on an address other hosts reach (--insecure-listen), anyone
// could write, so writes are refused there: they need --tokens or --users
// with rw: grants.
func readOnlyReason(cfg serveConfig, listen string) string {
	switch {
	case cfg.readOnly:
		return "the server was started with --read-only"
	case cfg.tokens == "" && cfg.users == "" && !loopback(listen):
		return "the server listens on " + listen + " without --tokens or --users; " +
			"writes need credentials with rw: grants (or a loopback address)"
	}
	return ""
}

// newWriter returns the writer every front end commits through, or nil
// when the catalog cannot commit (a worker has no catalog at all). One
// writer serves them all, so that its per-table lock makes commits from
// Flight and from REST clients take turns.
func newWriter(cat catalog.Catalog, pl *planner.Planner, log *slog.Logger) *writer.Writer {
	wc, ok := cat.(writer.Catalog)
	if !ok {
		if cat != nil {
			log.Info("the catalog cannot commit; serving reads only")
		}
		return nil
	}
	// The crash tests (writes_crash_test.go) stop a real flightd at a
	// named point of a commit; the variable is unset everywhere else.
	return writer.New(wc, writer.WithPlanner(pl), writer.WithHook(writer.CrashHook(os.Getenv("ICEFLIGHT_TEST_CRASH_POINT"))))
}

// writeOptions wires the writer into the Flight service.
func writeOptions(cfg serveConfig, cat catalog.Catalog, w *writer.Writer) []flight.Option {
	opts := []flight.Option{flight.WithPutLimits(cfg.maxPuts, cfg.maxPutBytes)}
	if reason := readOnlyReason(cfg, cfg.listen); reason != "" {
		opts = append(opts, flight.WithReadOnly(reason))
	}
	// Namespaces are listed even by a read-only server.
	ns, _ := cat.(flight.WriteCatalog)
	var fw flight.Writer
	if w != nil {
		// A nil *writer.Writer in the interface would not read as "no
		// writer" to the service.
		fw = w
	}
	return append(opts, flight.WithWriter(fw, ns))
}
