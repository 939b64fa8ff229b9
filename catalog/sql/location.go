package sqlcat

import (
	"context"
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/catalog"
)

var _ catalog.Locator = (*Catalog)(nil)

// DefaultLocation returns where CreateTable puts a table whose metadata
// names no location: <warehouse>/<namespace>.db/<table>, as PyIceberg's
// SqlCatalog does. Without a warehouse property there is none.
func (c *Catalog) DefaultLocation(_ context.Context, id catalog.Identifier) (string, error) {
	if err := id.Validate(); err != nil {
		return "", err
	}
	if c.warehouse == "" {
		return "", fmt.Errorf("catalog %s: location of table %s: no %q property to put it in", c.name, id, PropWarehouse)
	}
	namespace := strings.Join(id.Namespace(), ".")
	if namespace == "" {
		return c.warehouse + "/" + id.Name(), nil
	}
	return c.warehouse + "/" + namespace + ".db/" + id.Name(), nil
}
