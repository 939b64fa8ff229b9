package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/iceberg"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// A schema and a name mapping cross the ticket codec unchanged: every
// field id, name, type (nested ones too), requiredness, doc and initial
// default, compared in the spec's JSON form.
func TestTicketSchemaRoundTrip(t *testing.T) {
	t.Parallel()
	const schemaJSON = `{"type":"struct","schema-id":3,"identifier-field-ids":[1],"fields":[
		{"id":1,"name":"id","required":true,"type":"long","doc":"the key"},
		{"id":2,"name":"price","required":false,"type":"decimal(9,2)"},
		{"id":3,"name":"hash","required":false,"type":"fixed[16]"},
		{"id":4,"name":"point","required":false,"type":{"type":"struct","fields":[
			{"id":5,"name":"x","required":true,"type":"double"},
			{"id":6,"name":"tags","required":false,"type":{"type":"list","element-id":7,"element":"string","element-required":false}}]}},
		{"id":8,"name":"attrs","required":false,"type":{"type":"map","key-id":9,"key":"string","value-id":10,"value":{"type":"list","element-id":11,"element":"int","element-required":true},"value-required":true}},
		{"id":12,"name":"added","required":false,"type":"timestamptz","initial-default":"2024-01-01T00:00:00+00:00"},
		{"id":13,"name":"v","required":false,"type":"variant"}]}`
	var schema iceberg.Schema
	if err := json.Unmarshal([]byte(schemaJSON), &schema); err != nil {
		t.Fatal(err)
	}
	wire, err := proto.Marshal(encodeSchema(&schema))
	if err != nil {
		t.Fatal(err)
	}
	var msg iceflightv1.Schema
	if err := proto.Unmarshal(wire, &msg); err != nil {
		t.Fatal(err)
	}
	got, err := decodeSchema(&msg)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, &schema), mustJSON(t, got); a != b {
		t.Fatalf("schema changed crossing the ticket:\n%s\n%s", a, b)
	}
	if f, ok := got.FieldByID(11); !ok || f.Name != "element" {
		t.Fatalf("the decoded schema does not index nested field 11: %v %v", f, ok)
	}

	const mappingJSON = `[{"field-id":1,"names":["id","ID"]},{"names":["unmapped"]},{"field-id":4,"names":["point"],"fields":[{"field-id":5,"names":["x"]}]}]`
	mapping, err := iceberg.ParseNameMapping([]byte(mappingJSON))
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeNameMapping(encodeNameMapping(mapping))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, mapping), mustJSON(t, back); a != b {
		t.Fatalf("name mapping changed crossing the ticket:\n%s\n%s", a, b)
	}
}

// Every schema of the sample warehouse's tables crosses the codec
// unchanged.
func TestTicketSchemaRoundTripSamples(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(warehouse, "*", "*", "metadata", "*.metadata.json"))
	if len(files) == 0 {
		t.Skip("sample warehouse missing")
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var md struct{ Schemas []*iceberg.Schema }
		if err := json.Unmarshal(b, &md); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, s := range md.Schemas {
			got, err := decodeSchema(encodeSchema(s))
			if err != nil {
				t.Fatalf("%s schema %d: %v", file, s.ID, err)
			}
			if a, b := mustJSON(t, s), mustJSON(t, got); a != b {
				t.Fatalf("%s schema %d changed:\n%s\n%s", file, s.ID, a, b)
			}
		}
	}
}

func TestDecodeSchemaRefusesABadType(t *testing.T) {
	t.Parallel()
	for name, typ := range map[string]*iceflightv1.Type{
		"no type":           nil,
		"an unknown name":   {Kind: &iceflightv1.Type_Primitive{Primitive: "long long"}},
		"a list of nothing": {Kind: &iceflightv1.Type_List{List: &iceflightv1.ListType{ElementId: 2}}},
	} {
		s := &iceflightv1.Schema{Fields: []*iceflightv1.Field{{Id: 1, Name: "a", Type: typ}}}
		if _, err := decodeSchema(s); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
