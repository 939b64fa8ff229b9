package catalog

import "errors"

// Sentinel errors of catalogs that are servers (REST, SQL), which callers
// branch on with errors.Is; flight maps each to a gRPC code.
var (
	// ErrNamespaceNotFound marks a namespace the catalog does not have. A
	// table looked up in such a namespace wraps ErrTableNotFound as well.
	ErrNamespaceNotFound = errors.New("namespace not found")
	// ErrCatalogPermissionDenied marks a catalog that refused the
	// credentials it was given (HTTP 401 after a token refresh, or 403).
	// Messages name the catalog, never a token or secret.
	ErrCatalogPermissionDenied = errors.New("catalog permission denied")
	// ErrCatalogUnavailable marks a catalog that failed in a way that may
	// pass on retry: a 5xx or 429 answer, a refused connection, a timeout.
	ErrCatalogUnavailable = errors.New("catalog unavailable")
	// ErrCatalogProtocol marks an exchange outside the catalog's protocol:
	// a malformed or oversized body, a redirect, a request the server
	// rejected as bad. Retrying does not help.
	ErrCatalogProtocol = errors.New("catalog protocol error")
)
