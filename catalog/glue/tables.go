package glue

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/glue/types"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// The Glue table parameters of an Iceberg table, as Iceberg Java's
// BaseMetastoreTableOperations and PyIceberg name them.
const (
	tableTypeParam        = "table_type"
	metadataLocationParam = "metadata_location"
	previousLocationParam = "previous_metadata_location"
	icebergTableType      = "ICEBERG"
	// externalTable is the Glue TableType Java and PyIceberg give Iceberg
	// tables (Hive's EXTERNAL_TABLE: dropping it leaves the files).
	externalTable = "EXTERNAL_TABLE"
)

// isIceberg reports whether a Glue table is an Iceberg table: its
// table_type parameter is ICEBERG in any case, as Java and PyIceberg read it.
func isIceberg(t *types.Table) bool {
	return strings.EqualFold(t.Parameters[tableTypeParam], icebergTableType)
}

// names returns the Glue database and table of id: Glue has one level of
// databases, so an id in any other namespace names no table.
func names(id catalog.Identifier) (db, table string, err error) {
	db, err = database(id.Namespace())
	if err != nil {
		return "", "", fmt.Errorf("table %s: %w: %w", id, catalog.ErrTableNotFound, err)
	}
	return db, id.Name(), nil
}

// Tables returns every Iceberg table of every database, leaving out the
// Glue tables of other formats.
func (s *Store) Tables(ctx context.Context) ([]catalog.Identifier, error) {
	dbs, err := s.databases(ctx)
	if err != nil {
		return nil, err
	}
	var ids []catalog.Identifier
	for _, db := range dbs {
		pages := glue.NewGetTablesPaginator(s.client, &glue.GetTablesInput{CatalogId: s.catalogID, DatabaseName: aws.String(db)})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if errorCode(err) == codeNotFound {
				break // dropped since it was listed
			}
			if err != nil {
				return nil, s.wrapErr(ctx, "list tables of database "+db, err)
			}
			for i := range page.TableList {
				if t := &page.TableList[i]; isIceberg(t) && t.Name != nil {
					ids = append(ids, catalog.Identifier{db, *t.Name})
				}
			}
		}
	}
	return ids, nil
}

// table returns the Glue table of id, which must be an Iceberg table:
// absent, or of another format, it wraps catalog.ErrTableNotFound.
func (s *Store) table(ctx context.Context, id catalog.Identifier) (*types.Table, error) {
	db, name, err := names(id)
	if err != nil {
		return nil, err
	}
	out, err := s.client.GetTable(ctx, &glue.GetTableInput{CatalogId: s.catalogID, DatabaseName: aws.String(db), Name: aws.String(name)})
	switch {
	case errorCode(err) == codeNotFound:
		return nil, fmt.Errorf("%w", catalog.ErrTableNotFound)
	case err != nil:
		return nil, s.wrapErr(ctx, "get table "+id.String(), err)
	case out.Table == nil || !isIceberg(out.Table):
		return nil, fmt.Errorf("%w: the Glue table is not an Iceberg table (table_type=%q)", catalog.ErrTableNotFound, tableType(out.Table))
	}
	return out.Table, nil
}

func tableType(t *types.Table) string {
	if t == nil {
		return ""
	}
	return t.Parameters[tableTypeParam]
}

// Locate returns the metadata_location parameter of the Glue table id.
func (s *Store) Locate(ctx context.Context, id catalog.Identifier) (string, error) {
	t, err := s.table(ctx, id)
	if err != nil {
		return "", err
	}
	loc := t.Parameters[metadataLocationParam]
	if loc == "" {
		return "", fmt.Errorf("%w: the Glue table has no %s", catalog.ErrTableNotFound, metadataLocationParam)
	}
	return loc, nil
}

// tableInput is the Glue table Java writes for metadata md at loc:
// EXTERNAL_TABLE, the pointer parameters over those params already has,
// and the schema and locations mirrored from md (see storageDescriptor).
// old is the Glue table being replaced, or nil.
func tableInput(name, loc string, params map[string]string, md *iceberg.TableMetadata, old *types.Table) *types.TableInput {
	params = maps.Clone(params)
	if params == nil {
		params = map[string]string{}
	}
	params[tableTypeParam] = icebergTableType
	params[metadataLocationParam] = loc
	return &types.TableInput{
		Name:              aws.String(name),
		TableType:         aws.String(externalTable),
		Parameters:        params,
		StorageDescriptor: storageDescriptor(md, old),
		Description:       description(md, old),
	}
}

// Insert creates the Glue table id pointing at loc.
func (s *Store) Insert(ctx context.Context, id catalog.Identifier, loc string, md *iceberg.TableMetadata) error {
	db, name, err := names(id)
	if err != nil {
		return fmt.Errorf("%w: %w", catalog.ErrNamespaceNotFound, err)
	}
	return s.create(ctx, id, db, tableInput(name, loc, nil, md, nil))
}

// create creates the Glue table id in the database db as in says.
func (s *Store) create(ctx context.Context, id catalog.Identifier, db string, in *types.TableInput) error {
	_, err := s.client.CreateTable(ctx, &glue.CreateTableInput{CatalogId: s.catalogID, DatabaseName: aws.String(db), TableInput: in})
	switch errorCode(err) {
	case "":
	case codeExists:
		return fmt.Errorf("table %s: %w", id, catalog.ErrTableExists)
	case codeNotFound:
		return fmt.Errorf("table %s: %w: database %s", id, catalog.ErrNamespaceNotFound, db)
	}
	if err != nil {
		return s.wrapErr(ctx, "create table "+id.String(), err)
	}
	return nil
}

// Delete removes the Glue table id, which must be an Iceberg table: a
// table of another format is not this catalog's to drop.
func (s *Store) Delete(ctx context.Context, id catalog.Identifier) error {
	if _, err := s.table(ctx, id); err != nil {
		return err
	}
	db, name, _ := names(id)
	return s.delete(ctx, id, db, name)
}

// delete deletes the Glue table db.name, known to the caller as id.
func (s *Store) delete(ctx context.Context, id catalog.Identifier, db, name string) error {
	_, err := s.client.DeleteTable(ctx, &glue.DeleteTableInput{CatalogId: s.catalogID, DatabaseName: aws.String(db), Name: aws.String(name)})
	if errorCode(err) == codeNotFound {
		return fmt.Errorf("%w", catalog.ErrTableNotFound)
	}
	if err != nil {
		return s.wrapErr(ctx, "delete table "+id.String(), err)
	}
	return nil
}

// Rename moves the table from to to as Iceberg Java's GlueCatalog does,
// Glue having no rename: it creates the table to as a copy of from's Glue
// table (owner, type, parameters, storage descriptor, description), then
// deletes from, and deletes the copy again when from cannot be deleted.
// Before the delete it reads from once more and gives up, removing the
// copy, if a commit moved it meanwhile (catalog.ErrCommitConflict); a
// commit in the moment between that read and the delete is lost, as it is
// with Java.
func (s *Store) Rename(ctx context.Context, from, to catalog.Identifier) error {
	src, err := s.table(ctx, from)
	if err != nil {
		return err
	}
	toDB, toName, err := names(to)
	if err != nil {
		return fmt.Errorf("%w: %w", catalog.ErrNamespaceNotFound, err)
	}
	fromDB, fromName, _ := names(from)
	if fromDB == toDB && fromName == toName {
		return nil
	}
	in := &types.TableInput{
		Name:              aws.String(toName),
		Owner:             src.Owner,
		TableType:         src.TableType,
		Parameters:        src.Parameters,
		StorageDescriptor: src.StorageDescriptor,
		Description:       src.Description,
	}
	if err := s.create(ctx, to, toDB, in); err != nil {
		return err
	}
	undo := func(cause error) error {
		if err := s.delete(ctx, to, toDB, toName); err != nil {
			return fmt.Errorf("rename %s to %s: %w; removing the copy %s failed too, remove it by hand: %w", from, to, cause, to, err)
		}
		return fmt.Errorf("rename %s to %s: %w", from, to, cause)
	}
	now, err := s.table(ctx, from)
	switch {
	case err != nil:
		return undo(err)
	case aws.ToString(now.VersionId) != aws.ToString(src.VersionId) ||
		now.Parameters[metadataLocationParam] != src.Parameters[metadataLocationParam]:
		return undo(fmt.Errorf("%w: %s was committed to during the rename", catalog.ErrCommitConflict, from))
	}
	if err := s.delete(ctx, from, fromDB, fromName); err != nil {
		// Dropped since it was read, or not deleted: either way the copy
		// must not stay.
		return undo(err)
	}
	return nil
}

// TableLocation returns <database location>/<table> when the table's
// database has a location, as Java's GlueCatalog.defaultWarehouseLocation
// does, and "" otherwise.
func (s *Store) TableLocation(ctx context.Context, id catalog.Identifier) (string, error) {
	db, err := s.database(ctx, id.Namespace())
	if err != nil {
		return "", err
	}
	if u := strings.TrimRight(aws.ToString(db.LocationUri), "/"); u != "" {
		return u + "/" + id.Name(), nil
	}
	return "", nil
}
