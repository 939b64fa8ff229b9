package catalog

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// A table written from a working directory records a relative location
// and names its files relative to that directory, in any spelling: they
// are read from the folder the table was found in, and a path whose ".."
// climbs out of the location is judged where it lands, so it still cannot
// leave the warehouse or enter a table the caller may not read.
func TestRelativeLocationIsTheTableFolder(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root, outside := filepath.Join(base, "wh"), filepath.Join(base, "outside")
	writeFiles(t, root, map[string]string{
		"a/t/metadata/v1.metadata.json":       metadataJSON("/old/a/t", "a"),
		"a/t/data/rows.parquet":               "A rows",
		"c/t/metadata/v1.metadata.json":       metadataJSON("./warehouse/c/t", "c"),
		"c/t/data/rows.parquet":               "C rows",
		"c/t/_siblings/t_data/rows.parquet":   "C sibling rows",
		"c/t/warehouse/c/t/data/rows.parquet": "decoy",
	})
	writeFiles(t, outside, map[string]string{"passwd": "root:x:0:0"})
	tbl := loadOne(t, root, Identifier{"c", "t"})
	onlyC := tbl.ForCaller(func(id Identifier) bool { return id.Namespace()[0] == "c" })
	ctx := context.Background()
	cases := []struct {
		name, location string
		want           error
		content        string
	}{
		{"as recorded", "./warehouse/c/t/data/rows.parquet", nil, "C rows"},
		{"without ./", "warehouse/c/t/data/rows.parquet", nil, "C rows"},
		{"doubled slashes", "warehouse//c/t//data/rows.parquet", nil, "C rows"},
		{"dot-dot inside", "./warehouse/c/x/../t/data/rows.parquet", nil, "C rows"},
		{"write.data.path beside the table", "warehouse/c/t_data/rows.parquet", nil, "C sibling rows"},
		{"relative to the table folder", "data/rows.parquet", nil, "C rows"},
		{"climbing out of the warehouse", "./warehouse/c/t/../../../../../../outside/passwd", ErrOutsideWarehouse, ""},
		{"climbing into another table", "warehouse/c/t/../../../../../a/t/data/rows.parquet", ErrOtherTable, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := onlyC.IO.Open(ctx, tc.location)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open(%q) = %v, want %v", tc.location, err, tc.want)
			}
			if err != nil {
				return
			}
			defer f.Close()
			buf := make([]byte, f.Size())
			if _, err := f.ReadAt(buf, 0); err != nil {
				t.Fatal(err)
			}
			if string(buf) != tc.content {
				t.Errorf("Open(%q) read %q, want %q", tc.location, buf, tc.content)
			}
		})
	}
	// Files are named to clients by the recorded spelling, never the
	// server's folder.
	for in, want := range map[string]string{
		filepath.Join(tbl.Location, "data", "rows.parquet"):                "./warehouse/c/t/data/rows.parquet",
		filepath.Join(tbl.Location, "_siblings", "t_data", "rows.parquet"): "warehouse/c/t_data/rows.parquet",
	} {
		if got := tbl.Recorded(in); got != want {
			t.Errorf("Recorded(%q) = %q, want %q", in, got, want)
		}
	}
}
