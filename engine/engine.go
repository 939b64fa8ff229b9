// Package engine is the core every iceflight front end shares: it resolves
// a command to a table the caller may read, plans it into endpoints whose
// tickets it signs and places on workers, and streams a verified ticket's
// record batches through one sink (encode-once messages, IPC compression,
// byte counts). Grants, limits, metrics and the call log apply here, once,
// whichever protocol a call came in on: the plain Flight service (package
// flight) and Flight SQL (package flightsql) are adapters over an Engine,
// and neither imports the other.
package engine

import (
	"log/slog"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.opentelemetry.io/otel"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// ReuseConnection is the location that tells a client to fetch an endpoint
// over the connection it planned on.
const ReuseConnection = "arrow-flight-reuse-connection://?"

// tracer keeps the instrumentation scope the call log has always had,
// the one operators' trace queries filter on.
var tracer = otel.Tracer("github.com/iceflight/iceflight/flight")

// Engine plans and streams the tables of a catalog for every front end.
type Engine struct {
	catalog catalog.Catalog
	planner *planner.Planner
	reader  *reader.Reader
	// compression is the IPC body compression of DoGet streams.
	compression Compression
	// profiles are the readers of the storage profiles tickets name.
	profiles map[string]*reader.Reader
	signer   *Signer
	mem      memory.Allocator
	log      *slog.Logger

	role      Role
	workers   *Workers
	advertise string
	streams   *Limiter
	plans     *Limiter
	auth      *Authenticator
	metrics   *Metrics
	// maxInfoBytes is the FlightInfo budget; see planInfo.
	maxInfoBytes int
	// storage builds the FileIO of tickets with sealed storage properties;
	// see WithStorage.
	storage StorageFunc
	// manifestAbove is the plan size above which scans are planned at the
	// manifest level; see WithManifestTicketsAbove.
	manifestAbove int64
	// largeTickets is what a plan past manifestAbove becomes; see
	// WithLargePlanTickets.
	largeTickets string
	// metadata holds the metadata files unit tickets read.
	metadata *metadataCache
	// polls are the plans PollFlightInfo streams.
	polls pollJobs
}

// Option configures an Engine.
type Option func(*Engine)

// WithAllocator sets the allocator used for schemas and streams.
func WithAllocator(mem memory.Allocator) Option { return func(e *Engine) { e.mem = mem } }

// WithLogger sets the logger for per-request diagnostics.
func WithLogger(l *slog.Logger) Option { return func(e *Engine) { e.log = l } }

// WithPlanner replaces the default planner.
func WithPlanner(p *planner.Planner) Option { return func(e *Engine) { e.planner = p } }

// WithRole sets what this process does; the default is RoleAll.
func WithRole(r Role) Option { return func(e *Engine) { e.role = r } }

// WithWorkers places endpoints on w's workers instead of this process.
func WithWorkers(w *Workers) Option { return func(e *Engine) { e.workers = w } }

// WithAdvertise sets the location URI (grpc://host:port) written into
// endpoints when there are no workers, instead of the reuse-connection
// location.
func WithAdvertise(uri string) Option { return func(e *Engine) { e.advertise = uri } }

// WithAuthenticator makes every table access check the caller's
// namespaces and serves Handshake. The same Authenticator's interceptors
// must run on the server; without them every table call is refused.
func WithAuthenticator(a *Authenticator) Option { return func(e *Engine) { e.auth = a } }

// WithMetrics records rows, bytes, streams, plan latency and refusals.
func WithMetrics(m *Metrics) Option { return func(e *Engine) { e.metrics = m } }

// WithLimits bounds the concurrent DoGet streams and planning calls
// (GetFlightInfo, PollFlightInfo, GetSchema, ListFlights, DoAction); 0
// means unbounded.
func WithLimits(maxStreams, maxPlans int) Option {
	return func(e *Engine) {
		e.streams, e.plans = NewLimiter("DoGet", maxStreams), NewLimiter("planning", maxPlans)
	}
}

// WithProfileReaders sets the reader of each storage profile, by the name
// of the mounted catalog (catalog.Registry) whose storage it reads: a
// ticket of a mounted catalog's table reads its files with that catalog's
// reader, and one naming a profile this engine lacks is refused. The
// readers of a coordinator and its workers must come from one
// configuration.
func WithProfileReaders(readers map[string]*reader.Reader) Option {
	return func(e *Engine) { e.profiles = readers }
}

// New returns an Engine that serves cat's tables, reads files with rd
// (and those of mounted catalogs with their profiles' readers, see
// WithProfileReaders) and signs tickets with signer.
func New(cat catalog.Catalog, rd *reader.Reader, signer *Signer, opts ...Option) *Engine {
	e := &Engine{catalog: cat, reader: rd, signer: signer, planner: planner.New(),
		mem: memory.DefaultAllocator, log: slog.Default(),
		streams: NewLimiter("DoGet", DefaultMaxStreams), plans: NewLimiter("planning", DefaultMaxPlans),
		maxInfoBytes: DefaultMaxFlightInfoBytes, manifestAbove: DefaultManifestTicketsAbove, largeTickets: TicketsManifests, metadata: newMetadataCache(metadataCacheEntries)}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Catalog is the catalog the engine serves.
func (e *Engine) Catalog() catalog.Catalog { return e.catalog }

// Allocator is the allocator of the engine's schemas and streams.
func (e *Engine) Allocator() memory.Allocator { return e.mem }

// Logger is the engine's logger of per-request diagnostics.
func (e *Engine) Logger() *slog.Logger { return e.log }

// Role is what this process serves.
func (e *Engine) Role() Role { return e.role }

// Metrics is the engine's metrics recorder; nil records nothing.
func (e *Engine) Metrics() *Metrics { return e.metrics }

// Authenticator is the engine's authenticator; nil when the server does
// not authenticate, and every grant check then passes.
func (e *Engine) Authenticator() *Authenticator { return e.auth }
