package hms

import (
	"bytes"
	"context"
	"encoding/hex"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/iceflight/iceflight/internal/thriftval"
	"github.com/iceflight/iceflight/testkit/servers"
)

// encode writes v with the binary protocol, as the metastore speaks it.
func encode(t *testing.T, v any) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{})
	if err := writeStruct(context.Background(), p, v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decode reads b into v with the binary protocol.
func decode(b []byte, v any) error {
	buf := thrift.NewTMemoryBuffer()
	buf.Write(b)
	return readStruct(context.Background(), thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{MaxMessageSize: 1 << 20}), v)
}

func sampleTable() *Table {
	return &Table{
		TableName: "orders", DBName: "sales", Owner: "iceflight", CreateTime: 1700000000, Retention: 1<<31 - 1,
		SD: &StorageDescriptor{
			Cols:     []FieldSchema{{Name: "id", Type: "bigint", Comment: "key"}, {Name: "m", Type: "map<string,array<int>>"}},
			Location: "s3://b/sales.db/orders", InputFormat: "in", OutputFormat: "out", NumBuckets: -1,
			SerDeInfo:  &SerDeInfo{SerializationLib: "serde", Parameters: map[string]string{}},
			BucketCols: []string{},
		},
		PartitionKeys: []FieldSchema{},
		Parameters:    map[string]string{"table_type": "ICEBERG", "metadata_location": "s3://b/m.json", "empty": ""},
		TableType:     "EXTERNAL_TABLE",
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	unknown := Unknown{
		{ID: 14, Val: thriftval.Value{Type: thrift.BOOL, Scalar: true}},
		{ID: 17, Val: thriftval.Value{Type: thrift.STRING, Scalar: []byte("hive")}},
		{ID: 19, Val: thriftval.Value{Type: thrift.I64, Scalar: int64(-1)}},
		{ID: 13, Val: thriftval.Value{Type: thrift.STRUCT, Fields: []thriftval.Field{{ID: 1, Val: thriftval.Value{
			Type: thrift.MAP, Elem: thrift.STRING, MapVal: thrift.LIST, Items: []thriftval.Value{
				{Type: thrift.STRING, Scalar: []byte("alice")},
				{Type: thrift.LIST, Elem: thrift.I32, Items: []thriftval.Value{{Type: thrift.I32, Scalar: int32(7)}}},
			}}}}}},
	}
	for _, tc := range []struct {
		name string
		in   any
		out  any
	}{
		{"a table with every declared field", sampleTable(), &Table{}},
		{"a table with fields the client does not declare", func() *Table { t := sampleTable(); t.Unknown = unknown; return t }(), &Table{}},
		{"a database with an owner", &Database{Name: "d", LocationURI: "file:/x", Parameters: map[string]string{"a": "b"}, OwnerName: "o", OwnerType: PrincipalRole}, &Database{}},
		{"a lock request", &LockRequest{Components: []LockComponent{{Type: LockExclusive, Level: LockLevelTable, DBName: "d", TableName: "t"}}, User: "u", Hostname: "h"}, &LockRequest{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := encode(t, tc.in)
			if err := decode(b, tc.out); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tc.in, tc.out) {
				t.Fatalf("read back\n%+v\nwrote\n%+v", tc.out, tc.in)
			}
			if again := encode(t, tc.out); !bytes.Equal(again, b) {
				t.Fatalf("written again as other bytes:\n%x\n%x", again, b)
			}
		})
	}
}

// tableV9 is a Table as a metastore release with more fields has it.
type tableV9 struct {
	TableName string            `thrift:"1"`
	Params    map[string]string `thrift:"9"`
	Temporary bool              `thrift:"14"`
	CatName   string            `thrift:"17"`
	WriteID   int64             `thrift:"19"`
	Required  []string          `thrift:"23"`
	SD        *struct {
		Location   string `thrift:"2"`
		StoredAsSD bool   `thrift:"12"`
	} `thrift:"7"`
}

// A table read from a newer metastore and written back keeps the fields
// this client does not know, at every level.
func TestUnknownFieldsSurvive(t *testing.T) {
	t.Parallel()
	newer := &tableV9{TableName: "t", Params: map[string]string{"k": "v"}, Temporary: true, CatName: "hive", WriteID: 42,
		Required: []string{"a", "b"}}
	newer.SD = &struct {
		Location   string `thrift:"2"`
		StoredAsSD bool   `thrift:"12"`
	}{"file:/t", true}
	var tbl Table
	if err := decode(encode(t, newer), &tbl); err != nil {
		t.Fatal(err)
	}
	if tbl.TableName != "t" || tbl.Parameters["k"] != "v" || tbl.SD == nil || tbl.SD.Location != "file:/t" || len(tbl.Unknown) != 4 || len(tbl.SD.Unknown) != 1 {
		t.Fatalf("read %+v (sd %+v)", tbl, tbl.SD)
	}
	tbl.Parameters["k"] = "changed"
	var back tableV9
	if err := decode(encode(t, &tbl), &back); err != nil {
		t.Fatal(err)
	}
	newer.Params["k"] = "changed"
	if !reflect.DeepEqual(&back, newer) {
		t.Fatalf("written back as %+v, want %+v", back, newer)
	}
}

func TestHostileBytes(t *testing.T) {
	t.Parallel()
	good := encode(t, sampleTable())
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"truncated", good[:len(good)/2]},
		{"empty", nil},
		// A list field claiming two billion columns, then nothing.
		{"a list longer than the message", append(append([]byte{0x0c, 0x00, 0x07}, 0x0f, 0x00, 0x01, 0x0c), 0x7f, 0xff, 0xff, 0xff)},
		{"a field of a declared id with another type", []byte{0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var tbl Table
			err := decode(tc.b, &tbl)
			if tc.name == "a field of a declared id with another type" {
				// Kept as an unknown field, not forced into the Go field.
				if err != nil || tbl.TableName != "" || len(tbl.Unknown) != 1 {
					t.Fatalf("%v, %+v", err, tbl)
				}
				return
			}
			if err == nil {
				t.Fatalf("decoded %+v", tbl)
			}
		})
	}
}

// The metastore's own generated code (PyIceberg's vendored
// hive_metastore, generated from hive_metastore.thrift) writes a table
// with fields this client does not declare; the codec reads it, changes
// one parameter and writes it back, and the generated code reads an equal
// table but for that parameter.
func TestAgainstGeneratedCode(t *testing.T) {
	t.Parallel()
	python := servers.Program(t, "PYICEBERG_PYTHON", "servers-sql")
	const script = `import sys
from thrift.TSerialization import serialize, deserialize
from thrift.protocol.TBinaryProtocol import TBinaryProtocolFactory
from hive_metastore.ttypes import Table, StorageDescriptor, SerDeInfo, FieldSchema, PrincipalPrivilegeSet, PrivilegeGrantInfo, SkewedInfo, Order
f = TBinaryProtocolFactory()
t = Table(tableName="orders", dbName="sales", owner="o", createTime=1, lastAccessTime=2, retention=3,
    sd=StorageDescriptor(cols=[FieldSchema("id", "bigint", "c")], location="file:/w", inputFormat="i", outputFormat="o",
        compressed=False, numBuckets=-1, serdeInfo=SerDeInfo(name="n", serializationLib="s", parameters={"a": "b"}, serdeType=1),
        bucketCols=[], sortCols=[Order("id", 1)], parameters={}, skewedInfo=SkewedInfo([], [], {}), storedAsSubDirectories=False),
    partitionKeys=[FieldSchema("p", "int", None)], parameters={"metadata_location": "m1", "x": "y"}, tableType="EXTERNAL_TABLE",
    privileges=PrincipalPrivilegeSet(userPrivileges={"u": [PrivilegeGrantInfo("SELECT", 5, "g", 1, True)]}),
    temporary=False, rewriteEnabled=True, catName="hive", ownerType=1, writeId=7, isStatsCompliant=True, accessType=8,
    requiredReadCapabilities=["r"], id=99, txnId=3)
if sys.argv[1] == "write":
    print(serialize(t, f).hex())
else:
    back = deserialize(Table(), bytes.fromhex(sys.stdin.read().strip()), f)
    t.parameters["metadata_location"] = "m2"
    print("equal" if back == t else "differ:\n%r\n%r" % (back, t))
`
	out, err := exec.Command(python, "-c", script, "write").Output()
	if err != nil {
		servers.Missing(t, "PyIceberg's python cannot run the generated code (pip install 'pyiceberg[hive]'): "+err.Error())
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	var tbl Table
	if err := decode(b, &tbl); err != nil {
		t.Fatal(err)
	}
	if tbl.TableName != "orders" || tbl.Retention != 3 || tbl.SD.Cols[0].Comment != "c" || tbl.SD.NumBuckets != -1 ||
		tbl.SD.SerDeInfo.Parameters["a"] != "b" || tbl.PartitionKeys[0].Name != "p" || tbl.Parameters["metadata_location"] != "m1" {
		t.Fatalf("read %+v", tbl)
	}
	tbl.Parameters["metadata_location"] = "m2"
	cmd := exec.Command(python, "-c", script, "read")
	cmd.Stdin = strings.NewReader(hex.EncodeToString(encode(t, &tbl)))
	out, err = cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "equal" {
		t.Fatalf("the generated code reads back: %v\n%s", err, out)
	}
}
