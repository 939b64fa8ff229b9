package fileio_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
)

func TestALocalFilesInfoIsItsModificationTime(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f.parquet")
	if err := os.WriteFile(p, []byte("iceberg"), 0o644); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	if err := os.Chtimes(p, mod, mod); err != nil {
		t.Fatal(err)
	}
	fileiotest.CheckInfo(t, fileio.NewLocal(), p, fileio.Info{ModTime: mod})
	fileiotest.CheckInfo(t, fileio.NewLocal(), "file://"+p, fileio.Info{ModTime: mod})
}

func TestInfoOfLooksThroughWrappersAndSaysWhenNothingIsKnown(t *testing.T) {
	t.Parallel()
	m := fileio.NewMem()
	m.Put("mem://f", []byte("iceberg"))
	f, err := fileio.Cancelable(m).Open(context.Background(), "mem://f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, ok := fileio.InfoOf(f); ok || got != (fileio.Info{}) {
		t.Errorf("InfoOf a memory file = %v, %v; want nothing known", got, ok)
	}
	if got, ok := fileio.InfoOf(fileio.Coalescing(described{f}, fileio.DefaultCoalesceOptions)); !ok || got.ETag != `"e"` {
		t.Errorf("InfoOf through Coalescing = %v, %v; want the wrapped file's", got, ok)
	}
}

type described struct{ fileio.File }

func (described) Info() fileio.Info { return fileio.Info{ETag: `"e"`} }

func TestInfoCellKeepsTheFirstAnswer(t *testing.T) {
	t.Parallel()
	var c fileio.InfoCell
	c.Note(fileio.Info{})
	first := fileio.Info{ModTime: time.Unix(10, 0), ETag: `"a"`}
	c.Note(first)
	c.Note(fileio.Info{ModTime: time.Unix(20, 0), ETag: `"b"`})
	if got := c.Info(); got != first {
		t.Errorf("Info = %v, want the first answer %v", got, first)
	}
}
