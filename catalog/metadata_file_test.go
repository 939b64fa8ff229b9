package catalog

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/iceflight/iceflight/fileio"
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
		{"hint holding a vN file name",
			map[string]string{"v1.metadata.json": "", "v2.metadata.json": "", "v3.metadata.json": "", "version-hint.text": "v2.metadata.json\n"}, "v3.metadata.json"},
		{"hint holding a vN file name of the newest version",
			map[string]string{"v1.metadata.json": "", "v3.metadata.json": "", "version-hint.text": "v3.metadata.json"}, "v3.metadata.json"},
		{"hint holding a path keeps to the metadata folder",
			map[string]string{"v1.metadata.json": "", "v2.metadata.json": "", "version-hint.text": "/elsewhere/metadata/v2.metadata.json"}, "v2.metadata.json"},
		{"hint holding a uuid file name: the newest by listing",
			map[string]string{"00002-a.metadata.json": "", "00003-b.metadata.json": "", "00004-c.metadata.json": "", "version-hint.text": "00003-b.metadata.json"}, "00004-c.metadata.json"},
		{"metadata named by time, no hint",
			map[string]string{"v1749025517.metadata.json": "", "v1749025600.metadata.json": "", "v1749024000.metadata.json": ""}, "v1749025600.metadata.json"},
		{"metadata named by time, stale hint: the newest by listing",
			map[string]string{"v1749025517.metadata.json": "", "v1749025600.metadata.json": "", "version-hint.text": "1749025517"}, "v1749025600.metadata.json"},
		{"gzip vN.gz names, no hint",
			map[string]string{"v1.gz.metadata.json": "", "v2.gz.metadata.json": ""}, "v2.gz.metadata.json"},
		{"gzip N-uuid.gz names",
			map[string]string{"00001-a.gz.metadata.json": "", "00002-b.gz.metadata.json": ""}, "00002-b.gz.metadata.json"},
		{"other files are ignored",
			map[string]string{"v1.metadata.json": "", "snap-1-1-x.avro": "", "v9.metadata.json.tmp": "", "x-m0.avro": ""}, "v1.metadata.json"},
	}
	for _, tc := range cases {
		for name, at := range trees {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				tr, dir := at(t, tc.files)
				got, err := currentMetadata(context.Background(), tr, dir)
				if err != nil || got != tc.want {
					t.Errorf("currentMetadata = %q, %v; want %q", got, err, tc.want)
				}
			})
		}
	}
}

// trees lay out a metadata folder of files (name → content) on a local
// disk and on an object store, and return the tree and the folder.
var trees = map[string]func(t *testing.T, files map[string]string) (tree, string){
	"local": func(t *testing.T, files map[string]string) (tree, string) {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, root, files)
		return &localTree{root: root, fio: fileio.NewLocal()}, root
	},
	"object store": func(t *testing.T, files map[string]string) (tree, string) {
		mem := fileio.NewMem()
		for name, content := range files {
			mem.Put("mem://bucket/wh/t/metadata/"+name, []byte(content))
		}
		return &objectTree{root: "mem://bucket/wh", fio: mem}, "mem://bucket/wh/t/metadata"
	},
}

func TestCurrentMetadataNone(t *testing.T) {
	t.Parallel()
	for name, at := range trees {
		tr, dir := at(t, map[string]string{"version-hint.text": "1"})
		if _, err := currentMetadata(context.Background(), tr, dir); !errors.Is(err, errNoMetadata) {
			t.Errorf("%s: no metadata file: %v, want errNoMetadata", name, err)
		}
	}
}
