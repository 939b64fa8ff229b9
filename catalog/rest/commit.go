package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

var (
	_ catalog.Committer  = (*Catalog)(nil)
	_ catalog.Namespaces = (*Catalog)(nil)
)

// restIdentifier is the spec's TableIdentifier.
type restIdentifier struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// commitTableRequest is the spec's CommitTableRequest.
type commitTableRequest struct {
	Identifier   restIdentifier        `json:"identifier"`
	Requirements []iceberg.Requirement `json:"requirements"`
	Updates      []iceberg.Update      `json:"updates"`
}

// createTableRequest is the spec's CreateTableRequest.
type createTableRequest struct {
	Name          string                 `json:"name"`
	Location      string                 `json:"location,omitempty"`
	Schema        *iceberg.Schema        `json:"schema"`
	PartitionSpec *iceberg.PartitionSpec `json:"partition-spec,omitempty"`
	WriteOrder    *iceberg.SortOrder     `json:"write-order,omitempty"`
	StageCreate   bool                   `json:"stage-create"`
	Properties    map[string]string      `json:"properties,omitempty"`
}

// tableURL is the URL of the table id.
func (c *Catalog) tableURL(id catalog.Identifier) string {
	return c.base + "namespaces/" + c.encodeNamespace(id.Namespace()) + "/tables/" + url.PathEscape(id.Name())
}

// checkTableID refuses identifiers a REST catalog cannot name.
func (c *Catalog) checkTableID(id catalog.Identifier) error {
	if err := id.Validate(); err != nil {
		return err
	}
	if len(id) < 2 {
		return fmt.Errorf("rest catalog %q: %w %q: a table needs a namespace", c.name, catalog.ErrInvalidIdentifier, id.String())
	}
	return nil
}

// write sends a call that changes the catalog and returns the answer of
// status 200 or 204. Statuses in kinds wrap their error (409: a conflict
// or an existing name); with unknown set, a 500, 502 or 504 answer and a
// request lost after it may have reached the server wrap
// catalog.ErrCommitStateUnknown, as Iceberg Java's commit handler maps
// them: the change may have been made.
func (c *Catalog) write(ctx context.Context, cl call, kinds map[int]error, unknown bool) (*response, error) {
	resp, err := c.sendOnce(ctx, cl)
	if err == nil && (resp.status == http.StatusUnauthorized || resp.status == 419) {
		var refreshed bool
		if refreshed, err = c.auth.refresh(ctx); err == nil && refreshed {
			resp, err = c.sendOnce(ctx, cl)
		}
	}
	if err != nil {
		if unknown && !errors.Is(err, errProtocol) && !notSent(err) {
			return nil, fmt.Errorf("%w: %w", catalog.ErrCommitStateUnknown, err)
		}
		return nil, err
	}
	switch code := resp.status; {
	case code == http.StatusOK || code == http.StatusNoContent:
		return resp, nil
	case kinds[code] != nil:
		return nil, fmt.Errorf("%w: %w", kinds[code], c.statusError(cl, resp))
	case unknown && (code == http.StatusInternalServerError || code == http.StatusBadGateway || code == http.StatusGatewayTimeout):
		return nil, fmt.Errorf("%w: %w", catalog.ErrCommitStateUnknown, c.statusError(cl, resp))
	}
	return nil, c.statusError(cl, resp)
}

// notSent reports whether a request failed before it could reach the
// server: no connection was made.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// CommitTable posts the requirements and updates to the table's endpoint
// (POST /v1/{prefix}/namespaces/{namespace}/tables/{table}); the server
// checks and applies them atomically. A 409 wraps ErrCommitConflict; a
// 500, 502 or 504, or a request lost once sent, ErrCommitStateUnknown.
func (c *Catalog) CommitTable(ctx context.Context, id catalog.Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*catalog.Table, error) {
	if err := c.checkTableID(id); err != nil {
		return nil, err
	}
	if err := c.configure(ctx); err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	defer c.Refresh(id)
	if reqs == nil {
		reqs = []iceberg.Requirement{}
	}
	if updates == nil {
		updates = []iceberg.Update{}
	}
	body, err := json.Marshal(commitTableRequest{
		Identifier:   restIdentifier{Namespace: id.Namespace(), Name: id.Name()},
		Requirements: reqs, Updates: updates,
	})
	if err != nil {
		return nil, fmt.Errorf("rest catalog %q: commit table %s: %w", c.name, id, err)
	}
	cl := call{method: http.MethodPost, url: c.tableURL(id), body: body, what: "commit table " + id.String(),
		notFound: catalog.ErrTableNotFound, limit: c.loadLimit()}
	resp, err := c.write(ctx, cl, map[int]error{http.StatusConflict: catalog.ErrCommitConflict}, true)
	if err != nil {
		return nil, err
	}
	return c.parseLoadTable(ctx, cl, id, resp.body)
}

// CreateTable posts md's current schema, default spec and sort order,
// properties (with its format-version) and location, if any, to the
// namespace's tables (POST .../namespaces/{namespace}/tables). The server
// assigns the ids and the UUID anew. A 409 wraps ErrTableExists.
func (c *Catalog) CreateTable(ctx context.Context, id catalog.Identifier, md *iceberg.TableMetadata) (*catalog.Table, error) {
	if err := c.checkTableID(id); err != nil {
		return nil, err
	}
	if md == nil || md.CurrentSchema() == nil {
		return nil, fmt.Errorf("rest catalog %q: create table %s: no metadata", c.name, id)
	}
	if err := c.configure(ctx); err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	defer c.Refresh(id)
	req := createTableRequest{Name: id.Name(), Location: md.Location, Schema: md.CurrentSchema(), Properties: map[string]string{}}
	for _, s := range md.Specs {
		if s.ID == md.DefaultSpecID {
			req.PartitionSpec = &s
		}
	}
	for _, o := range md.SortOrders {
		if o.OrderID == md.DefaultSortOrderID {
			req.WriteOrder = &o
		}
	}
	for k, v := range md.Properties {
		req.Properties[k] = v
	}
	req.Properties["format-version"] = fmt.Sprint(md.FormatVersion)
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("rest catalog %q: create table %s: %w", c.name, id, err)
	}
	cl := call{method: http.MethodPost, url: c.base + "namespaces/" + c.encodeNamespace(id.Namespace()) + "/tables",
		body: body, what: "create table " + id.String(), notFound: catalog.ErrNamespaceNotFound, limit: c.loadLimit()}
	resp, err := c.write(ctx, cl, map[int]error{http.StatusConflict: catalog.ErrTableExists}, false)
	if err != nil {
		return nil, err
	}
	return c.parseLoadTable(ctx, cl, id, resp.body)
}

// DropTable deletes the table (DELETE .../tables/{table}), asking the
// server to delete its files too with purge (purgeRequested=true).
func (c *Catalog) DropTable(ctx context.Context, id catalog.Identifier, purge bool) error {
	if err := c.checkTableID(id); err != nil {
		return err
	}
	if err := c.configure(ctx); err != nil {
		return fmt.Errorf("table %s: %w", id, err)
	}
	defer c.Refresh(id)
	cl := call{method: http.MethodDelete, url: c.tableURL(id), what: "drop table " + id.String(), notFound: catalog.ErrTableNotFound}
	if purge {
		cl.query = url.Values{"purgeRequested": {"true"}}
	}
	_, err := c.write(ctx, cl, nil, false)
	return err
}

// CreateNamespace posts ns and its properties (POST .../namespaces); a
// 409 wraps ErrNamespaceExists.
func (c *Catalog) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	if err := c.configure(ctx); err != nil {
		return err
	}
	if props == nil {
		props = map[string]string{}
	}
	body, err := json.Marshal(struct {
		Namespace  []string          `json:"namespace"`
		Properties map[string]string `json:"properties"`
	}{ns, props})
	if err != nil {
		return err
	}
	cl := call{method: http.MethodPost, url: c.base + "namespaces", body: body,
		what: "create namespace " + strings.Join(ns, "."), notFound: catalog.ErrNamespaceNotFound}
	_, err = c.write(ctx, cl, map[int]error{http.StatusConflict: catalog.ErrNamespaceExists}, false)
	return err
}

// DropNamespace deletes ns (DELETE .../namespaces/{namespace}); a 409
// (it holds tables or namespaces) wraps ErrNamespaceNotEmpty.
func (c *Catalog) DropNamespace(ctx context.Context, ns []string) error {
	if err := c.configure(ctx); err != nil {
		return err
	}
	cl := call{method: http.MethodDelete, url: c.base + "namespaces/" + c.encodeNamespace(ns),
		what: "drop namespace " + strings.Join(ns, "."), notFound: catalog.ErrNamespaceNotFound}
	_, err := c.write(ctx, cl, map[int]error{http.StatusConflict: catalog.ErrNamespaceNotEmpty}, false)
	return err
}
