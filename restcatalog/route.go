package restcatalog

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

// namespaceSeparator joins the parts of a multi-level namespace in a path
// segment or the parent parameter, as the API's default says ("%1F").
const namespaceSeparator = "\x1f"

// maxPathSegments bounds a path: the longest route has eight segments.
const maxPathSegments = 16

// route is one operation of the API.
type route struct {
	// name is the OpenAPI operationId, used in logs and metrics.
	name   string
	method string
	// pattern is the path below /v1/{prefix}/ with {namespace}, {table},
	// {plan} and {view} holes; "config" and "oauth/tokens" have no prefix.
	pattern string
	about   subject
	// open routes are served without credentials (the token endpoint).
	open  bool
	serve func(s *Server, req *request, w http.ResponseWriter) error
	// advertise lists the route in /v1/config's endpoints.
	advertise bool
}

// routeVars are the values of a matched route's holes.
type routeVars struct {
	prefix    string
	namespace []string
	table     string
	hasTable  bool
	plan      string
}

// routes is the API this server serves, in the OpenAPI's order.
var routes []*route

func init() {
	routes = []*route{
		{name: "getConfig", method: http.MethodGet, pattern: "config", serve: (*Server).getConfig, open: false},
		{name: "getToken", method: http.MethodPost, pattern: "oauth/tokens", serve: (*Server).getToken, open: true},
		{name: "listNamespaces", method: http.MethodGet, pattern: "namespaces", about: aboutNamespace, serve: (*Server).listNamespaces, advertise: true},
		{name: "createNamespace", method: http.MethodPost, pattern: "namespaces", about: aboutNamespace, serve: (*Server).createNamespace, advertise: true},
		{name: "loadNamespaceMetadata", method: http.MethodGet, pattern: "namespaces/{namespace}", about: aboutNamespace, serve: (*Server).loadNamespace, advertise: true},
		{name: "namespaceExists", method: http.MethodHead, pattern: "namespaces/{namespace}", about: aboutNamespace, serve: (*Server).namespaceExists, advertise: true},
		{name: "dropNamespace", method: http.MethodDelete, pattern: "namespaces/{namespace}", about: aboutNamespace, serve: (*Server).dropNamespace, advertise: true},
		{name: "updateProperties", method: http.MethodPost, pattern: "namespaces/{namespace}/properties", about: aboutNamespace, serve: (*Server).updateProperties, advertise: true},
		{name: "listTables", method: http.MethodGet, pattern: "namespaces/{namespace}/tables", about: aboutNamespace, serve: (*Server).listTables, advertise: true},
		{name: "createTable", method: http.MethodPost, pattern: "namespaces/{namespace}/tables", about: aboutNamespace, serve: (*Server).createTable, advertise: true},
		{name: "planTableScan", method: http.MethodPost, pattern: "namespaces/{namespace}/tables/{table}/plan", about: aboutTable, serve: (*Server).planTableScan, advertise: true},
		{name: "fetchPlanningResult", method: http.MethodGet, pattern: "namespaces/{namespace}/tables/{table}/plan/{plan}", about: aboutPlan, serve: (*Server).fetchPlanningResult, advertise: true},
		{name: "cancelPlanning", method: http.MethodDelete, pattern: "namespaces/{namespace}/tables/{table}/plan/{plan}", about: aboutPlan, serve: (*Server).cancelPlanning, advertise: true},
		{name: "fetchScanTasks", method: http.MethodPost, pattern: "namespaces/{namespace}/tables/{table}/tasks", about: aboutPlan, serve: (*Server).fetchScanTasks, advertise: true},
		{name: "registerTable", method: http.MethodPost, pattern: "namespaces/{namespace}/register", about: aboutNamespace, serve: (*Server).registerTable, advertise: true},
		{name: "loadTable", method: http.MethodGet, pattern: "namespaces/{namespace}/tables/{table}", about: aboutTable, serve: (*Server).loadTable, advertise: true},
		{name: "updateTable", method: http.MethodPost, pattern: "namespaces/{namespace}/tables/{table}", about: aboutTable, serve: (*Server).updateTable, advertise: true},
		{name: "dropTable", method: http.MethodDelete, pattern: "namespaces/{namespace}/tables/{table}", about: aboutTable, serve: (*Server).dropTable, advertise: true},
		{name: "tableExists", method: http.MethodHead, pattern: "namespaces/{namespace}/tables/{table}", about: aboutTable, serve: (*Server).tableExists, advertise: true},
		{name: "loadCredentials", method: http.MethodGet, pattern: "namespaces/{namespace}/tables/{table}/credentials", about: aboutTable, serve: (*Server).loadCredentials, advertise: true},
		{name: "renameTable", method: http.MethodPost, pattern: "tables/rename", about: aboutTable, serve: (*Server).renameTable, advertise: true},
		{name: "reportMetrics", method: http.MethodPost, pattern: "namespaces/{namespace}/tables/{table}/metrics", about: aboutTable, serve: (*Server).reportMetrics, advertise: true},
		{name: "commitTransaction", method: http.MethodPost, pattern: "transactions/commit", about: aboutTable, serve: (*Server).commitTransaction, advertise: true},
	}
	// Views: no catalog iceflight serves stores them. The routes are
	// known so that a client is told so plainly (501), and they are not
	// advertised, so clients that read /v1/config never call them.
	for _, v := range []struct{ method, pattern string }{
		{http.MethodGet, "namespaces/{namespace}/views"}, {http.MethodPost, "namespaces/{namespace}/views"},
		{http.MethodGet, "namespaces/{namespace}/views/{table}"}, {http.MethodPost, "namespaces/{namespace}/views/{table}"},
		{http.MethodDelete, "namespaces/{namespace}/views/{table}"}, {http.MethodHead, "namespaces/{namespace}/views/{table}"},
		{http.MethodPost, "views/rename"}, {http.MethodPost, "namespaces/{namespace}/register-view"},
	} {
		routes = append(routes, &route{name: "views", method: v.method, pattern: v.pattern, about: aboutView, serve: (*Server).views})
	}
}

// match finds the route of r and the values of its holes. A path that
// matches no route is NotFound (in the error model); one that matches
// with another method is 405.
func (s *Server) match(r *http.Request) (*route, routeVars, error) {
	var vars routeVars
	raw, ok := strings.CutPrefix(r.URL.EscapedPath(), "/v1/")
	if !ok {
		return nil, vars, fmt.Errorf("%w: %s is not an Iceberg REST catalog route (they start with /v1/)", errNoRoute, r.URL.Path)
	}
	segs := strings.Split(strings.TrimSuffix(raw, "/"), "/")
	if len(segs) > maxPathSegments {
		return nil, vars, badRequest("path of %d segments", len(segs))
	}
	for i, seg := range segs {
		v, err := url.PathUnescape(seg)
		if err != nil {
			return nil, vars, badRequest("path segment %d: %v", i+1, err)
		}
		segs[i] = v
	}
	if len(segs) > 1 && !slices.Contains(reserved, segs[0]) {
		vars.prefix, segs = segs[0], segs[1:]
		if err := s.checkPrefix(vars.prefix); err != nil {
			return nil, vars, err
		}
	}
	var allowed []string
	for _, rt := range routes {
		v, ok := matchPattern(rt.pattern, segs)
		if !ok || (vars.prefix != "" && !prefixed(rt)) {
			continue
		}
		if rt.method != r.Method {
			allowed = append(allowed, rt.method)
			continue
		}
		v.prefix = vars.prefix
		if err := v.check(); err != nil {
			return rt, v, err
		}
		return rt, v, nil
	}
	if len(allowed) > 0 {
		return nil, vars, fmt.Errorf("%w: %s %s (allowed: %s)", errMethod, r.Method, r.URL.Path, strings.Join(allowed, ", "))
	}
	return nil, vars, fmt.Errorf("%w: %s %s", errNoRoute, r.Method, r.URL.Path)
}

// errNoRoute is a path of no route; it answers 404 NotFoundException.
var errNoRoute = errors.New("no such route")

// prefixed reports whether rt takes a prefix: all but config and the
// token endpoint.
func prefixed(rt *route) bool { return rt.pattern != "config" && rt.pattern != "oauth/tokens" }

// checkPrefix refuses a prefix that names no catalog of the process.
func (s *Server) checkPrefix(prefix string) error {
	if slices.Contains(s.mounts, prefix) {
		return nil
	}
	if len(s.mounts) == 0 {
		return fmt.Errorf("%w: prefix %q: this server serves one catalog, without a prefix", catalog.ErrNamespaceNotFound, prefix)
	}
	return fmt.Errorf("%w: prefix %q names no catalog (catalogs: %s)", catalog.ErrNamespaceNotFound, prefix, strings.Join(s.mounts, ", "))
}

// matchPattern matches path segments against a pattern's.
func matchPattern(pattern string, segs []string) (routeVars, bool) {
	var v routeVars
	parts := strings.Split(pattern, "/")
	if len(parts) != len(segs) {
		return v, false
	}
	for i, p := range parts {
		switch p {
		case "{namespace}":
			v.namespace = strings.Split(segs[i], namespaceSeparator)
		case "{table}":
			v.table, v.hasTable = segs[i], true
		case "{plan}":
			v.plan = segs[i]
		default:
			if p != segs[i] {
				return v, false
			}
		}
	}
	return v, true
}

// check validates the names in a route's holes, so that no namespace or
// table name can climb out of a catalog's folder.
func (v routeVars) check() error {
	if v.namespace != nil {
		if err := catalog.Identifier(v.namespace).Validate(); err != nil {
			return fmt.Errorf("%w: namespace: %w", errBadRequest, err)
		}
	}
	if v.hasTable {
		if err := (catalog.Identifier{v.table}).Validate(); err != nil {
			return fmt.Errorf("%w: table: %w", errBadRequest, err)
		}
	}
	return nil
}
