package catalog

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCurrentMetadata(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		files map[string]string // name → content ("" for a metadata file)
		want  string
	}{
		{"hint names the newest version",
			map[string]string{"v1.metadata.json": "", "v2.metadata.json": "", "version-hint.text": "2"}, "v2.metadata.json"},
		{"hint is trimmed",
			map[string]string{"v1.metadata.json": "", "v2.metadata.json": "", "version-hint.text": " 2\n"}, "v2.metadata.json"},
		{"stale hint walks forward to the newest version",
			map[string]string{"v1.metadata.json": "", "v2.metadata.json": "", "v3.metadata.json": "", "version-hint.text": "1"}, "v3.metadata.json"},
		{"hint walk stops at the first gap, as HadoopTableOperations",
			map[string]string{"v1.metadata.json": "", "v2.metadata.json": "", "v10.metadata.json": "", "version-hint.text": "1"}, "v2.metadata.json"},
		{"version-hint.txt is read too",
			map[string]string{"v1.metadata.json": "", "v2.metadata.json": "", "version-hint.txt": "1"}, "v2.metadata.json"},
		{"version-hint.text wins over version-hint.txt",
			map[string]string{"v1.metadata.json": "", "v5.metadata.json": "", "version-hint.text": "1", "version-hint.txt": "5"}, "v1.metadata.json"},
		{"hint to a gzip spelling",
			map[string]string{"v1.metadata.json": "", "v2.gz.metadata.json": "", "version-hint.text": "1"}, "v2.gz.metadata.json"},
		{"hint to a .json.gz spelling",
			map[string]string{"v3.metadata.json.gz": "", "version-hint.text": "3"}, "v3.metadata.json.gz"},
		{"no hint: highest version as a number",
			map[string]string{"v1.metadata.json": "", "v2.metadata.json": "", "v10.metadata.json": ""}, "v10.metadata.json"},
		{"empty hint falls back to listing",
			map[string]string{"v1.metadata.json": "", "v3.metadata.json": "", "version-hint.text": ""}, "v3.metadata.json"},
		{"unparsable hint falls back to listing",
			map[string]string{"v1.metadata.json": "", "v3.metadata.json": "", "version-hint.text": "three"}, "v3.metadata.json"},
		{"negative hint falls back to listing",
			map[string]string{"v1.metadata.json": "", "version-hint.text": "-1"}, "v1.metadata.json"},
		{"hint to a missing version falls back to listing",
			map[string]string{"v1.metadata.json": "", "v2.metadata.json": "", "version-hint.text": "7"}, "v2.metadata.json"},
		{"uuid names by number, not by text",
			map[string]string{"00001-aaaa.metadata.json": "", "00009-ffff.metadata.json": "", "00010-bbbb.metadata.json": ""}, "00010-bbbb.metadata.json"},
		{"uuid names with different zero padding",
			map[string]string{"9-ffff.metadata.json": "", "00010-bbbb.metadata.json": ""}, "00010-bbbb.metadata.json"},
		{"uuid names compressed",
			map[string]string{"00001-a.metadata.json": "", "00002-b.gz.metadata.json": "", "00003-c.metadata.json.gz": ""}, "00003-c.metadata.json.gz"},
		{"equal versions fall to the greatest name",
			map[string]string{"00002-a.metadata.json": "", "00002-b.metadata.json": ""}, "00002-b.metadata.json"},
		{"other files are ignored",
			map[string]string{"v1.metadata.json": "", "snap-1-1-x.avro": "", "v9.metadata.json.tmp": "", "x-m0.avro": ""}, "v1.metadata.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			within := func(p string) (string, bool) { return p, true }
			got, err := currentMetadata(dir, within)
			if err != nil || got != tc.want {
				t.Errorf("currentMetadata = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestCurrentMetadataNone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "version-hint.text"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := currentMetadata(dir, func(p string) (string, bool) { return p, true }); err == nil {
		t.Fatal("no metadata file: want an error")
	}
}
