package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/internal/suggest"
)

// tableHint adds to err, a failed lookup of table id, what the caller may
// have meant: for a name without its namespace, the tables of that name in
// every namespace; otherwise the nearest table names. Only tables the caller
// may read are named, so a hint tells no more than ListFlights does. Other
// errors, and a catalog that cannot list, leave err as it is.
func (e *Engine) tableHint(ctx context.Context, id catalog.Identifier, err error) error {
	if !errors.Is(err, catalog.ErrTableNotFound) {
		return err
	}
	// A mounted catalog that cannot list leaves the others' tables to
	// suggest.
	ids, lerr := e.catalog.ListTables(ctx)
	if lerr != nil && len(ids) == 0 {
		return err
	}
	if ids, lerr = e.auth.Readable(ctx, ids); lerr != nil || len(ids) == 0 {
		return err
	}
	if len(id) == 1 {
		if near := nearestByName(id.Name(), ids); len(near) > 0 {
			if strings.EqualFold(near[0].Name(), id.Name()) {
				return fmt.Errorf("%w (a table name starts with its namespace: %s)", err, joinIDs(near, id.Name()))
			}
			return fmt.Errorf("%w (a table name starts with its namespace; nearest: %s)", err, joinIDs(near, ""))
		}
	}
	names := make([]string, len(ids))
	for i, t := range ids {
		names[i] = t.String()
	}
	return fmt.Errorf("%w (nearest: %s)", err, strings.Join(suggest.Nearest(id.String(), names, 3), ", "))
}

// nearestByName returns the namespaced tables whose own names are the three
// nearest to name, nearest first.
func nearestByName(name string, ids []catalog.Identifier) []catalog.Identifier {
	var names []string
	for _, t := range ids {
		if len(t) > 1 && !slices.Contains(names, t.Name()) {
			names = append(names, t.Name())
		}
	}
	var out []catalog.Identifier
	for _, n := range suggest.Nearest(name, names, 3) {
		for _, t := range ids {
			if len(t) > 1 && t.Name() == n {
				out = append(out, t)
			}
		}
	}
	return out
}

// joinIDs joins the identifiers' names, only those named name (any case)
// unless name is empty.
func joinIDs(ids []catalog.Identifier, name string) string {
	var out []string
	for _, t := range ids {
		if name == "" || strings.EqualFold(t.Name(), name) {
			out = append(out, t.String())
		}
	}
	return strings.Join(out, ", ")
}
