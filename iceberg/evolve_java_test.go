package iceberg

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// evolveOp is one change as the javaref evolve command takes it.
type evolveOp struct {
	Kind      string          `json:"kind,omitempty"` // "spec" or schema
	Op        string          `json:"op"`
	Path      string          `json:"path,omitempty"`
	Name      string          `json:"name,omitempty"`
	Type      json.RawMessage `json:"type,omitempty"`
	Required  bool            `json:"required,omitempty"`
	Doc       string          `json:"doc,omitempty"`
	Ref       string          `json:"ref,omitempty"`
	Fields    []string        `json:"fields,omitempty"`
	Source    string          `json:"source,omitempty"`
	Transform string          `json:"transform,omitempty"`
	NewName   string          `json:"new_name,omitempty"`
}

// applyOurs applies ops with SchemaUpdate then SpecUpdate.
func applyOurs(md *TableMetadata, ops []evolveOp) (*Schema, int, PartitionSpec, int, error) {
	su := NewSchemaUpdate(md)
	var err error
	for _, o := range ops {
		if o.Kind == "spec" {
			continue
		}
		var typ Type
		if len(o.Type) > 0 {
			if typ, err = ParseTypeJSON(o.Type); err != nil {
				return nil, 0, PartitionSpec{}, 0, err
			}
		}
		switch o.Op {
		case "add_column":
			err = su.AddColumn(o.Path, typ, o.Required, o.Doc, nil)
		case "drop_column":
			err = su.DropColumn(o.Path)
		case "rename_column":
			err = su.RenameColumn(o.Path, o.Name)
		case "update_type":
			err = su.UpdateType(o.Path, typ)
		case "make_optional":
			err = su.MakeOptional(o.Path)
		case "make_required":
			err = su.MakeRequired(o.Path)
		case "update_doc":
			err = su.UpdateDoc(o.Path, o.Doc)
		case "move_first":
			err = su.MoveFirst(o.Path)
		case "move_before":
			err = su.MoveBefore(o.Path, o.Ref)
		case "move_after":
			err = su.MoveAfter(o.Path, o.Ref)
		case "set_identifier_fields":
			err = su.SetIdentifierFields(o.Fields...)
		}
		if err != nil {
			return nil, 0, PartitionSpec{}, 0, err
		}
	}
	schema, lastCol, _, err := su.Apply()
	if err != nil {
		return nil, 0, PartitionSpec{}, 0, err
	}
	spec, _ := md.SpecByID(md.DefaultSpecID)
	lastPart := md.LastPartitionID
	view := *md
	view.Schemas = append([]*Schema{schema}, md.Schemas...)
	view.CurrentSchemaID = schema.ID
	pu := NewSpecUpdate(&view, schema)
	specChanged := false
	for _, o := range ops {
		if o.Kind != "spec" {
			continue
		}
		specChanged = true
		switch o.Op {
		case "add_field":
			err = pu.AddField(o.Source, o.Transform, o.Name)
		case "remove_field":
			if o.Name != "" {
				err = pu.RemoveField(o.Name)
			} else {
				err = pu.RemoveFieldByTransform(o.Source, o.Transform)
			}
		case "rename_field":
			err = pu.RenameField(o.Name, o.NewName)
		}
		if err != nil {
			return nil, 0, PartitionSpec{}, 0, err
		}
	}
	if specChanged {
		if spec, lastPart, _, err = pu.Apply(); err != nil {
			return nil, 0, PartitionSpec{}, 0, err
		}
	}
	return schema, lastCol, spec, lastPart, nil
}

// The evolution builders against Iceberg Java's SchemaUpdate and
// BaseUpdatePartitionSpec (tools/javaref evolve): the same changes give
// the same schema (ids, names, types, nullability, docs, order,
// identifier fields), last-column-id, spec (field ids, names, transforms)
// and last-partition-id, or both refuse.
func TestEvolutionAgreesWithIcebergJava(t *testing.T) {
	t.Parallel()
	jar := os.Getenv("JAVAREF_JAR")
	if jar == "" {
		t.Skip("JAVAREF_JAR is not set: no Iceberg Java check")
	}
	str := json.RawMessage(`"string"`)
	tests := []struct {
		name string
		v    int
		ops  []evolveOp
	}{
		{"add top-level", 2, []evolveOp{{Op: "add_column", Path: "extra", Type: str, Doc: "d"}}},
		{"add nested struct with a list", 2, []evolveOp{{Op: "add_column", Path: "s", Type: json.RawMessage(`{"type":"struct","fields":[{"id":1,"name":"a","required":true,"type":"int"},{"id":2,"name":"b","required":false,"type":{"type":"list","element-id":3,"element-required":false,"element":"long"}},{"id":4,"name":"m","required":false,"type":{"type":"map","key-id":5,"key":"string","value-id":6,"value-required":true,"value":{"type":"struct","fields":[{"id":7,"name":"q","required":false,"type":"int"}]}}}]}`)}}},
		{"add into struct and list element", 2, []evolveOp{{Op: "add_column", Path: "loc.alt", Type: json.RawMessage(`"double"`)}, {Op: "add_column", Path: "points.z", Type: json.RawMessage(`"int"`)}}},
		{"add required without default", 2, []evolveOp{{Op: "add_column", Path: "r", Type: str, Required: true}}},
		{"add existing", 2, []evolveOp{{Op: "add_column", Path: "data", Type: str}}},
		{"drop nested and top-level", 2, []evolveOp{{Op: "drop_column", Path: "loc.lat"}, {Op: "drop_column", Path: "props"}}},
		{"drop identifier", 2, []evolveOp{{Op: "drop_column", Path: "id"}}},
		{"drop partition source", 2, []evolveOp{{Op: "drop_column", Path: "ts"}}},
		{"rename nested", 2, []evolveOp{{Op: "rename_column", Path: "loc.lat", Name: "latitude"}}},
		{"rename onto existing", 2, []evolveOp{{Op: "rename_column", Path: "data", Name: "n"}}},
		{"promotions", 2, []evolveOp{{Op: "update_type", Path: "n", Type: json.RawMessage(`"long"`)}, {Op: "update_type", Path: "loc.lon", Type: json.RawMessage(`"double"`)}, {Op: "update_type", Path: "amount", Type: json.RawMessage(`"decimal(12, 2)"`)}, {Op: "update_type", Path: "points.x", Type: json.RawMessage(`"long"`)}}},
		{"narrowing", 2, []evolveOp{{Op: "update_type", Path: "id", Type: json.RawMessage(`"int"`)}}},
		{"decimal scale", 2, []evolveOp{{Op: "update_type", Path: "amount", Type: json.RawMessage(`"decimal(12, 3)"`)}}},
		{"date to timestamp in v2", 2, []evolveOp{{Op: "update_type", Path: "d", Type: json.RawMessage(`"timestamp"`)}}},
		{"make optional and doc", 2, []evolveOp{{Op: "make_optional", Path: "points.x"}, {Op: "update_doc", Path: "data", Doc: "payload"}}},
		{"make required", 2, []evolveOp{{Op: "make_required", Path: "data"}}},
		{"move first", 2, []evolveOp{{Op: "move_first", Path: "n"}}},
		{"move before", 2, []evolveOp{{Op: "move_before", Path: "amount", Ref: "data"}}},
		{"move after last", 2, []evolveOp{{Op: "move_after", Path: "id", Ref: "n"}}},
		{"move nested", 2, []evolveOp{{Op: "move_before", Path: "loc.lon", Ref: "loc.lat"}}},
		{"move across structs", 2, []evolveOp{{Op: "move_after", Path: "loc.lat", Ref: "id"}}},
		{"identifier fields", 2, []evolveOp{{Op: "set_identifier_fields", Fields: []string{"id", "points"}}}},
		{"identifier optional", 2, []evolveOp{{Op: "set_identifier_fields", Fields: []string{"data"}}}},
		{"identifier float", 2, []evolveOp{{Op: "set_identifier_fields", Fields: []string{"loc.lat"}}}},
		{"identifier cleared then dropped", 2, []evolveOp{{Op: "set_identifier_fields", Fields: []string{}}, {Op: "drop_column", Path: "id"}}},
		{"spec: bucket, truncate, identity", 2, []evolveOp{{Kind: "spec", Op: "add_field", Source: "id", Transform: "bucket[16]"}, {Kind: "spec", Op: "add_field", Source: "data", Transform: "truncate[4]"}, {Kind: "spec", Op: "add_field", Source: "n"}}},
		{"spec: named field", 2, []evolveOp{{Kind: "spec", Op: "add_field", Source: "id", Transform: "bucket[8]", Name: "shard"}}},
		{"spec: duplicate", 2, []evolveOp{{Kind: "spec", Op: "add_field", Source: "ts", Transform: "day"}}},
		{"spec: redundant time", 2, []evolveOp{{Kind: "spec", Op: "add_field", Source: "ts", Transform: "hour"}}},
		{"spec: remove v2", 2, []evolveOp{{Kind: "spec", Op: "remove_field", Name: "ts_day"}}},
		{"spec: remove v1", 1, []evolveOp{{Kind: "spec", Op: "remove_field", Source: "ts", Transform: "day"}}},
		{"spec: remove and add back", 2, []evolveOp{{Kind: "spec", Op: "remove_field", Name: "ts_day"}, {Kind: "spec", Op: "add_field", Source: "ts", Transform: "day"}}},
		{"spec: replace day by hour", 2, []evolveOp{{Kind: "spec", Op: "remove_field", Name: "ts_day"}, {Kind: "spec", Op: "add_field", Source: "ts", Transform: "hour"}}},
		{"spec: rename", 2, []evolveOp{{Kind: "spec", Op: "rename_field", Name: "ts_day", NewName: "day"}}},
		{"spec: shadowing a column", 2, []evolveOp{{Kind: "spec", Op: "add_field", Source: "id", Transform: "bucket[2]", Name: "data"}}},
		{"spec: on a column added in the same change", 2, []evolveOp{{Op: "add_column", Path: "region", Type: str}, {Kind: "spec", Op: "add_field", Source: "region"}}},
		{"spec v1: add after remove", 1, []evolveOp{{Kind: "spec", Op: "add_field", Source: "id", Transform: "bucket[4]"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			md := evolveBase(tc.v)
			md.TableUUID = "f0000000-0000-4000-8000-000000000001"
			md.Location = "/tmp/evolve"
			md.LastUpdatedMs = 1
			md.Properties = map[string]string{}
			schema, lastCol, spec, lastPart, ourErr := applyOurs(md, tc.ops)

			dir := t.TempDir()
			b, err := json.Marshal(md)
			if err != nil {
				t.Fatal(err)
			}
			mdFile, opsFile, outFile := filepath.Join(dir, "v1.metadata.json"), filepath.Join(dir, "ops.json"), filepath.Join(dir, "out.json")
			ops, _ := json.Marshal(tc.ops)
			if err := os.WriteFile(mdFile, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(opsFile, ops, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("java", "-cp", jar, "io.iceflight.javaref.Main", "evolve", "--metadata", mdFile, "--ops", opsFile, "--out", outFile)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("javaref evolve: %v\n%s", err, out)
			}
			raw, err := os.ReadFile(outFile)
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				Metadata json.RawMessage `json:"metadata"`
				Error    string          `json:"error"`
			}
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatal(err)
			}
			if res.Error != "" || ourErr != nil {
				if res.Error == "" || ourErr == nil {
					t.Fatalf("Java: %q; ours: %v", res.Error, ourErr)
				}
				return
			}
			jmd, err := ParseMetadata(res.Metadata)
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.Marshal(jmd.CurrentSchema())
			ours, _ := json.Marshal(schema)
			if string(js) != string(ours) || jmd.LastColumnID != lastCol {
				t.Errorf("schema:\nJava %s (last %d)\nours %s (last %d)", js, jmd.LastColumnID, ours, lastCol)
			}
			jspec, _ := jmd.SpecByID(jmd.DefaultSpecID)
			jsb, _ := json.Marshal(append([]PartitionField{}, jspec.Fields...))
			osb, _ := json.Marshal(append([]PartitionField{}, spec.Fields...))
			if string(jsb) != string(osb) || jmd.LastPartitionID != lastPart {
				t.Errorf("spec:\nJava %s (last %d, id %d)\nours %s (last %d, id %d)", jsb, jmd.LastPartitionID, jmd.DefaultSpecID, osb, lastPart, spec.ID)
			}
			if strings.Contains(tc.name, "spec") && jmd.DefaultSpecID != spec.ID && len(spec.Fields) > 0 {
				t.Errorf("spec id: Java %d, ours %d", jmd.DefaultSpecID, spec.ID)
			}
		})
	}
}
