package actions

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/wire.json from the Go types")

// descriptionFile describes the wire form for clients in other languages:
// the Python client's tests check their field names against it.
const descriptionFile = "testdata/wire.json"

// calls lists every action and DoPut with its request and result types
// (the zero value of each; a slice or map is a paged answer of its
// elements).
var calls = []struct {
	name            string
	request, result any
}{
	{Snapshots, TableRequest{}, []Snapshot{}},
	{Refs, TableRequest{}, map[string]Ref{}},
	{Refresh, TableRequest{}, RefreshResult{}},
	{CreateTable, CreateTableRequest{}, TableInfo{}},
	{DropTable, DropTableRequest{}, DropResult{}},
	{CreateNamespace, NamespaceRequest{}, NamespaceInfo{}},
	{ListNamespaces, NamespaceRequest{}, []string{}},
	{DropNamespace, NamespaceRequest{}, DropResult{}},
	{Delete, DeleteRequest{}, WriteResult{}},
	{AlterTable, AlterTableRequest{}, TableInfo{}},
	{ExpireSnapshots, ExpireSnapshotsRequest{}, MaintenanceResult{}},
	{RemoveOrphanFiles, RemoveOrphanFilesRequest{}, MaintenanceResult{}},
	{RewriteDataFiles, RewriteDataFilesRequest{}, MaintenanceResult{}},
	{RewriteManifests, RewriteManifestsRequest{}, MaintenanceResult{}},
	{"DoPut", PutCommand{}, WriteResult{}},
}

// embeddedObjects are types a call carries inside a json.RawMessage, which
// reflection cannot follow: create_table's partition_by objects.
var embeddedObjects = []any{PartitionField{}}

type (
	description struct {
		Calls map[string]callDescription `json:"calls"`
		Types map[string]typeDescription `json:"types"`
	}
	callDescription struct {
		Request string `json:"request"`
		Result  string `json:"result"`
	}
	typeDescription struct {
		// Fields are the JSON keys, in the order the Go encoder writes
		// them; Optional those left out when zero (omitempty).
		Fields   []string `json:"fields"`
		Optional []string `json:"optional"`
		// Example is the first of wireCases of the type, which sets every
		// field.
		Example json.RawMessage `json:"example"`
	}
)

// The checked-in description is what the Go types say; a renamed, added
// or removed field fails here until the file is rewritten with -update,
// and then fails the Python client's test until it follows.
func TestWireDescription(t *testing.T) {
	t.Parallel()
	got, err := describe()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(descriptionFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(descriptionFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date: run go test ./proto/actions -run TestWireDescription -update, "+
			"then make the Python client (clients/python) follow; the Go types describe it as\n%s", descriptionFile, got)
	}
}

func describe() ([]byte, error) {
	d := description{Calls: map[string]callDescription{}, Types: map[string]typeDescription{}}
	for _, c := range calls {
		d.Calls[c.name] = callDescription{Request: describeType(d.Types, reflect.TypeOf(c.request)), Result: describeType(d.Types, reflect.TypeOf(c.result))}
	}
	for _, v := range embeddedObjects {
		describeType(d.Types, reflect.TypeOf(v))
	}
	for name, td := range d.Types {
		ex, err := example(name)
		if err != nil {
			return nil, err
		}
		td.Example = ex
		d.Types[name] = td
	}
	b, err := json.MarshalIndent(d, "", "  ")
	return append(b, '\n'), err
}

// describeType adds the struct types of t to types and returns t's name:
// a struct's Go name, []E or map[string]E for a paged answer.
func describeType(types map[string]typeDescription, t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "json" // json.RawMessage: any JSON value
		}
		return "[]" + describeType(types, t.Elem())
	case reflect.Map:
		return "map[string]" + describeType(types, t.Elem())
	case reflect.Pointer:
		return describeType(types, t.Elem())
	case reflect.Struct:
	default:
		return t.Kind().String()
	}
	if _, ok := types[t.Name()]; ok {
		return t.Name()
	}
	td := typeDescription{Fields: []string{}, Optional: []string{}}
	types[t.Name()] = td // before the fields, so that a cycle ends
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		td.Fields = append(td.Fields, name)
		if slices.Contains(strings.Split(opts, ","), "omitempty") {
			td.Optional = append(td.Optional, name)
		}
		describeType(types, f.Type)
	}
	types[t.Name()] = td
	return t.Name()
}

// example is the encoding of the first wire case of the type named name;
// it must hold every field, so that a client can check it reads each.
func example(name string) (json.RawMessage, error) {
	for _, tc := range wireCases {
		if reflect.TypeOf(tc.v).Name() != name {
			continue
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.want), &keys); err != nil {
			return nil, err
		}
		t := reflect.TypeOf(tc.v)
		for i := range t.NumField() {
			key, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if _, ok := keys[key]; !ok {
				return nil, fmt.Errorf("wire case %q, the first of %s, lacks %q: the first case of a type must set every field", tc.name, name, key)
			}
		}
		return json.RawMessage(tc.want), nil
	}
	return nil, fmt.Errorf("no wire case of %s: add one that sets every field", name)
}
