package hms_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog/hive/hms"
	hmsserver "github.com/iceflight/iceflight/testkit/servers/hms"
)

// newPool returns a pool on a metastore started for t.
func newPool(t *testing.T) (*hms.Pool, *hmsserver.Server) {
	t.Helper()
	srv := hmsserver.Start(t)
	t.Logf("metastore started in %v", srv.StartUp)
	p := hms.NewPool(hms.Config{Addrs: []string{strings.TrimPrefix(srv.URI, "thrift://")}})
	t.Cleanup(func() { p.Close() })
	return p, srv
}

// TestCallsOnMetastore makes every call of the client on a real metastore
// and checks what it reads back: the codec's structs as the metastore
// itself decodes and encodes them.
func TestCallsOnMetastore(t *testing.T) {
	t.Parallel()
	p, srv := newPool(t)
	ctx := context.Background()
	do := func(fn func(*hms.Client) error) error { return p.Do(ctx, fn) }
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	db := &hms.Database{Name: "calls", Description: "a comment", LocationURI: "file:" + srv.Dir + "/calls.db",
		Parameters: map[string]string{"owner": "x", "empty": ""}, OwnerName: "iceflight", OwnerType: hms.PrincipalUser}
	must("create database", do(func(c *hms.Client) error { return c.CreateDatabase(ctx, db) }))
	err := do(func(c *hms.Client) error { return c.CreateDatabase(ctx, db) })
	if !hms.IsException(err, hms.AlreadyExistsException) {
		t.Fatalf("create the database again: %v", err)
	}
	var got *hms.Database
	must("get database", do(func(c *hms.Client) (err error) { got, err = c.GetDatabase(ctx, "calls"); return err }))
	if got.Name != "calls" || got.Description != "a comment" || got.LocationURI != db.LocationURI ||
		got.Parameters["owner"] != "x" || got.OwnerName != "iceflight" || got.OwnerType != hms.PrincipalUser {
		t.Fatalf("database read back: %+v", got)
	}
	// Fields this client does not declare (catalog name, create time ...)
	// come back as Unknown and are sent again with the change.
	if len(got.Unknown) == 0 {
		t.Fatalf("database read back without the fields the client does not declare: %+v", got)
	}
	got.Parameters["added"] = "1"
	must("alter database", do(func(c *hms.Client) error { return c.AlterDatabase(ctx, "calls", got) }))
	var dbs []string
	must("list databases", do(func(c *hms.Client) (err error) { dbs, err = c.GetAllDatabases(ctx); return err }))
	if !slices.Contains(dbs, "calls") || !slices.Contains(dbs, "default") {
		t.Fatalf("databases: %v", dbs)
	}

	tbl := &hms.Table{TableName: "t", DBName: "calls", Owner: "iceflight", CreateTime: int32(time.Now().Unix()),
		Retention: 1<<31 - 1, TableType: "EXTERNAL_TABLE", PartitionKeys: []hms.FieldSchema{},
		Parameters: map[string]string{"EXTERNAL": "TRUE", "table_type": "ICEBERG", "metadata_location": "a"},
		SD: &hms.StorageDescriptor{
			Cols:     []hms.FieldSchema{{Name: "id", Type: "bigint", Comment: "the key"}, {Name: "s", Type: "struct<a:int,b:array<string>>"}},
			Location: "file:" + srv.Dir + "/calls.db/t", InputFormat: "org.apache.hadoop.mapred.FileInputFormat",
			OutputFormat: "org.apache.hadoop.mapred.FileOutputFormat",
			SerDeInfo:    &hms.SerDeInfo{SerializationLib: "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", Parameters: map[string]string{}},
		}}
	must("create table", do(func(c *hms.Client) error { return c.CreateTable(ctx, tbl) }))
	var read *hms.Table
	must("get table", do(func(c *hms.Client) (err error) { read, err = c.GetTable(ctx, "calls", "t"); return err }))
	if read.TableName != "t" || read.DBName != "calls" || read.TableType != "EXTERNAL_TABLE" || read.Parameters["metadata_location"] != "a" ||
		read.SD == nil || len(read.SD.Cols) != 2 || read.SD.Cols[1].Type != "struct<a:int,b:array<string>>" || read.SD.Cols[0].Comment != "the key" ||
		read.SD.SerDeInfo == nil || read.SD.SerDeInfo.SerializationLib != tbl.SD.SerDeInfo.SerializationLib {
		t.Fatalf("table read back: %+v, sd %+v", read, read.SD)
	}
	_, err = getTable(ctx, p, "calls", "nope")
	if !hms.IsException(err, hms.NoSuchObjectException) {
		t.Fatalf("get a table that does not exist: %v", err)
	}

	// An alter with the expected value of metadata_location applies only
	// when the table has it (HIVE-26882, Hive 4).
	read.Parameters["metadata_location"] = "b"
	cas := func(expected string) map[string]string {
		return map[string]string{"expected_parameter_key": "metadata_location", "expected_parameter_value": expected}
	}
	must("alter table", do(func(c *hms.Client) error { return c.AlterTable(ctx, "calls", "t", read, cas("a")) }))
	read.Parameters["metadata_location"] = "c"
	err = do(func(c *hms.Client) error { return c.AlterTable(ctx, "calls", "t", read, cas("a")) })
	var ex *hms.Exception
	if !errors.As(err, &ex) {
		t.Fatalf("alter expecting a value the table no longer has: %v", err)
	}
	if after, err := getTable(ctx, p, "calls", "t"); err != nil || after.Parameters["metadata_location"] != "b" {
		t.Fatalf("after the refused alter: %v, %v", after, err)
	}

	var names []string
	must("list tables", do(func(c *hms.Client) (err error) { names, err = c.GetAllTables(ctx, "calls"); return err }))
	var objs []hms.Table
	must("tables by name", do(func(c *hms.Client) (err error) {
		objs, err = c.GetTables(ctx, "calls", append(names, "nope"))
		return err
	}))
	if !slices.Equal(names, []string{"t"}) || len(objs) != 1 || objs[0].Parameters["metadata_location"] != "b" {
		t.Fatalf("tables %v, objects %+v", names, objs)
	}

	lock := &hms.LockRequest{Components: []hms.LockComponent{{Type: hms.LockExclusive, Level: hms.LockLevelTable, DBName: "calls", TableName: "t"}},
		User: "iceflight", Hostname: "localhost", AgentInfo: "test"}
	var first, second *hms.LockResponse
	must("lock", do(func(c *hms.Client) (err error) { first, err = c.Lock(ctx, lock); return err }))
	must("lock again", do(func(c *hms.Client) (err error) { second, err = c.Lock(ctx, lock); return err }))
	if first.State != hms.LockAcquired || second.State != hms.LockWaiting {
		t.Fatalf("locks: %+v then %+v, want acquired then waiting", first, second)
	}
	must("unlock", do(func(c *hms.Client) error { return c.Unlock(ctx, first.LockID) }))
	var checked *hms.LockResponse
	must("check lock", do(func(c *hms.Client) (err error) { checked, err = c.CheckLock(ctx, second.LockID); return err }))
	if checked.State != hms.LockAcquired {
		t.Fatalf("second lock after the first was released: %+v", checked)
	}
	must("unlock", do(func(c *hms.Client) error { return c.Unlock(ctx, second.LockID) }))
	err = do(func(c *hms.Client) (err error) { _, err = c.CheckLock(ctx, second.LockID); return err })
	if !hms.IsException(err, hms.NoSuchLockException) {
		t.Fatalf("check a released lock: %v", err)
	}

	err = do(func(c *hms.Client) error { return c.DropDatabase(ctx, "calls") })
	if !hms.IsException(err, hms.InvalidOperationException) {
		t.Fatalf("drop a database with a table: %v", err)
	}
	must("drop table", do(func(c *hms.Client) error { return c.DropTable(ctx, "calls", "t") }))
	err = do(func(c *hms.Client) error { return c.DropTable(ctx, "calls", "t") })
	if !hms.IsException(err, hms.NoSuchObjectException) {
		t.Fatalf("drop the table twice: %v", err)
	}
	must("drop database", do(func(c *hms.Client) error { return c.DropDatabase(ctx, "calls") }))
	err = do(func(c *hms.Client) error { return c.DropDatabase(ctx, "calls") })
	if !hms.IsException(err, hms.NoSuchObjectException) {
		t.Fatalf("drop the database twice: %v", err)
	}
}

func getTable(ctx context.Context, p *hms.Pool, db, name string) (*hms.Table, error) {
	var t *hms.Table
	err := p.Read(ctx, func(c *hms.Client) (err error) { t, err = c.GetTable(ctx, db, name); return err })
	return t, err
}

// A metastore that dies fails calls at once, in transport, and a pool
// whose connections it dropped serves reads again once it is back.
func TestPoolAcrossRestart(t *testing.T) {
	t.Parallel()
	p, srv := newPool(t)
	ctx := context.Background()
	list := func() error {
		return p.Read(ctx, func(c *hms.Client) error { _, err := c.GetAllDatabases(ctx); return err })
	}
	if err := list(); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	begin := time.Now()
	err := list()
	var ce *hms.ConnError
	if !errors.As(err, &ce) || time.Since(begin) > 5*time.Second {
		t.Fatalf("a call to a killed metastore: %v after %v, want a connection error at once", err, time.Since(begin))
	}
	err = p.Do(ctx, func(c *hms.Client) error { return c.CreateDatabase(ctx, &hms.Database{Name: "x"}) })
	if !errors.As(err, &ce) || ce.Sent {
		t.Fatalf("a change with no metastore: %v, want a connection error, not sent", err)
	}
	srv.Restart(t)
	if err := list(); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
}
