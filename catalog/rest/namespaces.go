package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

// maxPages bounds one listing, so a server whose page tokens never end
// cannot hold a call forever.
const maxPages = 10000

// pageToken is a page token, which the spec allows to be null.
type pageToken = *string

// listNamespacesResponse is the body of GET /v1/{prefix}/namespaces.
type listNamespacesResponse struct {
	Namespaces    [][]string `json:"namespaces"`
	NextPageToken pageToken  `json:"next-page-token"`
}

// listTablesResponse is the body of GET .../namespaces/{namespace}/tables.
type listTablesResponse struct {
	Identifiers []struct {
		Namespace []string `json:"namespace"`
		Name      string   `json:"name"`
	} `json:"identifiers"`
	NextPageToken pageToken `json:"next-page-token"`
}

// ListNamespaces returns the namespaces directly below parent (nil: the
// top level), each as its full list of parts.
func (c *Catalog) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	if err := c.configure(ctx); err != nil {
		return nil, err
	}
	q := url.Values{}
	what := "list namespaces"
	if len(parent) > 0 {
		q.Set("parent", strings.Join(parent, c.separator))
		what = "list namespaces in " + strings.Join(parent, ".")
	}
	var out [][]string
	cl := call{method: http.MethodGet, url: c.base + "namespaces", query: q, what: what, notFound: catalog.ErrNamespaceNotFound}
	err := c.pages(ctx, cl, func(body []byte) (pageToken, error) {
		page, next, err := parseNamespacesPage(body, parent)
		out = append(out, page...)
		return next, err
	})
	return out, err
}

// parseNamespacesPage reads one page of namespaces listed under parent.
func parseNamespacesPage(body []byte, parent []string) ([][]string, pageToken, error) {
	var r listNamespacesResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, nil, err
	}
	for _, ns := range r.Namespaces {
		if err := catalog.Identifier(ns).Validate(); err != nil {
			return nil, nil, fmt.Errorf("namespace %q: %w", ns, err)
		}
		// Spec: a namespace listed under parent has the parent's parts
		// first; a server that lists another tree would send the walk in
		// circles.
		if len(ns) != len(parent)+1 || !slices.Equal(ns[:len(parent)], parent) {
			return nil, nil, fmt.Errorf("namespace %q is not a child of %q", ns, parent)
		}
	}
	return r.Namespaces, r.NextPageToken, nil
}

// listTablesIn returns the tables of one namespace.
func (c *Catalog) listTablesIn(ctx context.Context, ns []string) ([]catalog.Identifier, error) {
	var out []catalog.Identifier
	cl := call{method: http.MethodGet, url: c.base + "namespaces/" + c.encodeNamespace(ns) + "/tables",
		what: "list tables in " + strings.Join(ns, "."), notFound: catalog.ErrNamespaceNotFound}
	err := c.pages(ctx, cl, func(body []byte) (pageToken, error) {
		page, next, err := parseTablesPage(body)
		out = append(out, page...)
		return next, err
	})
	return out, err
}

// parseTablesPage reads one page of table identifiers.
func parseTablesPage(body []byte) ([]catalog.Identifier, pageToken, error) {
	var r listTablesResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, nil, err
	}
	out := make([]catalog.Identifier, 0, len(r.Identifiers))
	for _, t := range r.Identifiers {
		id := catalog.Identifier(append(slices.Clone(t.Namespace), t.Name))
		if err := id.Validate(); err != nil {
			return nil, nil, err
		}
		out = append(out, id)
	}
	return out, r.NextPageToken, nil
}

// pages runs a list call page by page. Spec: an empty pageToken asks a
// server that pages to do so; each answer's next-page-token, until it is
// null or empty, asks for the next page. parse reads one page's body.
func (c *Catalog) pages(ctx context.Context, cl call, parse func([]byte) (pageToken, error)) error {
	q := url.Values{}
	for k, v := range cl.query {
		q[k] = v
	}
	q.Set("pageToken", "")
	if c.pageSize > 0 {
		q.Set("pageSize", strconv.Itoa(c.pageSize))
	}
	seen := make(map[string]bool)
	for range maxPages {
		cl.query = q
		resp, err := c.send(ctx, cl)
		if err != nil {
			return err
		}
		next, err := parse(resp.body)
		if err != nil {
			return c.errorf(cl, "%w: malformed body: %v", errProtocol, err)
		}
		if next == nil || *next == "" {
			return nil
		}
		if seen[*next] {
			return c.errorf(cl, "%w: page token repeats", errProtocol)
		}
		seen[*next] = true
		q.Set("pageToken", *next)
	}
	return c.errorf(cl, "%w: more than %d pages", errProtocol, maxPages)
}

// sortIdentifiers sorts by parts, so "a.b" lists before "a.b.c" and "a.c".
func sortIdentifiers(ids []catalog.Identifier) {
	slices.SortFunc(ids, func(a, b catalog.Identifier) int { return slices.Compare(a, b) })
}
