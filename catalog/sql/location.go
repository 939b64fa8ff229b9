package sqlcat

import (
	"context"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

// TableLocation leaves a new table's place to pointer.Catalog
// (<warehouse>/<namespace>.db/<table>, as PyIceberg's SqlCatalog lays
// tables out): the database records none. It checks that the namespace
// exists.
func (c *store) TableLocation(ctx context.Context, id catalog.Identifier) (string, error) {
	namespace := strings.Join(id.Namespace(), ".")
	if namespace == "" {
		return "", nil
	}
	s, err := c.schema(ctx)
	if err != nil {
		return "", c.dbError(ctx, err)
	}
	exists, err := c.namespaceExists(ctx, s, namespace)
	if err != nil {
		return "", c.dbError(ctx, err)
	}
	if !exists {
		return "", catalog.ErrNamespaceNotFound
	}
	return "", nil
}
