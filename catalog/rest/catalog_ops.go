package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

var (
	_ catalog.NamespaceProperties = (*Catalog)(nil)
	_ catalog.Renamer             = (*Catalog)(nil)
	_ catalog.Registrar           = (*Catalog)(nil)
)

// getNamespaceResponse is the spec's GetNamespaceResponse.
type getNamespaceResponse struct {
	Namespace  []string          `json:"namespace"`
	Properties map[string]string `json:"properties"`
}

// updateNamespacePropertiesRequest is the spec's
// UpdateNamespacePropertiesRequest.
type updateNamespacePropertiesRequest struct {
	Removals []string          `json:"removals"`
	Updates  map[string]string `json:"updates"`
}

// updateNamespacePropertiesResponse is the spec's
// UpdateNamespacePropertiesResponse.
type updateNamespacePropertiesResponse struct {
	Updated []string `json:"updated"`
	Removed []string `json:"removed"`
	Missing []string `json:"missing"`
}

// renameTableRequest is the spec's RenameTableRequest.
type renameTableRequest struct {
	Source      restIdentifier `json:"source"`
	Destination restIdentifier `json:"destination"`
}

// registerTableRequest is the spec's RegisterTableRequest.
type registerTableRequest struct {
	Name             string `json:"name"`
	MetadataLocation string `json:"metadata-location"`
}

// namespaceURL is the URL of the namespace ns.
func (c *Catalog) namespaceURL(ns []string) string {
	return c.base + "namespaces/" + c.encodeNamespace(ns)
}

// LoadNamespace returns the properties of ns (GET
// .../namespaces/{namespace}); a 404 wraps ErrNamespaceNotFound. A server
// that keeps no properties answers null, read as none.
func (c *Catalog) LoadNamespace(ctx context.Context, ns []string) (map[string]string, error) {
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return nil, err
	}
	if err := c.configure(ctx); err != nil {
		return nil, err
	}
	cl := call{method: http.MethodGet, url: c.namespaceURL(ns), what: "load namespace " + strings.Join(ns, "."),
		notFound: catalog.ErrNamespaceNotFound}
	var r getNamespaceResponse
	if err := c.call(ctx, cl, &r); err != nil {
		return nil, err
	}
	if r.Properties == nil {
		r.Properties = map[string]string{}
	}
	return r.Properties, nil
}

// UpdateNamespaceProperties posts the removals and updates (POST
// .../namespaces/{namespace}/properties) and returns the server's account
// of them, each list sorted. A 404 wraps ErrNamespaceNotFound, a 406 (a
// server that keeps no properties) ErrUnsupported and a 422 (a key both
// removed and set) ErrInvalidProperties.
func (c *Catalog) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) (catalog.PropertiesChange, error) {
	if err := catalog.Identifier(ns).Validate(); err != nil {
		return catalog.PropertiesChange{}, err
	}
	if err := c.configure(ctx); err != nil {
		return catalog.PropertiesChange{}, err
	}
	req := updateNamespacePropertiesRequest{Removals: removals, Updates: updates}
	if req.Removals == nil {
		req.Removals = []string{}
	}
	if req.Updates == nil {
		req.Updates = map[string]string{}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return catalog.PropertiesChange{}, err
	}
	cl := call{method: http.MethodPost, url: c.namespaceURL(ns) + "/properties", body: body,
		what: "update properties of namespace " + strings.Join(ns, "."), notFound: catalog.ErrNamespaceNotFound}
	resp, err := c.write(ctx, cl, map[int]error{
		http.StatusNotAcceptable:       catalog.ErrUnsupported,
		http.StatusUnprocessableEntity: catalog.ErrInvalidProperties,
	}, false)
	if err != nil {
		return catalog.PropertiesChange{}, err
	}
	var r updateNamespacePropertiesResponse
	if err := c.decode(cl, resp, &r); err != nil {
		return catalog.PropertiesChange{}, err
	}
	for _, keys := range [][]string{r.Updated, r.Removed, r.Missing} {
		slices.Sort(keys)
	}
	return catalog.PropertiesChange{Updated: r.Updated, Removed: r.Removed, Missing: r.Missing}, nil
}

// RenameTable posts the rename (POST .../tables/rename). A 404 wraps
// ErrTableNotFound, or ErrNamespaceNotFound when the server says the
// destination's namespace does not exist; a 409 wraps ErrTableExists and
// a 406 (a server that cannot rename, or not across namespaces)
// ErrUnsupported.
func (c *Catalog) RenameTable(ctx context.Context, from, to catalog.Identifier) error {
	for _, id := range []catalog.Identifier{from, to} {
		if err := c.checkTableID(id); err != nil {
			return err
		}
	}
	if err := c.configure(ctx); err != nil {
		return err
	}
	defer c.Refresh(from)
	defer c.Refresh(to)
	body, err := json.Marshal(renameTableRequest{
		Source:      restIdentifier{Namespace: from.Namespace(), Name: from.Name()},
		Destination: restIdentifier{Namespace: to.Namespace(), Name: to.Name()},
	})
	if err != nil {
		return err
	}
	cl := call{method: http.MethodPost, url: c.base + "tables/rename", body: body,
		what: "rename table " + from.String() + " to " + to.String()}
	_, err = c.write(ctx, cl, map[int]error{
		http.StatusConflict:      catalog.ErrTableExists,
		http.StatusNotAcceptable: catalog.ErrUnsupported,
	}, false)
	return err
}

// RegisterTable posts the table's name and metadata file to its namespace
// (POST .../namespaces/{namespace}/register) and returns the table the
// server answers with. A 409 wraps ErrTableExists, a 406 ErrUnsupported; a
// 404 wraps ErrNamespaceNotFound when the server says the namespace does
// not exist and fileio.ErrNotFound otherwise (Iceberg Java answers 404
// for a metadata file it cannot find).
func (c *Catalog) RegisterTable(ctx context.Context, id catalog.Identifier, metadataLocation string) (*catalog.Table, error) {
	if err := c.checkTableID(id); err != nil {
		return nil, err
	}
	if err := c.configure(ctx); err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	defer c.Refresh(id)
	body, err := json.Marshal(registerTableRequest{Name: id.Name(), MetadataLocation: metadataLocation})
	if err != nil {
		return nil, err
	}
	cl := call{method: http.MethodPost, url: c.namespaceURL(id.Namespace()) + "/register", body: body,
		what: "register table " + id.String(), notFound: fileio.ErrNotFound, limit: c.loadLimit()}
	resp, err := c.write(ctx, cl, map[int]error{
		http.StatusConflict:      catalog.ErrTableExists,
		http.StatusNotAcceptable: catalog.ErrUnsupported,
	}, false)
	if err != nil {
		return nil, err
	}
	return c.parseLoadTable(ctx, cl, id, resp.body)
}
