package hms

import "strconv"

// The metastore's structs as this client uses them, with the field ids of
// hive_metastore.thrift (Hive 2.3 to 4.x agree on every id below). Fields
// not declared here travel in Unknown.

// Table is a metastore table (hive_metastore.thrift: Table).
type Table struct {
	TableName      string             `thrift:"1"`
	DBName         string             `thrift:"2"`
	Owner          string             `thrift:"3"`
	CreateTime     int32              `thrift:"4"`
	LastAccessTime int32              `thrift:"5"`
	Retention      int32              `thrift:"6"`
	SD             *StorageDescriptor `thrift:"7"`
	PartitionKeys  []FieldSchema      `thrift:"8"`
	Parameters     map[string]string  `thrift:"9"`
	TableType      string             `thrift:"12"`
	Unknown        Unknown
}

// StorageDescriptor is where and how a table's files are stored
// (hive_metastore.thrift: StorageDescriptor).
type StorageDescriptor struct {
	Cols         []FieldSchema     `thrift:"1"`
	Location     string            `thrift:"2"`
	InputFormat  string            `thrift:"3"`
	OutputFormat string            `thrift:"4"`
	Compressed   bool              `thrift:"5"`
	NumBuckets   int32             `thrift:"6"`
	SerDeInfo    *SerDeInfo        `thrift:"7"`
	BucketCols   []string          `thrift:"8"`
	Parameters   map[string]string `thrift:"10"`
	Unknown      Unknown
}

// SerDeInfo names a table's serializer (hive_metastore.thrift: SerDeInfo).
type SerDeInfo struct {
	Name             string            `thrift:"1"`
	SerializationLib string            `thrift:"2"`
	Parameters       map[string]string `thrift:"3"`
	Unknown          Unknown
}

// FieldSchema is a column (hive_metastore.thrift: FieldSchema).
type FieldSchema struct {
	Name    string `thrift:"1"`
	Type    string `thrift:"2"`
	Comment string `thrift:"3"`
	Unknown Unknown
}

// PrincipalType is who owns a database (hive_metastore.thrift:
// PrincipalType).
type PrincipalType int32

// Principal types.
const (
	PrincipalUser  PrincipalType = 1
	PrincipalRole  PrincipalType = 2
	PrincipalGroup PrincipalType = 3
)

// Database is a metastore database (hive_metastore.thrift: Database).
type Database struct {
	Name        string            `thrift:"1"`
	Description string            `thrift:"2"`
	LocationURI string            `thrift:"3"`
	Parameters  map[string]string `thrift:"4"`
	OwnerName   string            `thrift:"6,opt"`
	OwnerType   PrincipalType     `thrift:"7,opt"`
	Unknown     Unknown
}

// EnvironmentContext carries hints to the metastore with a change
// (hive_metastore.thrift: EnvironmentContext).
type EnvironmentContext struct {
	Properties map[string]string `thrift:"1"`
}

// LockType is the kind of a lock (hive_metastore.thrift: LockType).
type LockType int32

// Lock types.
const (
	LockSharedRead  LockType = 1
	LockSharedWrite LockType = 2
	LockExclusive   LockType = 3
)

// LockLevel is what a lock covers (hive_metastore.thrift: LockLevel).
type LockLevel int32

// Lock levels.
const (
	LockLevelDB    LockLevel = 1
	LockLevelTable LockLevel = 2
)

// LockState is where a lock request stands (hive_metastore.thrift:
// LockState).
type LockState int32

// Lock states.
const (
	LockAcquired    LockState = 1
	LockWaiting     LockState = 2
	LockAborted     LockState = 3
	LockNotAcquired LockState = 4
)

// String names the state as the IDL does.
func (s LockState) String() string {
	switch s {
	case LockAcquired:
		return "ACQUIRED"
	case LockWaiting:
		return "WAITING"
	case LockAborted:
		return "ABORT"
	case LockNotAcquired:
		return "NOT_ACQUIRED"
	}
	return "LockState(" + strconv.Itoa(int(s)) + ")"
}

// LockComponent is one object a lock request covers
// (hive_metastore.thrift: LockComponent).
type LockComponent struct {
	Type      LockType  `thrift:"1"`
	Level     LockLevel `thrift:"2"`
	DBName    string    `thrift:"3"`
	TableName string    `thrift:"4,opt"`
}

// LockRequest asks for locks outside a transaction (hive_metastore.thrift:
// LockRequest).
type LockRequest struct {
	Components []LockComponent `thrift:"1"`
	User       string          `thrift:"3"`
	Hostname   string          `thrift:"4"`
	AgentInfo  string          `thrift:"5,opt"`
}

// LockResponse is the state of a lock (hive_metastore.thrift:
// LockResponse).
type LockResponse struct {
	LockID       int64     `thrift:"1"`
	State        LockState `thrift:"2"`
	ErrorMessage string    `thrift:"3,opt"`
	Unknown      Unknown
}

// lockID is the request of check_lock and unlock (CheckLockRequest and
// UnlockRequest share field 1).
type lockID struct {
	LockID int64 `thrift:"1"`
}

// getTableRequest asks for one table (hive_metastore.thrift:
// GetTableRequest).
type getTableRequest struct {
	DBName    string `thrift:"1"`
	TableName string `thrift:"2"`
}

// getTableResult answers get_table_req.
type getTableResult struct {
	Table   *Table `thrift:"1"`
	Unknown Unknown
}

// getTablesRequest asks for tables of a database by name
// (hive_metastore.thrift: GetTablesRequest).
type getTablesRequest struct {
	DBName     string   `thrift:"1"`
	TableNames []string `thrift:"2"`
}

// getTablesResult answers get_table_objects_by_name_req.
type getTablesResult struct {
	Tables  []Table `thrift:"1"`
	Unknown Unknown
}
