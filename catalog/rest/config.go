package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/iceflight/iceflight/fileio"
)

// configResponse is the body of GET /v1/config (CatalogConfig).
type configResponse struct {
	Defaults  map[string]string `json:"defaults"`
	Overrides map[string]string `json:"overrides"`
}

// defaultSeparator joins namespace parts in paths and query parameters:
// the unit separator, as the spec says, unless the server's configuration
// names another ("namespace-separator").
const defaultSeparator = "\x1f"

// configure fetches the server's configuration once: the first call that
// succeeds sets it, a failed one leaves the next call to try again.
//
// Spec: GET /v1/config — "defaults" are applied before the client's
// configuration and "overrides" after it, so the merged properties are
// defaults, then the client's, then overrides. The warehouse goes as a
// query parameter; "prefix" and "uri" may be overridden.
func (c *Catalog) configure(ctx context.Context) error {
	if err := c.cfgMu.lock(ctx); err != nil {
		return fmt.Errorf("rest catalog %q: read config: %w", c.name, err)
	}
	defer c.cfgMu.unlock()
	if c.configured {
		return nil
	}
	q := url.Values{}
	if w := c.props.Get("warehouse"); w != "" {
		q.Set("warehouse", w)
	}
	var cfg configResponse
	if err := c.call(ctx, call{method: http.MethodGet, url: c.root + "v1/config", query: q, what: "read config"}, &cfg); err != nil {
		return err
	}
	merged := make(fileio.Properties, len(cfg.Defaults)+len(c.props)+len(cfg.Overrides))
	for _, layer := range []map[string]string{cfg.Defaults, c.props, cfg.Overrides} {
		for k, v := range layer {
			merged[k] = v
		}
	}
	root := c.root
	if u := strings.TrimRight(merged.Get("uri"), "/"); u != "" && u+"/" != root {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return fmt.Errorf("rest catalog %q: %w: the server's config overrides uri with %q", c.name, errProtocol, u)
		}
		root = u + "/"
	}
	base := root + "v1/"
	if p := strings.Trim(merged.Get("prefix"), "/"); p != "" {
		base += p + "/"
	}
	sep := defaultSeparator
	if s := merged.Get("namespace-separator"); s != "" {
		// The server sends the separator URL-encoded ("%1F", "%2E").
		if dec, err := url.PathUnescape(s); err == nil && dec != "" {
			sep = dec
		}
	}
	headers := http.Header{}
	for k, v := range merged {
		if name, ok := strings.CutPrefix(k, "header."); ok && name != "" {
			headers.Set(name, v)
		}
	}
	if headers.Get("X-Iceberg-Access-Delegation") == "" {
		// As PyIceberg and Iceberg Java do: ask for credentials scoped to the
		// table, which a catalog without them ignores.
		headers.Set("X-Iceberg-Access-Delegation", "vended-credentials")
	}
	io, err := c.newIO(ctx, merged)
	if err != nil {
		return fmt.Errorf("rest catalog %q: storage: %w", c.name, err)
	}
	c.merged, c.root, c.base, c.separator, c.headers, c.io = merged, root, base, sep, headers, io
	c.configured = true
	return nil
}

// encodeNamespace joins a namespace's parts with the separator and escapes
// the result for a path segment.
func (c *Catalog) encodeNamespace(ns []string) string {
	return url.PathEscape(strings.Join(ns, c.separator))
}
