package iceberg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// metadataFiles lists every metadata file of the test data and of the
// shared conformance tables (read-only).
func metadataFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, root := range []string{"testdata", filepath.Join("..", "..", "shared", "conformance")} {
		_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".metadata.json") || strings.HasSuffix(path, ".metadata.json.gz")) {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Fatal("no metadata files found under testdata or ../shared/conformance")
	}
	return files
}

// normalized makes JSON texts kept verbatim (summaries, defaults) compact,
// as encoding/json writes them, so that two parses compare by meaning.
func normalized(t *testing.T, md *TableMetadata) *TableMetadata {
	t.Helper()
	c := md.clone()
	for i := range c.Snapshots {
		if !c.Snapshots[i].Summary.IsZero() {
			c.Snapshots[i].Summary = NewSummary(c.Snapshots[i].Summary.Map())
		}
	}
	for i, s := range c.Schemas {
		b, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		c.Schemas[i] = new(Schema)
		if err := c.Schemas[i].UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		c.Schemas[i].Fields = compactDefaults(c.Schemas[i].Fields)
		c.Schemas[i].index()
	}
	return c
}

func compactDefaults(fields []NestedField) []NestedField {
	for i := range fields {
		for _, raw := range []*json.RawMessage{&fields[i].InitialDefault, &fields[i].WriteDefault} {
			if *raw != nil {
				var buf bytes.Buffer
				_ = json.Compact(&buf, *raw)
				*raw = buf.Bytes()
			}
		}
		switch t := fields[i].Type.(type) {
		case *StructType:
			compactDefaults(t.Fields)
		}
	}
	return fields
}

func TestMarshalMetadataRoundTrip(t *testing.T) {
	t.Parallel()
	for _, path := range metadataFiles(t) {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			md, err := ParseMetadata(data)
			if err != nil {
				t.Skipf("not a readable metadata file: %v", err)
			}
			out, err := json.Marshal(md)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			back, err := ParseMetadata(out)
			if err != nil {
				t.Fatalf("parse what we wrote: %v\n%s", err, out)
			}
			if want, got := normalized(t, md), normalized(t, back); !reflect.DeepEqual(want, got) {
				t.Fatalf("round trip changed the metadata: %s", firstDiff(reflect.ValueOf(want), reflect.ValueOf(got), "md"))
			}
			again, err := json.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, again) {
				t.Fatalf("second write differs:\n%s\n%s", out, again)
			}
			checkJavaKeyOrder(t, md.FormatVersion, out)
		})
	}
}

// javaKeys is the member order of Iceberg Java's TableMetadataParser.toJson
// (the members a version does not write are skipped).
var javaKeys = []string{
	"format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms", "last-column-id",
	"schema", "current-schema-id", "schemas", "partition-spec", "default-spec-id", "partition-specs",
	"last-partition-id", "default-sort-order-id", "sort-orders", "properties", "current-snapshot-id",
	"next-row-id", "refs", "snapshots", "statistics", "partition-statistics", "snapshot-log", "metadata-log",
}

func checkJavaKeyOrder(t *testing.T, version int, out []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for _, k := range javaKeys {
		switch {
		case k == "last-sequence-number" && version == 1,
			(k == "schema" || k == "partition-spec") && version != 1,
			k == "next-row-id" && version < 3:
			continue
		}
		want = append(want, k)
	}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("v%d keys\n got %v\nwant %v", version, keys, want)
	}
}

// firstDiff names the first field where a and b differ.
func firstDiff(a, b reflect.Value, path string) string {
	if a.Type() != b.Type() {
		return path + ": types differ"
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: %v vs %v", path, a, b)
			}
			return ""
		}
		return firstDiff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := firstDiff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v vs nil %v", path, a.IsNil(), b.IsNil())
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			if d := firstDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: map nil %v/%v len %d/%d", path, a.IsNil(), b.IsNil(), a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]: missing", path, k)
			}
			if d := firstDiff(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k)); d != "" {
				return d
			}
		}
		return ""
	}
	if a.CanInterface() && !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s: %v vs %v", path, a, b)
	}
	if !a.CanInterface() && fmt.Sprint(a) != fmt.Sprint(b) {
		return fmt.Sprintf("%s: %v vs %v", path, a, b)
	}
	return ""
}
