package catalog

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
)

func TestHugeMetadataFilesAreRefused(t *testing.T) {
	t.Parallel()
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	// 64 MiB of spaces compress to about 64 KiB.
	if _, err := zw.Write([]byte(strings.Repeat(" ", 64<<20))); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	cases := []struct {
		name  string
		write func(t *testing.T, p string)
		limit int64
	}{
		{"a sparse 64 GiB metadata file is refused before it is read", func(t *testing.T, p string) {
			fileiotest.SparseFile(t, p, 64<<30, nil)
		}, DefaultMaxMetadataBytes},
		{"a gzip metadata file that inflates past the limit is refused", func(t *testing.T, p string) {
			if err := os.WriteFile(p, bomb.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}, 1 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			meta := filepath.Join(root, "db", "t", "metadata")
			if err := os.MkdirAll(meta, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.write(t, filepath.Join(meta, "v1.metadata.json"))
			d, err := NewDirectory(root, WithMaxMetadataBytes(tc.limit))
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.LoadTable(context.Background(), Identifier{"db", "t"})
			if !errors.Is(err, fileio.ErrTooLarge) {
				t.Fatalf("LoadTable = %v, want fileio.ErrTooLarge", err)
			}
			if !strings.Contains(err.Error(), "v1.metadata.json") {
				t.Errorf("error %q does not name the metadata file", err)
			}
		})
	}
}

func TestLoadTableGivesUpOnStuckStorage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"db/t/metadata/v1.metadata.json": metadataJSON("/old/db/t", "one"),
	})
	stuck := fileiotest.NewBlocking(fileio.NewResolver(), func(loc string) bool {
		return strings.HasSuffix(loc, ".metadata.json")
	})
	t.Cleanup(stuck.Release)
	d, err := NewDirectory(root, WithFileIO(stuck))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := d.LoadTable(ctx, Identifier{"db", "t"})
		errc <- err
	}()
	<-stuck.Entered()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("LoadTable on stuck storage = %v, want context.Canceled", err)
	}
}
