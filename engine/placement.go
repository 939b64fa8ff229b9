package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/planner"
)

// errNoWorkers is returned when a coordinator has no worker that is fit to
// serve an endpoint; it maps to Unavailable.
var errNoWorkers = errors.New("no healthy worker")

// Workers is a coordinator's view of its workers: their addresses, from a
// fixed list or re-resolved from a DNS name (a Kubernetes headless service),
// and their health from the gRPC health protocol. It places endpoints on
// them by rendezvous hashing.
type Workers struct {
	scheme   string // grpc or grpc+tls
	creds    credentials.TransportCredentials
	static   []string
	dnsHost  string
	dnsPort  string
	resolve  time.Duration
	interval time.Duration
	timeout  time.Duration
	lookup   func(ctx context.Context, host string) ([]string, error)
	log      *slog.Logger

	mu      sync.Mutex
	members map[string]*member
	order   []string // addresses, sorted
}

// member is one worker and the last health check's verdict.
type member struct {
	addr    string
	conn    *grpc.ClientConn
	healthy bool
	checked bool
}

// WorkersOption configures Workers.
type WorkersOption func(*Workers)

// WithWorkerTLS makes the coordinator reach its workers over TLS (and
// write grpc+tls locations) with creds, which may carry a client
// certificate for workers that require mutual TLS.
func WithWorkerTLS(creds credentials.TransportCredentials) WorkersOption {
	return func(w *Workers) { w.creds, w.scheme = creds, "grpc+tls" }
}

// WithHealthInterval sets how often each worker's health is checked and
// how long one check may take.
func WithHealthInterval(every, timeout time.Duration) WorkersOption {
	return func(w *Workers) { w.interval, w.timeout = every, timeout }
}

// WithResolveInterval sets how often a DNS worker name is looked up again.
func WithResolveInterval(d time.Duration) WorkersOption {
	return func(w *Workers) { w.resolve = d }
}

// WithWorkersLogger sets the logger for membership and health changes.
func WithWorkersLogger(l *slog.Logger) WorkersOption { return func(w *Workers) { w.log = l } }

// NewWorkers parses a worker list: comma-separated host:port addresses, or
// one dns:///name:port target whose A/AAAA records are the workers. Call Run
// to keep membership and health current.
func NewWorkers(spec string, opts ...WorkersOption) (*Workers, error) {
	w := &Workers{
		scheme: "grpc", creds: insecure.NewCredentials(),
		resolve: 10 * time.Second, interval: 5 * time.Second, timeout: 2 * time.Second,
		lookup: net.DefaultResolver.LookupHost, log: slog.Default(),
		members: map[string]*member{},
	}
	for _, o := range opts {
		o(w)
	}
	if target, ok := strings.CutPrefix(spec, "dns:///"); ok {
		host, port, err := net.SplitHostPort(target)
		if err != nil || host == "" || port == "" {
			return nil, fmt.Errorf("workers %q: want dns:///name:port", spec)
		}
		w.dnsHost, w.dnsPort = host, port
		return w, nil
	}
	for _, addr := range strings.Split(spec, ",") {
		addr = strings.TrimSpace(addr)
		if addr == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("workers: %q is not host:port", addr)
		}
		w.static = append(w.static, addr)
	}
	if len(w.static) == 0 {
		return nil, fmt.Errorf("workers %q: no address", spec)
	}
	// A fixed list needs no I/O to know its members: offer them at once.
	w.updateMembers(context.Background())
	return w, nil
}

// Run resolves the workers and checks their health until ctx ends, then
// closes its connections.
func (w *Workers) Run(ctx context.Context) {
	defer w.Close()
	w.Refresh(ctx)
	health := time.NewTicker(w.interval)
	defer health.Stop()
	resolve := time.NewTicker(w.resolve)
	defer resolve.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-resolve.C:
			if w.dnsHost != "" {
				w.updateMembers(ctx)
			}
		case <-health.C:
			w.checkAll(ctx)
		}
	}
}

// Refresh resolves the members and checks every one's health once.
func (w *Workers) Refresh(ctx context.Context) {
	w.updateMembers(ctx)
	w.checkAll(ctx)
}

func (w *Workers) updateMembers(ctx context.Context) {
	addrs := w.static
	if w.dnsHost != "" {
		ctx, cancel := context.WithTimeout(ctx, w.timeout)
		hosts, err := w.lookup(ctx, w.dnsHost)
		cancel()
		if err != nil {
			// Keep the last known members: a DNS hiccup must not empty the pool.
			w.log.Warn("resolve workers", "name", w.dnsHost, "err", err)
			return
		}
		addrs = make([]string, 0, len(hosts))
		for _, h := range hosts {
			addrs = append(addrs, net.JoinHostPort(h, w.dnsPort))
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	keep := make(map[string]bool, len(addrs))
	for _, a := range addrs {
		keep[a] = true
		if w.members[a] != nil {
			continue
		}
		conn, err := grpc.NewClient(a, grpc.WithTransportCredentials(w.creds))
		if err != nil {
			w.log.Warn("worker", "addr", a, "err", err)
			continue
		}
		w.members[a] = &member{addr: a, conn: conn}
		w.log.Info("worker joined", "addr", a)
	}
	for a, m := range w.members {
		if !keep[a] {
			m.conn.Close()
			delete(w.members, a)
			w.log.Info("worker left", "addr", a)
		}
	}
	w.order = w.order[:0]
	for a := range w.members {
		w.order = append(w.order, a)
	}
	slices.Sort(w.order)
}

func (w *Workers) checkAll(ctx context.Context) {
	w.mu.Lock()
	ms := make([]*member, 0, len(w.members))
	for _, m := range w.members {
		ms = append(ms, m)
	}
	w.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() {
			ok := w.check(ctx, m.conn)
			w.mu.Lock()
			changed := !m.checked || m.healthy != ok
			m.healthy, m.checked = ok, true
			w.mu.Unlock()
			if changed {
				w.log.Info("worker health", "addr", m.addr, "serving", ok)
			}
		})
	}
	wg.Wait()
}

func (w *Workers) check(ctx context.Context, conn *grpc.ClientConn) bool {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	return err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING
}

// Close closes the connections to the workers (health checks), as Run does
// when its context ends; for a Workers that never ran.
func (w *Workers) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for a, m := range w.members {
		m.conn.Close()
		delete(w.members, a)
	}
	w.order = nil
}

// Healthy lists the workers that can take endpoints: those whose last
// health check passed, and those not checked yet (a coordinator that has
// just started should not refuse to plan).
func (w *Workers) Healthy() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, a := range w.order {
		if m := w.members[a]; m.healthy || !m.checked {
			out = append(out, a)
		}
	}
	return out
}

// Locations orders the healthy workers for one endpoint: the worker most
// of its bytes hash to first, then the others as fallbacks.
func (w *Workers) Locations(tasks []*scantask.Task) ([]*flight.Location, error) {
	addrs := w.Healthy()
	if len(addrs) == 0 {
		return nil, errNoWorkers
	}
	ranked := rendezvous(addrs, tasks)
	locs := make([]*flight.Location, len(ranked))
	for i, a := range ranked {
		locs[i] = &flight.Location{Uri: w.scheme + "://" + a}
	}
	return locs, nil
}

// Ranked returns the connections of the healthy workers in the order
// Locations gives them for tasks: whom to ask first for work on those
// files, and the fallbacks.
func (w *Workers) Ranked(tasks []*scantask.Task) ([]*grpc.ClientConn, error) {
	addrs := w.Healthy()
	if len(addrs) == 0 {
		return nil, errNoWorkers
	}
	ranked := rendezvous(addrs, tasks)
	w.mu.Lock()
	defer w.mu.Unlock()
	conns := make([]*grpc.ClientConn, 0, len(ranked))
	for _, a := range ranked {
		if m := w.members[a]; m != nil {
			conns = append(conns, m.conn)
		}
	}
	if len(conns) == 0 {
		return nil, errNoWorkers
	}
	return conns, nil
}

// rendezvous ranks workers for a set of tasks by highest random weight:
// each data file votes, with its bytes, for the worker that scores highest
// for its path, so a file lands on the same worker in every plan (for that
// worker's caches) and moves only if that worker leaves. Workers with equal
// votes, and those with none, are ordered by their score for the first
// path, which keeps the fallbacks stable too.
func rendezvous(addrs []string, tasks []*scantask.Task) []string {
	votes := make(map[string]int64, len(addrs))
	for _, t := range tasks {
		best, bestScore := "", uint64(0)
		for _, a := range addrs {
			if s := score(a, t.Path); best == "" || s > bestScore {
				best, bestScore = a, s
			}
		}
		votes[best] += max(planner.TaskBytes(t), 1)
	}
	first := ""
	if len(tasks) > 0 {
		first = tasks[0].Path
	}
	ranked := slices.Clone(addrs)
	slices.SortFunc(ranked, func(a, b string) int {
		if c := cmp.Compare(votes[b], votes[a]); c != 0 {
			return c
		}
		return cmp.Compare(score(b, first), score(a, first))
	})
	return ranked
}

// score is a worker's weight for a key. FNV-1a mixes poorly in its high
// bits for inputs that differ only at the end, so a final avalanche step
// spreads them.
func score(worker, key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(worker))
	h.Write([]byte{0})
	h.Write([]byte(key))
	x := h.Sum64()
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
