package restcatalog

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/writer"
)

// createTableRequest is the API's CreateTableRequest.
type createTableRequest struct {
	Name          string            `json:"name"`
	Location      string            `json:"location"`
	Schema        *iceberg.Schema   `json:"schema"`
	PartitionSpec *json.RawMessage  `json:"partition-spec"`
	WriteOrder    *json.RawMessage  `json:"write-order"`
	StageCreate   bool              `json:"stage-create"`
	Properties    map[string]string `json:"properties"`
}

// metadata builds the new table's first metadata as Iceberg Java's
// catalogs do (TableMetadata.newTableMetadata): fresh field ids, the spec
// and sort order remapped to them.
func (c *createTableRequest) metadata() (*iceberg.TableMetadata, error) {
	if c.Schema == nil {
		return nil, badRequest("create table %s: no schema", c.Name)
	}
	spec := iceberg.PartitionSpec{}
	if c.PartitionSpec != nil && string(*c.PartitionSpec) != "null" {
		if err := json.Unmarshal(*c.PartitionSpec, &spec); err != nil {
			return nil, badRequest("create table %s: partition-spec: %v", c.Name, err)
		}
	}
	order := iceberg.SortOrder{}
	if c.WriteOrder != nil && string(*c.WriteOrder) != "null" {
		if err := json.Unmarshal(*c.WriteOrder, &order); err != nil {
			return nil, badRequest("create table %s: write-order: %v", c.Name, err)
		}
	}
	md, err := iceberg.NewTableMetadata(c.Schema, spec, order, c.Location, c.Properties)
	if err != nil {
		return nil, fmt.Errorf("%w: create table %s: %w", errBadRequest, c.Name, err)
	}
	return md, nil
}

func (s *Server) createTable(req *request, w http.ResponseWriter) error {
	var in createTableRequest
	if err := s.decodeBody(req, &in); err != nil {
		return err
	}
	id := req.tableNamed(in.Name)
	if err := id.Validate(); err != nil {
		return fmt.Errorf("%w: %w", errBadRequest, err)
	}
	req.about(req.vars.namespace, in.Name)
	c, err := s.committer(req, id.Namespace(), "table "+id.String())
	if err != nil {
		return err
	}
	md, err := in.metadata()
	if err != nil {
		return err
	}
	if in.StageCreate {
		// Nothing is written: the client commits the table later with
		// assert-create, after writing its first files at the location.
		if md.Location == "" {
			l, ok := s.cat.(catalog.Locator)
			if !ok {
				return fmt.Errorf("%w: stage-create of %s: the catalog has no default location; give one", errUnsupported, in.Name)
			}
			if md.Location, err = l.DefaultLocation(req.ctx, id); err != nil {
				return fmt.Errorf("stage-create of %s: %w", in.Name, err)
			}
		}
		return s.writeTable(req, w, "", md, nil)
	}
	t, err := c.CreateTable(req.ctx, id, md)
	if err != nil {
		return fmt.Errorf("create table %s: %w", catalog.Identifier(req.unmount(id)), err)
	}
	s.refresh(id)
	return s.writeTable(req, w, t.MetadataLocation, t.Metadata, t)
}

// tableUpdate is the API's CommitTableRequest, and one table's change in
// a CommitTransactionRequest.
type tableUpdate struct {
	Identifier   *tableIdentifier `json:"identifier,omitempty"`
	Requirements json.RawMessage  `json:"requirements"`
	Updates      json.RawMessage  `json:"updates"`
}

// commit parses the change into a writer.TableCommit of table id.
func (u *tableUpdate) commit(id catalog.Identifier) (writer.TableCommit, error) {
	c := writer.TableCommit{ID: id}
	var err error
	if len(u.Requirements) > 0 && string(u.Requirements) != "null" {
		if c.Requirements, err = iceberg.ParseRequirements(u.Requirements); err != nil {
			return c, fmt.Errorf("%w: commit to %s: requirements: %w", errBadRequest, id, err)
		}
	}
	if len(u.Updates) > 0 && string(u.Updates) != "null" {
		if c.Updates, err = iceberg.ParseUpdates(u.Updates); err != nil {
			return c, fmt.Errorf("%w: commit to %s: updates: %w", errBadRequest, id, err)
		}
	}
	return c, nil
}

type commitTableResponse struct {
	MetadataLocation string          `json:"metadata-location"`
	Metadata         json.RawMessage `json:"metadata"`
}

func (s *Server) updateTable(req *request, w http.ResponseWriter) error {
	var in tableUpdate
	if err := s.decodeBody(req, &in); err != nil {
		return err
	}
	id := req.table()
	if in.Identifier != nil {
		named, err := in.Identifier.id()
		if err != nil {
			return err
		}
		if !slices.Equal(req.mount(named), id) {
			return badRequest("commit body names table %s, the path %s", catalog.Identifier(named), catalog.Identifier(req.unmount(id)))
		}
	}
	if _, err := s.committer(req, id.Namespace(), "table "+id.String()); err != nil {
		return err
	}
	c, err := in.commit(id)
	if err != nil {
		return err
	}
	t, err := s.writer.Commit(req.ctx, c)
	if err != nil {
		return fmt.Errorf("commit to %s: %w", catalog.Identifier(req.unmount(id)), err)
	}
	s.refresh(id)
	md, err := json.Marshal(t.Metadata)
	if err != nil {
		return fmt.Errorf("encode metadata of %s: %w", id, err)
	}
	writeJSON(w, http.StatusOK, commitTableResponse{MetadataLocation: t.MetadataLocation, Metadata: md})
	return nil
}

type commitTransactionRequest struct {
	TableChanges []tableUpdate `json:"table-changes"`
}

// maxTransactionTables bounds the tables of one transaction: each holds a
// lock and a loaded metadata while the transaction runs.
const maxTransactionTables = 100

func (s *Server) commitTransaction(req *request, w http.ResponseWriter) error {
	var in commitTransactionRequest
	if err := s.decodeBody(req, &in); err != nil {
		return err
	}
	switch n := len(in.TableChanges); {
	case n == 0:
		return badRequest("transaction with no table-changes")
	case n > maxTransactionTables:
		return badRequest("transaction of %d tables; at most %d", n, maxTransactionTables)
	}
	commits := make([]writer.TableCommit, len(in.TableChanges))
	for i, change := range in.TableChanges {
		if change.Identifier == nil {
			return badRequest("table-changes[%d]: no identifier", i)
		}
		named, err := change.Identifier.id()
		if err != nil {
			return err
		}
		id := req.mount(named)
		if _, err := s.committer(req, id.Namespace(), "table "+id.String()); err != nil {
			return err
		}
		if commits[i], err = change.commit(id); err != nil {
			return err
		}
	}
	_, err := s.writer.CommitAll(req.ctx, commits)
	for _, c := range commits {
		s.refresh(c.ID)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type registerTableRequest struct {
	Name             string `json:"name"`
	MetadataLocation string `json:"metadata-location"`
	Overwrite        bool   `json:"overwrite"`
}

func (s *Server) registerTable(req *request, w http.ResponseWriter) error {
	var in registerTableRequest
	if err := s.decodeBody(req, &in); err != nil {
		return err
	}
	if in.MetadataLocation == "" {
		return badRequest("register table %s: no metadata-location", in.Name)
	}
	if in.Overwrite {
		return fmt.Errorf("%w: register table %s with overwrite", errUnsupported, in.Name)
	}
	id := req.tableNamed(in.Name)
	if err := id.Validate(); err != nil {
		return fmt.Errorf("%w: %w", errBadRequest, err)
	}
	req.about(req.vars.namespace, in.Name)
	if _, err := s.committer(req, id.Namespace(), "table "+id.String()); err != nil {
		return err
	}
	// A metadata file may be any table's: registering it under a name the
	// caller may read would show it that table. Only a caller that may
	// read every table registers; a directory catalog also refuses
	// another table's file, whoever asks.
	if p, err := s.auth.Principal(req.ctx); err != nil {
		return err
	} else if p != nil && !p.CanRead(nil) {
		return fmt.Errorf("%w: %s may not register table %s: registering a metadata file needs a grant of every namespace (*)", errForbidden, p.Name, id)
	}
	r, ok := s.cat.(catalog.Registrar)
	if !ok {
		return fmt.Errorf("%w: register table %s: the catalog cannot register tables", errUnsupported, in.Name)
	}
	t, err := r.RegisterTable(req.ctx, id, in.MetadataLocation)
	if err != nil {
		return fmt.Errorf("register table %s: %w", catalog.Identifier(req.unmount(id)), err)
	}
	s.refresh(id)
	return s.writeTable(req, w, t.MetadataLocation, t.Metadata, t)
}

type renameTableRequest struct {
	Source      tableIdentifier `json:"source"`
	Destination tableIdentifier `json:"destination"`
}

func (s *Server) renameTable(req *request, w http.ResponseWriter) error {
	var in renameTableRequest
	if err := s.decodeBody(req, &in); err != nil {
		return err
	}
	src, err := in.Source.id()
	if err != nil {
		return err
	}
	dst, err := in.Destination.id()
	if err != nil {
		return err
	}
	from, to := req.mount(src), req.mount(dst)
	req.about(in.Source.Namespace, in.Source.Name)
	for _, id := range []catalog.Identifier{from, to} {
		if _, err := s.committer(req, id.Namespace(), "table "+id.String()); err != nil {
			return err
		}
	}
	r, ok := s.cat.(catalog.Renamer)
	if !ok {
		return fmt.Errorf("%w: rename table %s: the catalog cannot rename tables", errUnsupported, src)
	}
	if err := r.RenameTable(req.ctx, from, to); err != nil {
		return fmt.Errorf("rename table %s to %s: %w", src, dst, err)
	}
	s.refresh(from)
	s.refresh(to)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
