package restcatalog

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

// namespaces returns the catalog as catalog.Namespaces, or refuses.
func (s *Server) namespaces(what string) (catalog.Namespaces, error) {
	n, ok := s.cat.(catalog.Namespaces)
	if !ok {
		return nil, fmt.Errorf("%s: %w: the catalog does not list namespaces", what, errUnsupported)
	}
	return n, nil
}

// visible reports whether the caller may see namespace ns (engine names)
// in a listing or a lookup.
func (s *Server) visible(ctx context.Context, ns []string) (bool, error) {
	p, err := s.auth.Principal(ctx)
	if err != nil {
		return false, err
	}
	return s.auth.VisibleNamespace(p, ns), nil
}

type listNamespacesResponse struct {
	Namespaces    [][]string `json:"namespaces"`
	NextPageToken *string    `json:"next-page-token,omitempty"`
}

func (s *Server) listNamespaces(req *request, w http.ResponseWriter) error {
	n, err := s.namespaces("list namespaces")
	if err != nil {
		return err
	}
	var parent []string
	if p := req.query.Get("parent"); p != "" {
		parent = strings.Split(p, namespaceSeparator)
		if err := catalog.Identifier(parent).Validate(); err != nil {
			return fmt.Errorf("%w: parent: %w", errBadRequest, err)
		}
	}
	full := req.mount(parent)
	if len(full) > 0 {
		if ok, err := s.visible(req.ctx, full); err != nil {
			return err
		} else if !ok {
			return s.hidden(req.ctx, "namespace", full)
		}
	}
	if len(parent) > 0 {
		// Some catalogs list nothing below a namespace that does not
		// exist; the API says it does not.
		if _, err := s.loadNamespaceProps(req, full); err != nil {
			return err
		}
	}
	list, err := n.ListNamespaces(req.ctx, full)
	if err != nil {
		return fmt.Errorf("list namespaces in %s: %w", joinNS(parent), err)
	}
	var out [][]string
	for _, ns := range list {
		if ok, err := s.visible(req.ctx, ns); err != nil {
			return err
		} else if ok {
			out = append(out, req.unmount(ns))
		}
	}
	out, next, err := page(req, out, func(ns []string) string { return strings.Join(ns, namespaceSeparator) })
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, listNamespacesResponse{Namespaces: orEmpty(out), NextPageToken: next})
	return nil
}

// hidden is the refusal of a namespace or table the caller may not see:
// Forbidden, without telling whether it exists.
func (s *Server) hidden(ctx context.Context, kind string, name []string) error {
	p, _ := s.auth.Principal(ctx)
	who := "the caller"
	if p != nil {
		who = p.Name
	}
	return fmt.Errorf("%w: %s may not read %s %s", errForbidden, who, kind, joinNS(name))
}

type namespaceBody struct {
	Namespace  []string          `json:"namespace"`
	Properties map[string]string `json:"properties"`
}

func (s *Server) createNamespace(req *request, w http.ResponseWriter) error {
	var in namespaceBody
	if err := s.decodeBody(req, &in); err != nil {
		return err
	}
	if err := catalog.Identifier(in.Namespace).Validate(); err != nil {
		return fmt.Errorf("%w: namespace: %w", errBadRequest, err)
	}
	req.about(in.Namespace, "")
	ns := req.mount(in.Namespace)
	if err := s.writable("create namespace " + joinNS(in.Namespace)); err != nil {
		return err
	}
	if err := s.auth.AuthorizeWrite(req.ctx, ns, "namespace "+joinNS(ns)); err != nil {
		return err
	}
	n, err := s.namespaces("create namespace")
	if err != nil {
		return err
	}
	// The catalogs' errors name the operation and the namespace.
	if err := n.CreateNamespace(req.ctx, ns, in.Properties); err != nil {
		return err
	}
	props := in.Properties
	if props == nil {
		props = map[string]string{}
	}
	writeJSON(w, http.StatusOK, namespaceBody{Namespace: in.Namespace, Properties: props})
	return nil
}

// loadNamespaceProps returns the properties of namespace ns (the
// engine's name; shown names the client's), or an error wrapping
// catalog.ErrNamespaceNotFound.
func (s *Server) loadNamespaceProps(req *request, ns []string) (map[string]string, error) {
	shown := joinNS(req.unmount(ns))
	if ok, err := s.visible(req.ctx, ns); err != nil {
		return nil, err
	} else if !ok {
		return nil, s.hidden(req.ctx, "namespace", ns)
	}
	if l, ok := s.cat.(catalog.NamespaceProperties); ok {
		props, err := l.LoadNamespace(req.ctx, ns)
		if err != nil {
			return nil, fmt.Errorf("load namespace %s: %w", shown, err)
		}
		return props, nil
	}
	// A catalog without properties: the namespace exists when its parent
	// lists it.
	n, err := s.namespaces("load namespace")
	if err != nil {
		return nil, err
	}
	list, err := n.ListNamespaces(req.ctx, ns[:len(ns)-1])
	if err != nil {
		return nil, fmt.Errorf("load namespace %s: %w", shown, err)
	}
	if !slices.ContainsFunc(list, func(l []string) bool { return slices.Equal(l, ns) }) {
		return nil, fmt.Errorf("load namespace %s: %w", shown, catalog.ErrNamespaceNotFound)
	}
	return map[string]string{}, nil
}

func (s *Server) loadNamespace(req *request, w http.ResponseWriter) error {
	props, err := s.loadNamespaceProps(req, req.namespace())
	if err != nil {
		return err
	}
	if props == nil {
		props = map[string]string{}
	}
	writeJSON(w, http.StatusOK, namespaceBody{Namespace: req.vars.namespace, Properties: props})
	return nil
}

func (s *Server) namespaceExists(req *request, w http.ResponseWriter) error {
	if _, err := s.loadNamespaceProps(req, req.namespace()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) dropNamespace(req *request, w http.ResponseWriter) error {
	ns := req.namespace()
	if err := s.writable("drop namespace " + joinNS(req.vars.namespace)); err != nil {
		return err
	}
	if err := s.auth.AuthorizeWrite(req.ctx, ns, "namespace "+joinNS(ns)); err != nil {
		return err
	}
	n, err := s.namespaces("drop namespace")
	if err != nil {
		return err
	}
	if err := n.DropNamespace(req.ctx, ns); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type updatePropertiesRequest struct {
	Removals []string          `json:"removals"`
	Updates  map[string]string `json:"updates"`
}

type updatePropertiesResponse struct {
	Updated []string `json:"updated"`
	Removed []string `json:"removed"`
	Missing []string `json:"missing,omitempty"`
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (s *Server) updateProperties(req *request, w http.ResponseWriter) error {
	var in updatePropertiesRequest
	if err := s.decodeBody(req, &in); err != nil {
		return err
	}
	ns := req.namespace()
	what := "namespace " + joinNS(req.vars.namespace)
	if err := s.writable("update properties of " + what); err != nil {
		return err
	}
	if err := s.auth.AuthorizeWrite(req.ctx, ns, "namespace "+joinNS(ns)); err != nil {
		return err
	}
	np, ok := s.cat.(catalog.NamespaceProperties)
	if !ok {
		return fmt.Errorf("update properties of %s: %w: the catalog keeps no namespace properties", what, errUnsupported)
	}
	change, err := np.UpdateNamespaceProperties(req.ctx, ns, in.Removals, in.Updates)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, updatePropertiesResponse{Updated: orEmpty(change.Updated), Removed: orEmpty(change.Removed), Missing: change.Missing})
	return nil
}
