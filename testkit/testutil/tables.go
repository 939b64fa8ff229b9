package testutil

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
)

// CopyTree copies the folder src, with everything below it, to dst, which
// must hold none of its files yet: tests that build hostile tables start
// from a copy of a sample table.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// RewriteAvroPrefix returns the Avro container file data with the string
// field of every record that starts with old starting with new instead,
// keeping the file's schema, codec and metadata: it turns a sample
// manifest list or manifest into one that names other files. A dotted
// field names a field of a nested record ("data_file.file_path").
func RewriteAvroPrefix(t testing.TB, data []byte, field, old, new string) []byte {
	t.Helper()
	r, err := goavro.NewOCFReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string][]byte{}
	for k, v := range r.MetaData() {
		if k != "avro.schema" && k != "avro.codec" { // the writer sets these
			meta[k] = v
		}
	}
	var out bytes.Buffer
	w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &out, Codec: r.Codec(), CompressionName: r.CompressionName(), MetaData: meta})
	if err != nil {
		t.Fatal(err)
	}
	for r.Scan() {
		rec, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		m, ok := rec.(map[string]any)
		if !ok {
			t.Fatalf("Avro record is %T, want a record", rec)
		}
		parent, name := m, field
		for {
			head, rest, nested := strings.Cut(name, ".")
			if !nested {
				break
			}
			if parent, ok = parent[head].(map[string]any); !ok {
				t.Fatalf("Avro field %s is not a record", head)
			}
			name = rest
		}
		if s, ok := parent[name].(string); ok && strings.HasPrefix(s, old) {
			parent[name] = new + s[len(old):]
		}
		if err := w.Append([]any{m}); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}
