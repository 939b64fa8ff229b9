package fileiotest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// ListingKeys are the objects CheckReadDir expects below the folder it
// lists, each holding its own key as content.
var ListingKeys = []string{
	"wh/t/metadata/v1.metadata.json", "wh/t/metadata/v2.metadata.json", "wh/t/metadata/snap/x.avro",
	"wh/t/data/a.parquet", "wh/t2/other",
}

// CheckReadDir checks the listing of an object-store folder, root (a
// location ending in "/"), that holds ListingKeys and nothing else: one
// level at a time, with or without a trailing "/", sub-folders as
// folders, sizes, and an empty listing for a prefix with nothing below.
func CheckReadDir(t *testing.T, fio fileio.FileIO, root string) {
	t.Helper()
	cases := []struct {
		dir  string
		want []string
	}{
		{"wh/t/metadata", []string{"snap/", "v1.metadata.json", "v2.metadata.json"}},
		{"wh/t/metadata/", []string{"snap/", "v1.metadata.json", "v2.metadata.json"}},
		{"wh", []string{"t/", "t2/"}},
		{"", []string{"wh/"}},
		{"wh/missing", nil},
	}
	for _, tc := range cases {
		dir := root + tc.dir
		entries, err := fileio.ReadDir(context.Background(), fio, dir)
		if err != nil {
			t.Fatalf("ReadDir(%s): %v", dir, err)
		}
		var got []string
		for _, e := range entries {
			n := e.Name
			if e.IsDir {
				n += "/"
			} else if want := int64(len(strings.TrimSuffix(tc.dir, "/") + "/" + e.Name)); e.Size != want || e.ModTime.IsZero() {
				t.Errorf("ReadDir(%s): %s has size %d and time %v, want %d and a time", dir, e.Name, e.Size, e.ModTime, want)
			}
			got = append(got, n)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("ReadDir(%s) = %v, want %v", dir, got, tc.want)
		}
	}
}

// Store is a FileIO that writes and removes files.
type Store interface {
	fileio.FileIO
	fileio.Creator
	fileio.Remover
}

// CheckCreateRemove checks that a file written to loc is readable once
// Close returns, gone once removed, and that a write to cut whose context
// ends before Close leaves nothing behind.
func CheckCreateRemove(t *testing.T, fio Store, loc, cut string) {
	t.Helper()
	ctx := context.Background()
	w, err := fio.Create(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "hello, store"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := fileio.ReadAll(ctx, fio, loc, 0)
	if err != nil || string(got) != "hello, store" {
		t.Fatalf("read back %q, %v", got, err)
	}
	if err := fio.Remove(ctx, loc); err != nil {
		t.Fatal(err)
	}
	if _, err := fio.Open(ctx, loc); !errors.Is(err, fileio.ErrNotFound) {
		t.Fatalf("Open after Remove = %v, want ErrNotFound", err)
	}
	if err := fio.Remove(ctx, loc); !errors.Is(err, fileio.ErrNotFound) {
		t.Fatalf("Remove of a removed file = %v, want ErrNotFound", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	w, err = fio.Create(cctx, cut)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(bytes.Repeat([]byte("x"), 1000))
	cancel()
	if err := w.Close(); err == nil {
		t.Fatal("Close after the context ended succeeded")
	}
	if _, err := fio.Open(ctx, cut); !errors.Is(err, fileio.ErrNotFound) {
		t.Fatalf("Open of a cut write = %v, want ErrNotFound", err)
	}
}
