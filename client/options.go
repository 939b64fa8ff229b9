package client

import (
	"crypto/tls"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Option configures a Client.
type Option func(*options)

type options struct {
	headers    []string // key, value pairs
	user, pass string   // Basic login at Dial, when user is set
	tls        *tls.Config
	dial       []grpc.DialOption
	maxWorkers int
	buffered   int
	mem        memory.Allocator
}

func defaultOptions() options {
	// Endpoint streams mostly wait on the network; a few more streams than
	// cores keeps the pipe full without unbounded fan-out.
	return options{maxWorkers: min(32, runtime.NumCPU()+4), mem: memory.DefaultAllocator}
}

// WithToken sends "authorization: Bearer token" on every call.
func WithToken(token string) Option {
	return WithHeader("authorization", "Bearer "+token)
}

// WithBasicAuth logs in with a user and password (the server's --users)
// when the client is dialed: Handshake trades them for a session bearer
// token, which every later call sends. Workers that share the server's
// ticket keys accept the same token.
func WithBasicAuth(user, password string) Option {
	return func(o *options) { o.user, o.pass = user, password }
}

// WithHeader sends a header (gRPC metadata) on every call.
func WithHeader(key, value string) Option {
	return func(o *options) { o.headers = append(o.headers, key, value) }
}

// WithTLS sets the TLS configuration for grpc+tls locations (nil uses the
// system roots).
func WithTLS(cfg *tls.Config) Option {
	return func(o *options) {
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		o.tls = cfg
	}
}

// WithDialOptions adds gRPC dial options to every connection.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dial = append(o.dial, opts...) }
}

// WithMaxWorkers bounds how many endpoints are read at once (default: the
// number of CPUs plus 4, at most 32).
func WithMaxWorkers(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxWorkers = n
		}
	}
}

// WithBufferedBatches bounds how many record batches wait for the consumer
// of a scan (default: two per worker). Memory stays within this many
// batches plus one per worker.
func WithBufferedBatches(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.buffered = n
		}
	}
}

// WithAllocator sets the allocator that decoded record batches live in.
func WithAllocator(mem memory.Allocator) Option {
	return func(o *options) { o.mem = mem }
}

func (o *options) transport(secure bool) credentials.TransportCredentials {
	if !secure {
		return nil
	}
	cfg := o.tls
	if cfg == nil {
		cfg = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return credentials.NewTLS(cfg)
}
