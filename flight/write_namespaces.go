package flight

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/proto/actions"
)

// namespaceAction serves create_namespace, drop_namespace and
// list_namespaces. Creating or dropping a namespace needs a write grant
// covering it; a listing shows only the namespaces the caller may read
// and their ancestors.
func (s *Service) namespaceAction(ctx context.Context, typ string, b actions.NamespaceRequest, send func([]byte) error) error {
	if s.writeCatalog == nil {
		return fmt.Errorf("%w: %s: the catalog has no namespaces to manage", catalog.ErrReadOnly, typ)
	}
	if typ == ActionListNamespaces {
		if b.Namespace != "" || b.Properties != nil {
			return fmt.Errorf("%w: list_namespaces takes {\"parent\": ...} only", engine.ErrBadCommand)
		}
		var parent []string
		if b.Parent != "" {
			id, err := catalog.ParseIdentifier(b.Parent)
			if err != nil {
				return err
			}
			parent = id
		}
		p, err := s.eng.Authenticator().Principal(ctx)
		if err != nil {
			return err
		}
		all, err := s.writeCatalog.ListNamespaces(ctx, parent)
		if err != nil {
			return fmt.Errorf("list namespaces below %q: %w", b.Parent, err)
		}
		names := []string{}
		for _, ns := range all {
			if s.eng.Authenticator().VisibleNamespace(p, ns) {
				names = append(names, strings.Join(ns, "."))
			}
		}
		return sendPages(ctx, len(names), '[', ']', func(i int) ([]byte, error) { return json.Marshal(names[i]) }, send)
	}
	if b.Parent != "" || (typ == ActionDropNamespace && b.Properties != nil) {
		return fmt.Errorf("%w: %s takes {\"namespace\": ...}", engine.ErrBadCommand, typ)
	}
	if b.Namespace == "" {
		return fmt.Errorf("%w: %s needs {\"namespace\": ...}", engine.ErrBadCommand, typ)
	}
	ns, err := catalog.ParseIdentifier(b.Namespace)
	if err != nil {
		return err
	}
	engine.CallInfoFrom(ctx).SetTable(ns.String())
	if err := s.eng.Authenticator().AuthorizeWrite(ctx, ns, "namespace "+ns.String()); err != nil {
		s.eng.Metrics().Rejected(ctx, engine.RejectPermissionDenied)
		return err
	}
	if typ == ActionCreateNamespace {
		if err := s.writeCatalog.CreateNamespace(ctx, ns, b.Properties); err != nil {
			return fmt.Errorf("create namespace %s: %w", ns, err)
		}
		return sendJSON(actions.NamespaceInfo{Namespace: ns.String()}, send)
	}
	if err := s.writeCatalog.DropNamespace(ctx, ns); err != nil {
		return fmt.Errorf("drop namespace %s: %w", ns, err)
	}
	return send(droppedAnswer)
}
