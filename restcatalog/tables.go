package restcatalog

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// tableIdentifier is the API's TableIdentifier.
type tableIdentifier struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// id returns the identifier as the catalog names it below the prefix.
func (t tableIdentifier) id() (catalog.Identifier, error) {
	id := append(slices.Clone(t.Namespace), t.Name)
	if err := catalog.Identifier(id).Validate(); err != nil {
		return nil, fmt.Errorf("%w: table identifier: %w", errBadRequest, err)
	}
	return id, nil
}

type listTablesResponse struct {
	Identifiers   []tableIdentifier `json:"identifiers"`
	NextPageToken *string           `json:"next-page-token,omitempty"`
}

func (s *Server) listTables(req *request, w http.ResponseWriter) error {
	ns := req.namespace()
	if p, err := s.auth.Principal(req.ctx); err != nil {
		return err
	} else if p != nil && !p.CanRead(ns) {
		return s.hidden(req.ctx, "namespace", ns)
	}
	if _, err := s.loadNamespaceProps(req, ns); err != nil {
		return err
	}
	cat, inner := s.catalogOf(ns)
	ids, err := cat.ListTables(req.ctx)
	if err != nil {
		return fmt.Errorf("list tables in %s: %w", joinNS(req.vars.namespace), err)
	}
	var out []tableIdentifier
	for _, id := range ids {
		if slices.Equal(id.Namespace(), inner) {
			out = append(out, tableIdentifier{Namespace: req.vars.namespace, Name: id.Name()})
		}
	}
	out, next, err := page(req, out, func(t tableIdentifier) string { return t.Name })
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, listTablesResponse{Identifiers: orEmpty(out), NextPageToken: next})
	return nil
}

// mounts is a catalog of mounted catalogs: a catalog.Registry.
type mounts interface {
	Catalog(name string) (catalog.Catalog, bool)
}

// catalogOf returns the catalog that holds namespace ns and ns's name
// there: the mount its first part names, so that listing one catalog's
// tables neither waits for nor fails with the others.
func (s *Server) catalogOf(ns []string) (catalog.Catalog, []string) {
	if m, ok := s.cat.(mounts); ok && len(ns) > 0 {
		if cat, ok := m.Catalog(ns[0]); ok {
			return cat, ns[1:]
		}
	}
	return s.cat, ns
}

// loadTableResult is the API's LoadTableResult.
type loadTableResult struct {
	MetadataLocation   *string             `json:"metadata-location,omitempty"`
	Metadata           json.RawMessage     `json:"metadata"`
	Config             map[string]string   `json:"config,omitempty"`
	StorageCredentials []storageCredential `json:"storage-credentials,omitempty"`
}

// storageCredential is the API's StorageCredential.
type storageCredential struct {
	Prefix string            `json:"prefix"`
	Config map[string]string `json:"config"`
}

// loadFresh loads the request's table after the read grant is checked,
// bypassing the catalog's metadata cache: a REST client commits on what
// it loads, and a load that lags a commit only makes its commit fail.
func (s *Server) loadFresh(req *request, id catalog.Identifier) (*catalog.Table, error) {
	if err := s.auth.Authorize(req.ctx, id); err != nil {
		return nil, err
	}
	s.refresh(id)
	t, err := s.cat.LoadTable(req.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("load table %s: %w", catalog.Identifier(req.unmount(id)), err)
	}
	return t, nil
}

func (s *Server) loadTable(req *request, w http.ResponseWriter) error {
	t, err := s.loadFresh(req, req.table())
	if err != nil {
		return err
	}
	switch snaps := req.query.Get("snapshots"); snaps {
	case "", "all":
		return s.writeTable(req, w, t.MetadataLocation, t.Metadata, t)
	case "refs":
		return s.writeTable(req, w, t.MetadataLocation, referencedOnly(t.Metadata), t)
	default:
		return badRequest("snapshots=%q: want all or refs", abbreviate(snaps))
	}
}

// referencedOnly returns md with only the snapshots its refs point at, for
// snapshots=refs.
func referencedOnly(md *iceberg.TableMetadata) *iceberg.TableMetadata {
	keep := map[int64]bool{}
	for _, ref := range md.Refs {
		keep[ref.SnapshotID] = true
	}
	cp := *md
	cp.Snapshots = nil
	for _, snap := range md.Snapshots {
		if keep[snap.SnapshotID] {
			cp.Snapshots = append(cp.Snapshots, snap)
		}
	}
	return &cp
}

// writeTable answers a LoadTableResult. Credentials are vended only when
// the client asks for them (X-Iceberg-Access-Delegation:
// vended-credentials) and the operator allowed them for the table's
// catalog; t is nil for a staged create, which has no files yet to read.
func (s *Server) writeTable(req *request, w http.ResponseWriter, location string, md *iceberg.TableMetadata, t *catalog.Table) error {
	body, err := json.Marshal(md)
	if err != nil {
		return fmt.Errorf("encode metadata of %s: %w", req.vars.table, err)
	}
	out := loadTableResult{Metadata: body}
	if location != "" {
		out.MetadataLocation = &location
	}
	if t != nil && wantsVended(req.r) {
		if cred := s.credentials(req, t); cred != nil {
			out.Config = cred.Config
			out.StorageCredentials = []storageCredential{*cred}
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// wantsVended reports whether the client asked for vended credentials.
func wantsVended(r *http.Request) bool {
	for _, v := range r.Header.Values("X-Iceberg-Access-Delegation") {
		for _, mode := range strings.Split(v, ",") {
			if strings.TrimSpace(mode) == "vended-credentials" {
				return true
			}
		}
	}
	return false
}

// credentials returns the storage credentials vended for t, scoped by
// prefix to its location, or nil.
func (s *Server) credentials(req *request, t *catalog.Table) *storageCredential {
	if s.vend == nil {
		return nil
	}
	props := s.vend(req.ctx, t)
	if len(props) == 0 {
		return nil
	}
	cfg := make(map[string]string, len(props))
	for k, v := range props {
		cfg[k] = v
	}
	loc := t.Location
	if loc == "" {
		loc = t.Metadata.Location
	}
	return &storageCredential{Prefix: loc, Config: cfg}
}

func (s *Server) tableExists(req *request, w http.ResponseWriter) error {
	if _, err := s.loadFresh(req, req.table()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type loadCredentialsResponse struct {
	StorageCredentials []storageCredential `json:"storage-credentials"`
}

func (s *Server) loadCredentials(req *request, w http.ResponseWriter) error {
	t, err := s.loadFresh(req, req.table())
	if err != nil {
		return err
	}
	out := loadCredentialsResponse{StorageCredentials: []storageCredential{}}
	if cred := s.credentials(req, t); cred != nil {
		out.StorageCredentials = append(out.StorageCredentials, *cred)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// committer returns the catalog as a catalog.Committer for what, after
// the server and the caller's grants allow writing namespace ns.
func (s *Server) committer(req *request, ns []string, what string) (catalog.Committer, error) {
	if err := s.writable(what); err != nil {
		return nil, err
	}
	if err := s.auth.AuthorizeWrite(req.ctx, ns, what); err != nil {
		return nil, err
	}
	c, ok := s.cat.(catalog.Committer)
	if !ok {
		return nil, fmt.Errorf("%s: %w", what, catalog.ErrReadOnly)
	}
	return c, nil
}

// refresh makes the next load of id see a change at once.
func (s *Server) refresh(id catalog.Identifier) {
	if r, ok := s.cat.(interface{ Refresh(catalog.Identifier) }); ok {
		r.Refresh(id)
	}
}

func (s *Server) dropTable(req *request, w http.ResponseWriter) error {
	id := req.table()
	c, err := s.committer(req, id.Namespace(), "table "+id.String())
	if err != nil {
		return err
	}
	purge, err := boolParam(req, "purgeRequested")
	if err != nil {
		return err
	}
	if err := c.DropTable(req.ctx, id, purge); err != nil {
		return err
	}
	s.refresh(id)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// reportMetrics accepts the scan and commit reports clients send after
// their operations. iceflight keeps its own metrics of what it serves, so
// a report is checked for the table's grant and then dropped.
func (s *Server) reportMetrics(req *request, w http.ResponseWriter) error {
	if err := s.auth.Authorize(req.ctx, req.table()); err != nil {
		return err
	}
	if _, err := s.body(req); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) views(req *request, _ http.ResponseWriter) error {
	return fmt.Errorf("%w: views: no catalog this server serves stores views (the view endpoints are not in /v1/config)", errNotImplemented)
}

// boolParam reads a boolean query parameter as Java and Python clients
// spell it ("true", "True", "false", ...); absent is false, anything
// else a 400, so that a misspelt purge never silently keeps files.
func boolParam(req *request, name string) (bool, error) {
	v := req.query.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("%s=%q: want true or false", name, abbreviate(v))
	}
	return b, nil
}
