package hive

import (
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

func TestTableLocation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, loc, recorded, want string
	}{
		{"a metadata file below the recorded location", "s3://b/wh/t/metadata/00001-a.metadata.json", "s3://b/wh/t", "s3://b/wh/t"},
		{"a table registered away from where it was written", "file:/corpus/t/metadata/v3.metadata.json", "hdfs://nn:8020/wh/t", "file:/corpus/t"},
		{"a metadata file outside any metadata folder", "file:/stash/copy.metadata.json", "file:/wh/t", "file:/wh/t"},
		{"no recorded location", "file:/corpus/t/metadata/v1.metadata.json", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tableLocation(tc.loc, &iceberg.TableMetadata{Location: tc.recorded}); got != tc.want {
				t.Fatalf("tableLocation(%s, %s) = %s, want %s", tc.loc, tc.recorded, got, tc.want)
			}
		})
	}
}
