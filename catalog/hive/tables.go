package hive

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/hive/hms"
	"github.com/iceflight/iceflight/iceberg"
)

// listBatch is how many tables one get_table_objects_by_name_req asks
// for, as Java's HiveCatalog batches its listing.
const listBatch = 100

// tableName returns the database and table of id; an id whose namespace
// is not one level names no metastore table.
func tableName(id catalog.Identifier) (db, name string, err error) {
	if len(id) != 2 {
		return "", "", fmt.Errorf("%w: %q: the Hive Metastore has one level of namespaces", catalog.ErrTableNotFound, id.String())
	}
	return id[0], id[1], nil
}

// Tables returns the Iceberg tables of every database: each database's
// table names, then the tables themselves in batches, to keep those whose
// table_type is ICEBERG (Java's HiveCatalog.listTables).
func (s *store) Tables(ctx context.Context) ([]catalog.Identifier, error) {
	var ids []catalog.Identifier
	err := s.pool.Read(ctx, func(c *hms.Client) error {
		ids = ids[:0]
		dbs, err := c.GetAllDatabases(ctx)
		if err != nil {
			return err
		}
		for _, db := range dbs {
			names, err := c.GetAllTables(ctx, db)
			if err != nil {
				return err
			}
			for batch := range slices.Chunk(names, listBatch) {
				tables, err := c.GetTables(ctx, db, batch)
				if hms.IsException(err, hms.UnknownDBException) {
					break // dropped since it was listed
				}
				if err != nil {
					return err
				}
				for i := range tables {
					if isIceberg(&tables[i]) {
						ids = append(ids, catalog.Identifier{db, tables[i].TableName})
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, mapError(err, aNamespace)
	}
	return ids, nil
}

// getTable reads the metastore entry of the Iceberg table id; an absent
// table, or one of another format, wraps catalog.ErrTableNotFound.
func (s *store) getTable(ctx context.Context, c *hms.Client, id catalog.Identifier) (*hms.Table, error) {
	db, name, err := tableName(id)
	if err != nil {
		return nil, err
	}
	t, err := c.GetTable(ctx, db, name)
	if err != nil {
		return nil, mapError(err, aTable)
	}
	if !isIceberg(t) {
		return nil, fmt.Errorf("%w: %s is not an Iceberg table (table_type %q)", catalog.ErrTableNotFound, id, t.Parameters[paramTableType])
	}
	return t, nil
}

// Locate returns the metadata_location of the Iceberg table id.
func (s *store) Locate(ctx context.Context, id catalog.Identifier) (string, error) {
	var loc string
	err := s.pool.Read(ctx, func(c *hms.Client) error {
		t, err := s.getTable(ctx, c, id)
		if err != nil {
			return err
		}
		loc = t.Parameters[paramMetadataLocation]
		return nil
	})
	if err != nil {
		return "", mapError(err, aTable)
	}
	if loc == "" {
		return "", fmt.Errorf("%w: %s has no %s parameter", catalog.ErrTableNotFound, id, paramMetadataLocation)
	}
	return loc, nil
}

// Insert creates the metastore entry of the table id pointing at loc, as
// Java's HiveTableOperations does for a new table: an EXTERNAL_TABLE with
// table_type=ICEBERG, its columns and properties mirrored from md.
func (s *store) Insert(ctx context.Context, id catalog.Identifier, loc string, md *iceberg.TableMetadata) error {
	db, name, err := tableName(id)
	if err != nil {
		return fmt.Errorf("%w: %v", catalog.ErrNamespaceNotFound, err)
	}
	t := s.newTable(db, name, md, int32(time.Now().Unix()))
	if err := s.mirror(t, loc, "", md); err != nil {
		return err
	}
	err = s.pool.Do(ctx, func(c *hms.Client) error { return c.CreateTable(ctx, t) })
	// A missing database is a NoSuchObjectException or, from Hive 4, an
	// InvalidObjectException that names it: which one, the database says.
	if hms.IsException(err, hms.NoSuchObjectException) || hms.IsException(err, hms.InvalidObjectException) {
		if _, dberr := s.getDatabase(ctx, id.Namespace()); errors.Is(dberr, catalog.ErrNamespaceNotFound) {
			return fmt.Errorf("%w: %v", catalog.ErrNamespaceNotFound, err)
		}
	}
	return mapChange(err, aTable)
}

// Delete drops the metastore entry of the table id, leaving its files.
func (s *store) Delete(ctx context.Context, id catalog.Identifier) error {
	db, name, err := tableName(id)
	if err != nil {
		return err
	}
	err = s.pool.Do(ctx, func(c *hms.Client) error { return c.DropTable(ctx, db, name) })
	return mapChange(err, aTable)
}

// Rename renames the Iceberg table from to to, possibly into another
// database, as Java's HiveCatalog.renameTable does: to's database must
// exist and to must name no table, then the entry is altered with its new
// names. The table keeps its files and location.
func (s *store) Rename(ctx context.Context, from, to catalog.Identifier) error {
	fromDB, fromName, err := tableName(from)
	if err != nil {
		return err
	}
	toDB, toName, err := tableName(to)
	if err != nil {
		return fmt.Errorf("%w: %v", catalog.ErrNamespaceNotFound, err)
	}
	return s.pool.Do(ctx, func(c *hms.Client) error {
		t, err := s.getTable(ctx, c, from)
		if err != nil {
			return err
		}
		if _, err := c.GetDatabase(ctx, toDB); err != nil {
			return mapError(err, aNamespace)
		}
		switch _, err := c.GetTable(ctx, toDB, toName); {
		case err == nil:
			return fmt.Errorf("%w: %s", catalog.ErrTableExists, to)
		case !hms.IsException(err, hms.NoSuchObjectException):
			return mapError(err, aTable)
		}
		t.DBName, t.TableName = toDB, toName
		err = c.AlterTable(ctx, fromDB, fromName, t, map[string]string{paramNoStatsUpdate: "true"})
		if hms.IsException(err, hms.InvalidOperationException) && strings.Contains(err.Error(), "already exists") {
			return fmt.Errorf("%w: %v", catalog.ErrTableExists, err)
		}
		return mapChange(err, aTable)
	})
}

// TableLocation returns <database location>/<table> for a new table id, as
// Java's HiveCatalog.defaultWarehouseLocation does, or "" when the
// database has no location.
func (s *store) TableLocation(ctx context.Context, id catalog.Identifier) (string, error) {
	db, err := s.getDatabase(ctx, id.Namespace())
	if err != nil {
		return "", err
	}
	if db.LocationURI == "" {
		return "", nil
	}
	return strings.TrimRight(db.LocationURI, "/") + "/" + id.Name(), nil
}
