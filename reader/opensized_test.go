package reader

import (
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestFilesOpenWithTheirRecordedSize checks that a read asks the store for
// no file's size: data files, position and equality delete files and
// deletion vector files are opened with the size their task records
// (file_size_in_bytes), which on an object store spares a HEAD request per
// file, and the rows still equal the oracle's.
func TestFilesOpenWithTheirRecordedSize(t *testing.T) {
	t.Parallel()
	for _, table := range []string{
		"apache-impala__iceberg_v2_delete_both_eq_and_pos", // Parquet data, position and equality deletes
		"apache-impala__iceberg_v3_deletion_vectors",       // Puffin deletion vectors
		"apache-impala__iceberg_v2_no_deletes_orc",         // ORC
		"apache-impala__iceberg_v3_default_value_avro",     // Avro data files
	} {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			var counted *fileiotest.Counting
			got, want, tasks := readCorpusTableWith(t, table, func(fio fileio.FileIO) fileio.FileIO {
				counted = fileiotest.NewCounting(fio)
				return counted
			})
			if d := testutil.DiffRows(got, want); d != "" {
				t.Fatalf("rows differ from the oracle's: %s", d)
			}
			if opens := counted.Opens(); len(opens) > 0 {
				t.Errorf("files opened without their recorded size: %v", opens)
			}
			sized := counted.SizedOpens()
			for _, task := range tasks {
				if sized[task.Path] == 0 {
					t.Errorf("data file %s was not opened with its size", task.Path)
				}
				for _, d := range task.Deletes {
					if sized[d.Path] == 0 {
						t.Errorf("delete file %s was not opened with its size", d.Path)
					}
				}
			}
		})
	}
}
