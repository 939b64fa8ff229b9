package hms

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Defaults of a Pool's settings.
const (
	// DefaultSize is how many connections a Pool opens at most, as Iceberg
	// Java's default client pool (clients=2) and a few more for a server.
	DefaultSize = 4
	// DefaultDialTimeout bounds a connection attempt to one address.
	DefaultDialTimeout = 10 * time.Second
	// DefaultCallTimeout bounds a call whose context has no deadline.
	DefaultCallTimeout = 60 * time.Second
	// DefaultReadRetries is how many times a read that failed in
	// transport is tried again on a new connection.
	DefaultReadRetries = 2
	// maxIdle is how long a connection may sit in the pool; an older one
	// is closed rather than trusted.
	maxIdle = 5 * time.Minute
)

// ErrClosed marks a call on a closed Pool.
var ErrClosed = errors.New("metastore client closed")

// Config configures a Pool.
type Config struct {
	// Addrs are the metastores' host:port addresses, tried in order for
	// each new connection (a metastore's "uri" list).
	Addrs []string
	// Size is how many connections may be open at once (DefaultSize if
	// 0); a call waits for a free one.
	Size int
	// DialTimeout and CallTimeout bound a connection attempt and a call
	// (defaults if 0); a context's deadline bounds both as well.
	DialTimeout, CallTimeout time.Duration
	// ReadRetries is how many more times Pool.Read tries a read that
	// failed in transport (DefaultReadRetries if 0, none if negative).
	ReadRetries int
}

// Pool is a few connections to a metastore, lent to one caller at a time.
// It is safe for concurrent use.
type Pool struct {
	cfg    Config
	tokens chan struct{} // one per connection lent out
	idle   chan *conn

	mu     sync.Mutex
	closed bool
}

// NewPool returns a Pool for cfg. It connects lazily: the first call
// opens the first connection.
func NewPool(cfg Config) *Pool {
	if cfg.Size <= 0 {
		cfg.Size = DefaultSize
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.ReadRetries == 0 {
		cfg.ReadRetries = DefaultReadRetries
	}
	return &Pool{cfg: cfg, tokens: make(chan struct{}, cfg.Size), idle: make(chan *conn, cfg.Size)}
}

// Do runs fn with one connection, for calls that change the metastore or
// must share a connection. It does not retry: a change whose reply was
// lost may have taken effect.
func (p *Pool) Do(ctx context.Context, fn func(*Client) error) error {
	c, err := p.get(ctx)
	if err != nil {
		return err
	}
	defer p.put(c)
	return fn(&Client{c})
}

// Read runs fn, whose calls only read, with one connection, and again
// with a new one when a call fails in transport (a connection the
// metastore dropped, a metastore that restarted), up to cfg.ReadRetries
// more times.
func (p *Pool) Read(ctx context.Context, fn func(*Client) error) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = p.Do(ctx, fn)
		var ce *ConnError
		if err == nil || !errors.As(err, &ce) || attempt >= p.cfg.ReadRetries || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
		}
	}
}

// Close closes the idle connections; a connection lent out is closed when
// it comes back. Calls after Close fail with ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	for c := p.takeIdle(); c != nil; c = p.takeIdle() {
		c.close()
	}
	return nil
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// get lends a connection: an idle one that is still good, or a new one.
func (p *Pool) get(ctx context.Context) (*conn, error) {
	select {
	case p.tokens <- struct{}{}:
	case <-ctx.Done():
		return nil, &ConnError{Method: "connect", Err: fmt.Errorf("waiting for a free connection: %w", ctx.Err())}
	}
	if p.isClosed() {
		<-p.tokens
		return nil, ErrClosed
	}
	for c := p.takeIdle(); c != nil; c = p.takeIdle() {
		if time.Since(c.idle) <= maxIdle && !c.stale() {
			return c, nil
		}
		c.close()
	}
	c, err := p.dial(ctx)
	if err != nil {
		<-p.tokens
		return nil, err
	}
	return c, nil
}

// takeIdle returns an idle connection, or nil when there is none.
func (p *Pool) takeIdle() *conn {
	select {
	case c := <-p.idle:
		return c
	default:
		return nil
	}
}

// put takes a lent connection back: kept if it is sound, else closed.
func (p *Pool) put(c *conn) {
	defer func() { <-p.tokens }()
	if c.broken || p.isClosed() {
		c.close()
		return
	}
	c.idle = time.Now()
	select {
	case p.idle <- c:
	default:
		c.close()
	}
}

// dial connects to the first address that answers, in order.
func (p *Pool) dial(ctx context.Context) (*conn, error) {
	var errs []error
	for _, addr := range p.cfg.Addrs {
		d := net.Dialer{Timeout: p.cfg.DialTimeout}
		nc, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return newConn(nc, p.cfg.CallTimeout), nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 0 {
		errs = append(errs, errors.New("no metastore address"))
	}
	return nil, &ConnError{Method: "connect", Err: errors.Join(errs...)}
}
