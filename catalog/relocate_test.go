package catalog

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

func TestRelocateMapsTheRecordedLocationToTheMetadataFilesTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, metadataFile, recorded string
		wantFolder                   string // "" for no relocation
	}{
		{"in place", "s3://b/wh/t/metadata/v2.metadata.json", "s3://b/wh/t", ""},
		{"in place, another local spelling", "file:///wh/t/metadata/v1.metadata.json", "/wh/t", ""},
		{"uploaded elsewhere", "s3://lake/elsewhere/t/metadata/v2.metadata.json", "/home/u/wh/t", "s3://lake/elsewhere/t"},
		{"another cluster", "s3://lake/t/metadata/00001-a.metadata.json", "hdfs://nn:8020/wh/t", "s3://lake/t"},
		{"another bucket", "s3://c/wh/t/metadata/v1.metadata.json", "s3://b/wh/t", "s3://c/wh/t"},
		{"sibling prefix is not inside", "s3://b/wh/t2/metadata/v1.metadata.json", "s3://b/wh/t", "s3://b/wh/t2"},
		{"written from a working directory", "/srv/t/metadata/v1.metadata.json", "wh/t", "/srv/t"},
		{"not in a metadata folder", "s3://b/elsewhere/t/v1.metadata.json", "/wh/t", ""},
		{"relative metadata file", "t/metadata/v1.metadata.json", "/wh/t", ""},
		{"metadata folder at the bucket's top", "s3://b/metadata/v1.metadata.json", "/wh/t", "s3://b/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rule, ok := relocation(tt.metadataFile, tt.recorded)
			if tt.wantFolder == "" {
				if ok {
					t.Errorf("relocation = %+v, want none", rule)
				}
				return
			}
			if want := (fileio.Rule{From: tt.recorded, To: tt.wantFolder}); !ok || rule != want {
				t.Errorf("relocation = %+v, %v, want %+v", rule, ok, want)
			}
		})
	}
}

func TestRelocateReadsRecordedFilesBesideTheMetadataFile(t *testing.T) {
	t.Parallel()
	mem := fileio.NewMem()
	mem.Put("mem://lake/elsewhere/t/data/a.parquet", []byte("a"))
	mem.Put("mem://lake/elsewhere/t/data/rel.parquet", []byte("r"))
	tbl := &Table{
		MetadataLocation: "mem://lake/elsewhere/t/metadata/v1.metadata.json",
		Metadata:         &iceberg.TableMetadata{Location: "/home/u/wh/t"},
		IO:               mem,
		Location:         "/home/u/wh/t",
	}
	Relocate(context.Background(), tbl)
	if tbl.Location != "mem://lake/elsewhere/t" {
		t.Errorf("Location = %s, want the metadata file's table folder", tbl.Location)
	}
	ctx := context.Background()
	for loc, want := range map[string]string{"/home/u/wh/t/data/a.parquet": "a", "data/rel.parquet": "r"} {
		f, err := tbl.IO.Open(ctx, loc)
		if err != nil {
			t.Errorf("open %s: %v", loc, err)
			continue
		}
		got, err := io.ReadAll(io.NewSectionReader(f, 0, 1))
		f.Close()
		if err != nil || string(got) != want {
			t.Errorf("read %s = %q, %v; want %q", loc, got, err, want)
		}
	}
	// Clients are shown the recorded location, not the storage's.
	if got := tbl.Recorded("mem://lake/elsewhere/t/data/a.parquet"); got != "/home/u/wh/t/data/a.parquet" {
		t.Errorf("Recorded = %s, want the location the metadata records", got)
	}
	// A location outside the recorded one is not redirected.
	if _, err := tbl.IO.Open(ctx, "/home/u/wh/other/data/a.parquet"); err == nil {
		t.Error("a file outside the recorded location opened; only the recorded location is mapped")
	}
}

func TestRelocateLeavesTablesInPlaceAlone(t *testing.T) {
	t.Parallel()
	mem := fileio.NewMem()
	for _, md := range []*iceberg.TableMetadata{nil, {}, {Location: "mem://b/wh/t"}} {
		tbl := &Table{MetadataLocation: "mem://b/wh/t/metadata/v1.metadata.json", Metadata: md, IO: mem, Location: "mem://b/wh/t"}
		Relocate(context.Background(), tbl)
		if tbl.IO != fileio.FileIO(mem) || tbl.Location != "mem://b/wh/t" || tbl.rules != nil {
			t.Errorf("metadata %+v: table relocated to %s", md, tbl.Location)
		}
	}
}

func TestRelocateMapsSiblingRootsCopiedBesideTheTable(t *testing.T) {
	t.Parallel()
	mem := fileio.NewMem()
	mem.Put("mem://lake/t/metadata/v1.metadata.json", []byte("{}"))
	mem.Put("mem://lake/t/_siblings/t_data2/a.parquet", []byte("s"))
	tbl := &Table{
		MetadataLocation: "mem://lake/t/metadata/v1.metadata.json",
		Metadata:         &iceberg.TableMetadata{Location: "hdfs://nn/wh/t"},
		IO:               mem,
	}
	Relocate(context.Background(), tbl)
	want := []fileio.Rule{
		{From: "hdfs://nn/wh/t", To: "mem://lake/t"},
		{From: "hdfs://nn/wh/t_data2", To: "mem://lake/t/_siblings/t_data2"},
	}
	if !slices.Equal(tbl.rules, want) {
		t.Fatalf("rules = %+v, want %+v", tbl.rules, want)
	}
	f, err := tbl.IO.Open(context.Background(), "hdfs://nn/wh/t_data2/a.parquet")
	if err != nil {
		t.Fatalf("open a file of a sibling root: %v", err)
	}
	f.Close()
}
