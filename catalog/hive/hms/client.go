// Package hms is a small client of the Hive Metastore's Thrift API: the
// calls an Iceberg catalog needs (databases, tables, locks), over the
// binary protocol and a plain socket, with the structs coded by one
// generic loop (codec.go) instead of the metastore's generated code. A
// Pool holds a few connections, since one carries one call at a time.
//
// Calls that Hive 4.0.1 removed (get_table, get_table_objects_by_name) are
// not used: their *_req forms serve every metastore from Hive 2.3 on.
package hms

import "context"

// Client makes calls on one connection of a Pool, lent for the duration
// of a function (Pool.Do, Pool.Read).
type Client struct{ c *conn }

// GetAllDatabases returns the names of every database.
func (cl *Client) GetAllDatabases(ctx context.Context) ([]string, error) {
	var names []string
	err := cl.c.call(ctx, "get_all_databases", &struct{}{}, &names, MetaException)
	return names, err
}

// GetDatabase returns the database name.
func (cl *Client) GetDatabase(ctx context.Context, name string) (*Database, error) {
	args := struct {
		Name string `thrift:"1"`
	}{name}
	var db Database
	if err := cl.c.call(ctx, "get_database", &args, &db, NoSuchObjectException, MetaException); err != nil {
		return nil, err
	}
	return &db, nil
}

// CreateDatabase creates the database db.
func (cl *Client) CreateDatabase(ctx context.Context, db *Database) error {
	args := struct {
		DB *Database `thrift:"1"`
	}{db}
	return cl.c.call(ctx, "create_database", &args, nil, AlreadyExistsException, InvalidObjectException, MetaException)
}

// DropDatabase drops the database name, which must be empty (no cascade),
// leaving its files.
func (cl *Client) DropDatabase(ctx context.Context, name string) error {
	args := struct {
		Name       string `thrift:"1"`
		DeleteData bool   `thrift:"2"`
		Cascade    bool   `thrift:"3"`
	}{Name: name}
	return cl.c.call(ctx, "drop_database", &args, nil, NoSuchObjectException, InvalidOperationException, MetaException)
}

// AlterDatabase replaces the database name with db.
func (cl *Client) AlterDatabase(ctx context.Context, name string, db *Database) error {
	args := struct {
		Name string    `thrift:"1"`
		DB   *Database `thrift:"2"`
	}{name, db}
	return cl.c.call(ctx, "alter_database", &args, nil, MetaException, NoSuchObjectException)
}

// GetAllTables returns the names of every table (of any kind) in the
// database db.
func (cl *Client) GetAllTables(ctx context.Context, db string) ([]string, error) {
	args := struct {
		DB string `thrift:"1"`
	}{db}
	var names []string
	err := cl.c.call(ctx, "get_all_tables", &args, &names, MetaException)
	return names, err
}

// GetTable returns the table name of the database db.
func (cl *Client) GetTable(ctx context.Context, db, name string) (*Table, error) {
	args := struct {
		Req *getTableRequest `thrift:"1"`
	}{&getTableRequest{DBName: db, TableName: name}}
	var res getTableResult
	if err := cl.c.call(ctx, "get_table_req", &args, &res, MetaException, NoSuchObjectException); err != nil {
		return nil, err
	}
	if res.Table == nil {
		return nil, &Exception{Method: "get_table_req", Kind: NoSuchObjectException, Message: "no table in the reply"}
	}
	return res.Table, nil
}

// GetTables returns the tables of the database db named in names that
// exist.
func (cl *Client) GetTables(ctx context.Context, db string, names []string) ([]Table, error) {
	args := struct {
		Req *getTablesRequest `thrift:"1"`
	}{&getTablesRequest{DBName: db, TableNames: names}}
	var res getTablesResult
	err := cl.c.call(ctx, "get_table_objects_by_name_req", &args, &res,
		MetaException, InvalidOperationException, UnknownDBException)
	return res.Tables, err
}

// CreateTable creates the table t.
func (cl *Client) CreateTable(ctx context.Context, t *Table) error {
	args := struct {
		Table *Table `thrift:"1"`
	}{t}
	return cl.c.call(ctx, "create_table", &args, nil,
		AlreadyExistsException, InvalidObjectException, MetaException, NoSuchObjectException)
}

// AlterTable replaces the table name of the database db with t (which may
// name another database or table: a rename), with env as the change's
// environment context.
func (cl *Client) AlterTable(ctx context.Context, db, name string, t *Table, env map[string]string) error {
	args := struct {
		DB    string              `thrift:"1"`
		Name  string              `thrift:"2"`
		Table *Table              `thrift:"3"`
		Env   *EnvironmentContext `thrift:"4"`
	}{db, name, t, &EnvironmentContext{Properties: env}}
	return cl.c.call(ctx, "alter_table_with_environment_context", &args, nil, InvalidOperationException, MetaException)
}

// DropTable drops the table name of the database db, leaving its files.
func (cl *Client) DropTable(ctx context.Context, db, name string) error {
	args := struct {
		DB         string `thrift:"1"`
		Name       string `thrift:"2"`
		DeleteData bool   `thrift:"3"`
	}{DB: db, Name: name}
	return cl.c.call(ctx, "drop_table", &args, nil, NoSuchObjectException, MetaException)
}

// Lock asks for the locks of req.
func (cl *Client) Lock(ctx context.Context, req *LockRequest) (*LockResponse, error) {
	args := struct {
		Req *LockRequest `thrift:"1"`
	}{req}
	var res LockResponse
	if err := cl.c.call(ctx, "lock", &args, &res, NoSuchTxnException, TxnAbortedException); err != nil {
		return nil, err
	}
	return &res, nil
}

// CheckLock returns the state of the lock id.
func (cl *Client) CheckLock(ctx context.Context, id int64) (*LockResponse, error) {
	args := struct {
		Req *lockID `thrift:"1"`
	}{&lockID{id}}
	var res LockResponse
	if err := cl.c.call(ctx, "check_lock", &args, &res, NoSuchTxnException, TxnAbortedException, NoSuchLockException); err != nil {
		return nil, err
	}
	return &res, nil
}

// Unlock releases the lock id.
func (cl *Client) Unlock(ctx context.Context, id int64) error {
	args := struct {
		Req *lockID `thrift:"1"`
	}{&lockID{id}}
	return cl.c.call(ctx, "unlock", &args, nil, NoSuchLockException, TxnOpenException)
}
