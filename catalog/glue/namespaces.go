package glue

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/glue/types"

	"github.com/iceflight/iceflight/catalog"
)

// The namespace properties Java's GlueCatalog keeps in a database's own
// fields rather than its parameters (IcebergToGlueConverter).
const (
	locationProperty    = "location" // LocationUri
	descriptionProperty = "comment"  // Description
)

// database returns the Glue database of the namespace ns. Glue has one
// level of databases: any other namespace wraps catalog.ErrNamespaceNotFound.
func database(ns []string) (string, error) {
	if len(ns) != 1 {
		return "", fmt.Errorf("namespace %q: %w: Glue databases are one level deep", strings.Join(ns, "."), catalog.ErrNamespaceNotFound)
	}
	return ns[0], nil
}

// databases returns the names of every database of the catalog.
func (s *Store) databases(ctx context.Context) ([]string, error) {
	var dbs []string
	pages := glue.NewGetDatabasesPaginator(s.client, &glue.GetDatabasesInput{CatalogId: s.catalogID})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, s.wrapErr(ctx, "list databases", err)
		}
		for _, db := range page.DatabaseList {
			if db.Name != nil {
				dbs = append(dbs, *db.Name)
			}
		}
	}
	return dbs, nil
}

// database returns the Glue database of ns, wrapping
// catalog.ErrNamespaceNotFound when there is none.
func (s *Store) database(ctx context.Context, ns []string) (*types.Database, error) {
	name, err := database(ns)
	if err != nil {
		return nil, err
	}
	out, err := s.client.GetDatabase(ctx, &glue.GetDatabaseInput{CatalogId: s.catalogID, Name: aws.String(name)})
	switch {
	case errorCode(err) == codeNotFound:
		return nil, fmt.Errorf("namespace %s: %w", name, catalog.ErrNamespaceNotFound)
	case err != nil:
		return nil, s.wrapErr(ctx, "get database "+name, err)
	case out.Database == nil:
		return nil, fmt.Errorf("namespace %s: %w: Glue answered no database", name, catalog.ErrCatalogProtocol)
	}
	return out.Database, nil
}

// ListNamespaces returns every database, sorted, for the top level (parent
// empty); below a database there is nothing, and below anything else no
// namespace (catalog.ErrNamespaceNotFound), as Java's GlueCatalog answers.
func (s *Store) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	if len(parent) > 0 {
		if _, err := s.database(ctx, parent); err != nil {
			return nil, err
		}
		return nil, nil
	}
	dbs, err := s.databases(ctx)
	if err != nil {
		return nil, err
	}
	slices.Sort(dbs)
	out := make([][]string, len(dbs))
	for i, db := range dbs {
		out[i] = []string{db}
	}
	return out, nil
}

// databaseInput is the Glue database of the namespace properties props,
// as Java's IcebergToGlueConverter.toDatabaseInput writes it: "location"
// is its LocationUri, "comment" its Description, the rest its parameters.
func databaseInput(name string, props map[string]string) *types.DatabaseInput {
	in := &types.DatabaseInput{Name: aws.String(name), Parameters: map[string]string{}}
	for k, v := range props {
		switch k {
		case locationProperty:
			in.LocationUri = aws.String(v)
		case descriptionProperty:
			in.Description = aws.String(v)
		default:
			in.Parameters[k] = v
		}
	}
	return in
}

// CreateNamespace creates the database ns with props. A namespace of more
// than one level cannot be a Glue database (catalog.ErrInvalidIdentifier).
func (s *Store) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	name, err := database(ns)
	if err != nil {
		return fmt.Errorf("create namespace: %w: %w", catalog.ErrInvalidIdentifier, err)
	}
	_, err = s.client.CreateDatabase(ctx, &glue.CreateDatabaseInput{CatalogId: s.catalogID, DatabaseInput: databaseInput(name, props)})
	if errorCode(err) == codeExists {
		return fmt.Errorf("namespace %s: %w", name, catalog.ErrNamespaceExists)
	}
	if err != nil {
		return s.wrapErr(ctx, "create database "+name, err)
	}
	return nil
}

// DropNamespace deletes the database ns if it holds no table, of any
// format, as Java's GlueCatalog.dropNamespace requires.
func (s *Store) DropNamespace(ctx context.Context, ns []string) error {
	name, err := database(ns)
	if err != nil {
		return err
	}
	out, err := s.client.GetTables(ctx, &glue.GetTablesInput{CatalogId: s.catalogID, DatabaseName: aws.String(name), MaxResults: aws.Int32(1)})
	switch {
	case errorCode(err) == codeNotFound:
		return fmt.Errorf("namespace %s: %w", name, catalog.ErrNamespaceNotFound)
	case err != nil:
		return s.wrapErr(ctx, "list tables of database "+name, err)
	case len(out.TableList) > 0:
		kind := "non-Iceberg"
		if isIceberg(&out.TableList[0]) {
			kind = "Iceberg"
		}
		return fmt.Errorf("namespace %s: %w: it holds %s tables", name, catalog.ErrNamespaceNotEmpty, kind)
	}
	_, err = s.client.DeleteDatabase(ctx, &glue.DeleteDatabaseInput{CatalogId: s.catalogID, Name: aws.String(name)})
	if errorCode(err) == codeNotFound {
		return fmt.Errorf("namespace %s: %w", name, catalog.ErrNamespaceNotFound)
	}
	if err != nil {
		return s.wrapErr(ctx, "delete database "+name, err)
	}
	return nil
}

// LoadNamespace returns the database's parameters with its LocationUri as
// "location" (without a trailing slash) and its Description as "comment",
// as Java's GlueCatalog.loadNamespaceMetadata does.
func (s *Store) LoadNamespace(ctx context.Context, ns []string) (map[string]string, error) {
	db, err := s.database(ctx, ns)
	if err != nil {
		return nil, err
	}
	props := maps.Clone(db.Parameters)
	if props == nil {
		props = map[string]string{}
	}
	if db.LocationUri != nil {
		props[locationProperty] = strings.TrimRight(*db.LocationUri, "/")
	}
	if db.Description != nil {
		props[descriptionProperty] = *db.Description
	}
	return props, nil
}

// UpdateNamespaceProperties reads the database's properties, changes them
// and writes the database back, as Java's setProperties and
// removeProperties do: Glue has no compare-and-swap of a database, so two
// concurrent updates of one namespace may lose one another's keys.
func (s *Store) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) (catalog.PropertiesChange, error) {
	name, err := database(ns)
	if err != nil {
		return catalog.PropertiesChange{}, err
	}
	if err := catalog.CheckPropertiesUpdate(removals, updates); err != nil {
		return catalog.PropertiesChange{}, fmt.Errorf("update properties of namespace %s: %w", name, err)
	}
	props, err := s.LoadNamespace(ctx, ns)
	if err != nil {
		return catalog.PropertiesChange{}, err
	}
	var change catalog.PropertiesChange
	for _, k := range removals {
		switch {
		case slices.Contains(change.Removed, k) || slices.Contains(change.Missing, k):
		case hasKey(props, k):
			change.Removed = append(change.Removed, k)
			delete(props, k)
		default:
			change.Missing = append(change.Missing, k)
		}
	}
	change.Updated = slices.Sorted(maps.Keys(updates))
	maps.Copy(props, updates)
	slices.Sort(change.Removed)
	slices.Sort(change.Missing)
	if len(change.Removed) == 0 && len(change.Updated) == 0 {
		return change, nil
	}
	_, err = s.client.UpdateDatabase(ctx, &glue.UpdateDatabaseInput{CatalogId: s.catalogID, Name: aws.String(name), DatabaseInput: databaseInput(name, props)})
	if errorCode(err) == codeNotFound {
		return catalog.PropertiesChange{}, fmt.Errorf("namespace %s: %w", name, catalog.ErrNamespaceNotFound)
	}
	if err != nil {
		return catalog.PropertiesChange{}, s.wrapErr(ctx, "update database "+name, err)
	}
	return change, nil
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}
