package client

import (
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// ReuseConnection is the location that means "the connection the plan came
// from" (Flight RPC: arrow-flight-reuse-connection).
const ReuseConnection = "arrow-flight-reuse-connection://?"

// target is where gRPC dials for a location, and whether it needs TLS.
type target struct {
	addr   string
	secure bool
}

// parseLocation turns a Flight location URI (grpc://, grpc+tcp://,
// grpc+tls://, grpc+unix://) or a bare host:port into a gRPC target.
func parseLocation(loc string) (target, error) {
	if !strings.Contains(loc, "://") {
		return target{addr: loc}, nil
	}
	u, err := url.Parse(loc)
	if err != nil {
		return target{}, fmt.Errorf("location %q: %w", loc, err)
	}
	switch u.Scheme {
	case "grpc", "grpc+tcp":
		return target{addr: u.Host}, nil
	case "grpc+tls":
		return target{addr: u.Host, secure: true}, nil
	case "grpc+unix":
		return target{addr: "unix:" + u.Path}, nil
	}
	return target{}, fmt.Errorf("location %q: unsupported scheme %q", loc, u.Scheme)
}

// pool holds one Flight client per location; gRPC connections are safe for
// concurrent use, so every endpoint naming a location shares its client.
type pool struct {
	opts   *options
	origin string

	mu      sync.Mutex
	clients map[string]flight.Client
	order   []string
	closed  bool
}

func newPool(opts *options, origin string) *pool {
	return &pool{opts: opts, origin: origin, clients: make(map[string]flight.Client)}
}

// get returns the client for a location, dialing it on first use; the
// reuse-connection location and "" mean the origin.
func (p *pool) get(loc string) (flight.Client, error) {
	if loc == ReuseConnection || loc == "" {
		loc = p.origin
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if c, ok := p.clients[loc]; ok {
		return c, nil
	}
	t, err := parseLocation(loc)
	if err != nil {
		return nil, err
	}
	dial := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if creds := p.opts.transport(t.secure); creds != nil {
		dial = []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	}
	dial = append(dial, p.opts.dial...)
	// grpc.NewClient connects lazily: a dead location fails at its first call.
	c, err := flight.NewClientWithMiddleware(t.addr, nil, nil, dial...)
	if err != nil {
		return nil, fmt.Errorf("location %s: %w", loc, err)
	}
	p.clients[loc] = c
	p.order = append(p.order, loc)
	return c, nil
}

// locations lists the locations that have a client, in the order they were
// dialed.
func (p *pool) locations() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.order...)
}

func (p *pool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var first error
	for _, loc := range p.order {
		if err := p.clients[loc].Close(); err != nil && first == nil {
			first = err
		}
	}
	p.clients = nil
	return first
}
