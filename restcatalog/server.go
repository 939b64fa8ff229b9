package restcatalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/internal/strictjson"
	"github.com/iceflight/iceflight/writer"
)

// DefaultMaxBodyBytes bounds a request body: a commit of thousands of
// updates is a few megabytes, and the body is held whole while decoded.
const DefaultMaxBodyBytes = 16 << 20

// Server serves the Iceberg REST catalog API over an engine's catalog. It
// is an http.Handler.
type Server struct {
	eng      *engine.Engine
	cat      catalog.Catalog
	auth     *engine.Authenticator
	log      *slog.Logger
	writer   *writer.Writer
	readOnly string
	// mounts are the names of the catalogs served under their own prefix;
	// nil when the process serves one catalog alone.
	mounts  []string
	maxBody int64
	vend    VendFunc
	plans   *planStore
}

// VendFunc returns the storage properties (credentials included) that a
// client may use to read and write table t's files itself, or nil when
// the operator has not allowed vending them for its catalog. The server
// hands them out only to callers whose grants cover the table, scoped by
// prefix to the table's location.
type VendFunc func(ctx context.Context, t *catalog.Table) fileio.Properties

// Option sets an optional Server setting.
type Option func(*Server)

// WithWriter commits creates, updates and drops through w, the writer the
// Flight front end commits DoPut writes with; without it the server is
// read-only.
func WithWriter(w *writer.Writer) Option { return func(s *Server) { s.writer = w } }

// WithReadOnly refuses every change with reason, as flight.WithReadOnly.
func WithReadOnly(reason string) Option { return func(s *Server) { s.readOnly = reason } }

// WithCatalogs serves each named catalog of a catalog.Registry under its
// own prefix, the name.
func WithCatalogs(names []string) Option { return func(s *Server) { s.mounts = slices.Clone(names) } }

// WithMaxBodyBytes bounds request bodies (default DefaultMaxBodyBytes).
func WithMaxBodyBytes(n int64) Option { return func(s *Server) { s.maxBody = n } }

// WithVendedCredentials lets the server vend storage credentials where f
// returns them.
func WithVendedCredentials(f VendFunc) Option { return func(s *Server) { s.vend = f } }

// reserved are the first path segments after /v1 that are routes, so no
// catalog may be served under them as a prefix.
var reserved = []string{"config", "oauth", "namespaces", "tables", "transactions", "views"}

// New returns a server of eng's catalog.
func New(eng *engine.Engine, opts ...Option) (*Server, error) {
	s := &Server{eng: eng, cat: eng.Catalog(), auth: eng.Authenticator(), log: eng.Logger(),
		maxBody: DefaultMaxBodyBytes, plans: newPlanStore(time.Now)}
	for _, o := range opts {
		o(s)
	}
	if s.cat == nil {
		return nil, errors.New("rest catalog: the process has no catalog (a worker cannot serve one)")
	}
	for _, m := range s.mounts {
		if slices.Contains(reserved, m) {
			return nil, fmt.Errorf("rest catalog: catalog %q cannot be served as a REST prefix: the name is a route of the API; rename it", m)
		}
	}
	return s, nil
}

// request is one API call being served.
type request struct {
	r      *http.Request
	ctx    context.Context
	prefix []string // the mount the route's prefix names; nil for all
	vars   routeVars
	query  url.Values
	// names are what the call is about as the client names it, for the
	// lead of an error message; routes that take the name from the body
	// set it.
	names *subjectNames
}

// subjectNames name a call's namespace and table as the client does.
type subjectNames struct{ namespace, table string }

// set names namespace, and the table when table is not "".
func (n *subjectNames) set(namespace []string, table string) {
	n.namespace, n.table = joinNS(namespace), ""
	if table != "" {
		n.table = joinNS(append(slices.Clone(namespace), table))
	}
}

// about sets the names of a call whose namespace and table come in its
// body.
func (req *request) about(namespace []string, table string) { req.names.set(namespace, table) }

// ServeHTTP serves one call: it authenticates the caller, routes the
// call, and answers errors in the REST error model. Every call is logged
// and counted by the engine as the gRPC calls are.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, vars, err := s.match(r)
	method := "/iceberg.rest/unknown"
	if rt != nil {
		method = "/iceberg.rest/" + rt.name
	}
	ctx, finish := engine.StartCall(r.Context(), s.log, s.eng.Metrics(), method, r.RemoteAddr, propagation.HeaderCarrier(r.Header))
	var names subjectNames
	names.set(vars.namespace, vars.table)
	err = s.serve(ctx, w, r, rt, vars, &names, err)
	if err != nil {
		about := aboutTable
		if rt != nil {
			about = rt.about
		}
		err = logStatus(err, writeError(w, err, about, names))
	}
	finish(err)
}

// serve runs the matched route; a panic fails only its call.
func (s *Server) serve(ctx context.Context, w http.ResponseWriter, r *http.Request, rt *route, vars routeVars, names *subjectNames, matchErr error) (err error) {
	defer panics.Recover(&err, "rest "+r.Method+" "+r.URL.Path)
	if matchErr != nil {
		return matchErr
	}
	if !rt.open && s.auth != nil {
		p, err := s.auth.VerifyAuthorization(r.Header.Get("Authorization"))
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="iceflight"`)
			return err
		}
		ctx = engine.ContextWithPrincipal(ctx, p)
	}
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return badRequest("query: %v", err)
	}
	req := &request{r: r, ctx: ctx, vars: vars, query: query, names: names}
	if vars.prefix != "" {
		req.prefix = []string{vars.prefix}
	}
	return rt.serve(s, req, w)
}

// body reads the request body whole, bounded by the server's limit.
func (s *Server) body(req *request) ([]byte, error) {
	r := http.MaxBytesReader(nil, req.r.Body, s.maxBody)
	b, err := io.ReadAll(r)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, fmt.Errorf("%w: more than %d bytes", errTooLarge, s.maxBody)
		}
		return nil, badRequest("read body: %v", err)
	}
	return b, nil
}

// maxJSONDepth bounds the nesting of a request body: the deepest the API
// needs is a schema of nested types or a filter, far below it.
const maxJSONDepth = 256

// decodeBody reads the request body and decodes it into v strictly: a
// misspelt member is an error, never ignored, and so is JSON nested
// deeper than maxJSONDepth.
func (s *Server) decodeBody(req *request, v any) error {
	body, err := s.body(req)
	if err != nil {
		return err
	}
	// Refused before decoding, so that a hostile body cannot make the
	// decoder recurse without end.
	if d := strictjson.Depth(body); d > maxJSONDepth {
		return badRequest("request body nested %d levels deep; at most %d", d, maxJSONDepth)
	}
	if err := strictjson.Decode(body, v); err != nil {
		return badRequest("malformed request body: %v", err)
	}
	return nil
}

// writable refuses changes on a read-only server.
func (s *Server) writable(what string) error {
	switch {
	case s.readOnly != "":
		return fmt.Errorf("%s: %w: %s", what, catalog.ErrReadOnly, s.readOnly)
	case s.writer == nil:
		return fmt.Errorf("%s: %w: the catalog cannot commit", what, catalog.ErrReadOnly)
	}
	return nil
}

// mount returns the identifier the engine knows a namespace or table of
// the request's prefix by.
func (req *request) mount(parts []string) catalog.Identifier {
	return append(slices.Clone(req.prefix), parts...)
}

// unmount drops the request's prefix from an engine identifier.
func (req *request) unmount(id []string) []string {
	return id[len(req.prefix):]
}

// namespace returns the request's namespace as the engine names it.
func (req *request) namespace() []string { return req.mount(req.vars.namespace) }

// table returns the request's table as the engine names it.
func (req *request) table() catalog.Identifier { return req.tableNamed(req.vars.table) }

// tableNamed returns table name of the request's namespace as the engine
// names it, for routes that take the name from their body.
func (req *request) tableNamed(name string) catalog.Identifier {
	return req.mount(append(slices.Clone(req.vars.namespace), name))
}

// joinNS names a namespace in messages.
func joinNS(ns []string) string { return strings.Join(ns, ".") }
