package hive

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/hive/hms"
)

// Namespace properties that are fields of a metastore database rather
// than its parameters, as Iceberg Java's HiveCatalog maps them.
const (
	propLocation  = "location"
	propComment   = "comment"
	propOwner     = "hive.metastore.database.owner"
	propOwnerType = "hive.metastore.database.owner-type"
)

var ownerTypes = map[string]hms.PrincipalType{"USER": hms.PrincipalUser, "ROLE": hms.PrincipalRole, "GROUP": hms.PrincipalGroup}

// database returns the one level of ns, a metastore database; a deeper
// namespace cannot exist.
func database(ns []string) (string, error) {
	if len(ns) != 1 {
		return "", fmt.Errorf("%w: %q: the Hive Metastore has one level of namespaces", catalog.ErrNamespaceNotFound, strings.Join(ns, "."))
	}
	return ns[0], nil
}

// ListNamespaces returns every database for the top level (parent nil),
// and nothing below a database, which holds no namespaces.
func (s *store) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	if len(parent) > 0 {
		// Below an existing database: none; below anything else, the
		// parent is not found.
		_, err := s.LoadNamespace(ctx, parent)
		return nil, err
	}
	var names []string
	err := s.pool.Read(ctx, func(c *hms.Client) (err error) { names, err = c.GetAllDatabases(ctx); return err })
	if err != nil {
		return nil, mapError(err, aNamespace)
	}
	slices.Sort(names)
	out := make([][]string, len(names))
	for i, n := range names {
		out[i] = []string{n}
	}
	return out, nil
}

// CreateNamespace creates the database ns with props: "location" is its
// location (else <warehouse>/<name>.db when the catalog has a
// warehouse, else the metastore's choice), "comment" its description,
// hive.metastore.database.owner and -owner-type its owner (else the
// current user), the rest its parameters.
func (s *store) CreateNamespace(ctx context.Context, ns []string, props map[string]string) error {
	if len(ns) != 1 {
		return fmt.Errorf("%w: namespace %q: the Hive Metastore has one level of namespaces", catalog.ErrUnsupported, strings.Join(ns, "."))
	}
	db := &hms.Database{Name: ns[0]}
	if s.cfg.warehouse != "" {
		db.LocationURI = s.cfg.warehouse + "/" + ns[0] + ".db"
	}
	if err := s.annotate(db, props); err != nil {
		return err
	}
	err := s.pool.Do(ctx, func(c *hms.Client) error { return c.CreateDatabase(ctx, db) })
	return mapChange(err, aNamespace)
}

// annotate sets the database fields and parameters props stand for, as
// Java's HiveCatalog.convertToDatabase does.
func (s *store) annotate(db *hms.Database, props map[string]string) error {
	params := map[string]string{}
	db.OwnerName, db.OwnerType = "", 0
	for k, v := range props {
		switch k {
		case propComment:
			db.Description = v
		case propLocation:
			db.LocationURI = v
		case propOwner:
			db.OwnerName = v
		case propOwnerType:
			t, ok := ownerTypes[v]
			if !ok {
				return fmt.Errorf("%w: %s %q is not USER, ROLE or GROUP", catalog.ErrInvalidProperties, propOwnerType, v)
			}
			db.OwnerType = t
		default:
			params[k] = v
		}
	}
	if db.OwnerName == "" {
		if db.OwnerType != 0 {
			return fmt.Errorf("%w: %s without %s", catalog.ErrInvalidProperties, propOwnerType, propOwner)
		}
		db.OwnerName, db.OwnerType = s.user, hms.PrincipalUser
	}
	db.Parameters = params
	return nil
}

// properties returns a database's fields and parameters as namespace
// properties, as Java's HiveCatalog.convertToMetadata does.
func properties(db *hms.Database) map[string]string {
	props := maps.Clone(db.Parameters)
	if props == nil {
		props = map[string]string{}
	}
	props[propLocation] = db.LocationURI
	if db.Description != "" {
		props[propComment] = db.Description
	}
	if db.OwnerName != "" {
		props[propOwner] = db.OwnerName
		for name, t := range ownerTypes {
			if t == db.OwnerType {
				props[propOwnerType] = name
			}
		}
	}
	return props
}

// DropNamespace drops the database ns, which must hold no tables.
func (s *store) DropNamespace(ctx context.Context, ns []string) error {
	name, err := database(ns)
	if err != nil {
		return err
	}
	err = s.pool.Do(ctx, func(c *hms.Client) error { return c.DropDatabase(ctx, name) })
	if hms.IsException(err, hms.InvalidOperationException) {
		return fmt.Errorf("%w: %v", catalog.ErrNamespaceNotEmpty, err)
	}
	return mapChange(err, aNamespace)
}

// LoadNamespace returns the properties of the database ns.
func (s *store) LoadNamespace(ctx context.Context, ns []string) (map[string]string, error) {
	db, err := s.getDatabase(ctx, ns)
	if err != nil {
		return nil, err
	}
	return properties(db), nil
}

func (s *store) getDatabase(ctx context.Context, ns []string) (*hms.Database, error) {
	name, err := database(ns)
	if err != nil {
		return nil, err
	}
	var db *hms.Database
	err = s.pool.Read(ctx, func(c *hms.Client) (err error) { db, err = c.GetDatabase(ctx, name); return err })
	return db, mapError(err, aNamespace)
}

// UpdateNamespaceProperties removes and sets properties of the database
// ns: its properties are read, changed and written back whole with the
// database (alter_database), as Java's setProperties and removeProperties
// do. Fields of the database the properties do not stand for are kept.
func (s *store) UpdateNamespaceProperties(ctx context.Context, ns []string, removals []string, updates map[string]string) (catalog.PropertiesChange, error) {
	var change catalog.PropertiesChange
	db, err := s.getDatabase(ctx, ns)
	if err != nil {
		return change, err
	}
	props := properties(db)
	for _, k := range removals {
		if _, ok := props[k]; ok {
			delete(props, k)
			change.Removed = append(change.Removed, k)
		} else {
			change.Missing = append(change.Missing, k)
		}
	}
	for k, v := range updates {
		props[k] = v
		change.Updated = append(change.Updated, k)
	}
	for _, l := range [][]string{change.Updated, change.Removed, change.Missing} {
		slices.Sort(l)
	}
	if len(change.Updated)+len(change.Removed) == 0 {
		return change, nil
	}
	db.Description, db.LocationURI = "", ""
	if err := s.annotate(db, props); err != nil {
		return catalog.PropertiesChange{}, err
	}
	err = s.pool.Do(ctx, func(c *hms.Client) error { return c.AlterDatabase(ctx, db.Name, db) })
	if err != nil {
		return catalog.PropertiesChange{}, mapChange(err, aNamespace)
	}
	return change, nil
}
