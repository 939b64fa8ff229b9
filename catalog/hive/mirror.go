package hive

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/catalog/hive/hms"
	"github.com/iceflight/iceflight/catalog/pointer"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// What a metastore table mirrors of its Iceberg metadata, as Iceberg
// Java's HiveTableOperations and HMSTablePropertyHelper write it, so that
// engines reading the metastore (Hive, Spark's catalog listing, Trino)
// see the table's columns, location and properties. Only
// metadata_location is the catalog's truth; the rest is informative.

// Table parameters the catalog owns.
const (
	paramTableType        = "table_type"
	paramMetadataLocation = "metadata_location"
	paramPrevious         = "previous_metadata_location"
	paramExternal         = "EXTERNAL"
	tableTypeIceberg      = "ICEBERG"
	tableTypeExternal     = "EXTERNAL_TABLE"

	paramUUID            = "uuid"
	paramSchema          = "current-schema"
	paramSnapshotID      = "current-snapshot-id"
	paramSnapshotTime    = "current-snapshot-timestamp-ms"
	paramSnapshotSummary = "current-snapshot-summary"
	paramSnapshotCount   = "snapshot-count"
	paramPartitionSpec   = "default-partition-spec"
	paramSortOrder       = "default-sort-order"
	paramStorageHandler  = "storage_handler"
	paramNumFiles        = "numFiles"
	paramNumRows         = "numRows"
	paramTotalSize       = "totalSize"
	paramStatsAccurate   = "COLUMN_STATS_ACCURATE"
	paramNoStatsUpdate   = "DO_NOT_UPDATE_STATS"

	// propTableOwner is the table property that names the owner of a new
	// metastore table; it is not copied into the parameters.
	propTableOwner = "hive.metastore.table.owner"
	// propEngineHive is the table property that overrides the catalog's
	// PropEngineHiveEnabled.
	propEngineHive = "engine.hive.enabled"
)

// icebergToHive renames table properties whose Hive counterpart controls
// the same thing (dropping a table's data).
var icebergToHive = map[string]string{"gc.enabled": "external.table.purge"}

// isIceberg reports whether a metastore table is an Iceberg table:
// table_type is ICEBERG, in any case.
func isIceberg(t *hms.Table) bool {
	return strings.EqualFold(t.Parameters[paramTableType], tableTypeIceberg)
}

// newTable returns the metastore entry of a new Iceberg table db.name, as
// Java's HiveOperationsBase.newHmsTable makes it.
func (s *store) newTable(db, name string, md *iceberg.TableMetadata, nowSec int32) *hms.Table {
	owner := md.Properties[propTableOwner]
	if owner == "" {
		owner = s.user
	}
	return &hms.Table{TableName: name, DBName: db, Owner: owner, CreateTime: nowSec, LastAccessTime: nowSec,
		Retention: 1<<31 - 1, PartitionKeys: []hms.FieldSchema{}, TableType: tableTypeExternal,
		Parameters: map[string]string{paramExternal: "TRUE"}}
}

// mirror sets on t what it mirrors of md, whose metadata file is loc and
// which follows the file prev ("" for a new table).
func (s *store) mirror(t *hms.Table, loc, prev string, md *iceberg.TableMetadata) error {
	engine := s.cfg.engineHive
	if v, ok := md.Properties[propEngineHive]; ok {
		engine = strings.EqualFold(v, "true")
	}
	sd, err := storageDescriptor(md, tableLocation(loc, md), engine, s.cfg.hive2)
	if err != nil {
		return err
	}
	// A new descriptor every time, as Java sets one: the columns follow
	// the schema.
	t.SD = sd
	if t.Parameters == nil {
		t.Parameters = map[string]string{}
	}
	return s.parameters(t.Parameters, loc, prev, md, engine)
}

// parameters updates p, a table's parameters, as Java's
// HMSTablePropertyHelper.updateHmsTableForIcebergTable does, then marks
// the change as one after which the metastore computes no statistics.
func (s *store) parameters(p map[string]string, loc, prev string, md *iceberg.TableMetadata, engine bool) error {
	for k, v := range md.Properties {
		if strings.EqualFold(k, propTableOwner) {
			continue
		}
		if h, ok := icebergToHive[k]; ok {
			k = h
		}
		p[k] = v
	}
	if md.TableUUID != "" {
		p[paramUUID] = md.TableUUID
	}
	p[paramTableType] = tableTypeIceberg
	p[paramMetadataLocation] = loc
	if prev != "" {
		p[paramPrevious] = prev
	}
	maxSize := s.cfg.maxParamSize
	delete(p, paramSchema)
	if maxSize > 0 {
		if err := setJSON(p, paramSchema, md.CurrentSchema(), maxSize); err != nil {
			return err
		}
	}
	if engine {
		p[paramStorageHandler] = "org.apache.iceberg.mr.hive.HiveIcebergStorageHandler"
	} else {
		delete(p, paramStorageHandler)
	}

	snap := md.CurrentSnapshot()
	if snap != nil {
		for from, to := range map[string]string{"total-data-files": paramNumFiles, "total-records": paramNumRows, "total-files-size": paramTotalSize} {
			if v, ok := snap.Summary.Get(from); ok {
				p[to] = v
			}
		}
	}
	for _, k := range []string{paramSnapshotID, paramSnapshotTime, paramSnapshotSummary, paramPartitionSpec, paramSortOrder} {
		delete(p, k)
	}
	if maxSize > 0 && snap != nil {
		p[paramSnapshotID] = strconv.FormatInt(snap.SnapshotID, 10)
		p[paramSnapshotTime] = strconv.FormatInt(snap.TimestampMs, 10)
		if err := setJSON(p, paramSnapshotSummary, snap.Summary, maxSize); err != nil {
			return err
		}
	}
	p[paramSnapshotCount] = strconv.Itoa(len(md.Snapshots))
	if spec, ok := md.SpecByID(md.DefaultSpecID); ok && maxSize > 0 && partitioned(spec) {
		if err := setJSON(p, paramPartitionSpec, spec, maxSize); err != nil {
			return err
		}
	}
	for _, o := range md.SortOrders {
		if o.OrderID == md.DefaultSortOrderID && len(o.Fields) > 0 && maxSize > 0 {
			if err := setJSON(p, paramSortOrder, o, maxSize); err != nil {
				return err
			}
		}
	}
	// Hive's statistics describe Hive's files, not Iceberg's.
	delete(p, paramStatsAccurate)
	p[paramNoStatsUpdate] = "true"
	return nil
}

// setJSON sets p[key] to v as JSON, unless that is longer than maxSize.
func setJSON(p map[string]string, key string, v any, maxSize int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("table parameter %s: %w", key, err)
	}
	if len(b) <= maxSize {
		p[key] = string(b)
	}
	return nil
}

// partitioned reports whether a spec has a field that is not void.
func partitioned(spec iceberg.PartitionSpec) bool {
	for _, f := range spec.Fields {
		if f.Transform.String() != "void" {
			return true
		}
	}
	return false
}

// tableLocation returns where the table whose metadata file is loc lies:
// md's location, unless loc lies outside it (a table registered away from
// where it was written), then the folder above loc's "metadata" folder,
// where catalog.Relocate reads it. Java mirrors the recorded location
// whatever it is; but the metastore creates the folder an entry names, so
// a location recorded on another machine (an HDFS or S3 it cannot reach,
// a local path that is not there) would fail the registration or leave a
// stray folder behind.
func tableLocation(loc string, md *iceberg.TableMetadata) string {
	if md.Location == "" || fileio.Under(loc, md.Location) {
		return md.Location
	}
	dir := loc[:max(strings.LastIndex(loc, "/"), 0)]
	if path.Base(dir) != "metadata" {
		return md.Location
	}
	return dir[:max(strings.LastIndex(dir, "/"), 0)]
}

// storageDescriptor returns the storage descriptor of a table of md at
// location, as Java's HiveOperationsBase.storageDescriptor makes it: the
// current schema's columns with their Hive types, the location, and the
// formats and SerDe that let Hive read it (engine) or that mark it as not
// Hive's to read.
func storageDescriptor(md *iceberg.TableMetadata, location string, engine, hive2 bool) (*hms.StorageDescriptor, error) {
	schema := md.CurrentSchema()
	if schema == nil {
		return nil, fmt.Errorf("metadata has no current schema %d", md.CurrentSchemaID)
	}
	cols := make([]hms.FieldSchema, len(schema.Fields))
	for i, f := range schema.Fields {
		cols[i] = hms.FieldSchema{Name: f.Name, Type: hiveType(f.Type, hive2), Comment: f.Doc}
	}
	sd := &hms.StorageDescriptor{Cols: cols, Location: location,
		InputFormat:  "org.apache.hadoop.mapred.FileInputFormat",
		OutputFormat: "org.apache.hadoop.mapred.FileOutputFormat",
		SerDeInfo:    &hms.SerDeInfo{SerializationLib: "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", Parameters: map[string]string{}},
	}
	if engine {
		sd.InputFormat = "org.apache.iceberg.mr.hive.HiveIcebergInputFormat"
		sd.OutputFormat = "org.apache.iceberg.mr.hive.HiveIcebergOutputFormat"
		sd.SerDeInfo.SerializationLib = "org.apache.iceberg.mr.hive.HiveIcebergSerDe"
	}
	return sd, nil
}

// hiveType is the Hive type of an Iceberg type, as Java's
// HiveSchemaUtil.convertToTypeString names it (Hive 3 and later: a
// timestamp adjusted to UTC is "timestamp with local time zone", unless
// hive2). Types Java has no name for are named as PyIceberg names them
// (unknown: void) or by the nearest Hive type (nanosecond timestamps as
// timestamps, variant and the geo types as binary): the columns only
// inform, and Iceberg readers never use them.
func hiveType(t iceberg.Type, hive2 bool) string {
	return pointer.HiveTypeString(t, func(t iceberg.Type) string {
		if name, ok := pointer.HivePrimitive(t); ok {
			return name
		}
		switch t.(type) {
		case iceberg.TimestampType, iceberg.TimestampNsType:
			return "timestamp"
		case iceberg.TimestampTzType, iceberg.TimestampTzNsType:
			if hive2 {
				return "timestamp"
			}
			return "timestamp with local time zone"
		case iceberg.UnknownType:
			return "void"
		}
		// fixed, binary, variant and the geo types.
		return "binary"
	})
}
