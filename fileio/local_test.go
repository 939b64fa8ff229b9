package fileio

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocalOpenSpellings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(p, []byte("hello iceberg"), 0o644); err != nil {
		t.Fatal(err)
	}
	slash := filepath.ToSlash(p)
	if !strings.HasPrefix(slash, "/") {
		slash = "/" + slash
	}
	cases := []struct{ name, location string }{
		{"bare absolute path", p},
		{"file URI with one slash", "file:" + slash},
		{"file URI with empty host", "file://" + slash},
		{"file URI with localhost", "file://localhost" + slash},
		{"file URI with LOCALHOST in capitals", "FILE://LOCALHOST" + slash},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := NewLocal().Open(context.Background(), tc.location)
			if err != nil {
				t.Fatalf("Open(%q): %v", tc.location, err)
			}
			defer f.Close()
			if f.Size() != 13 {
				t.Errorf("Size = %d, want 13", f.Size())
			}
			buf := make([]byte, 7)
			if _, err := f.ReadAt(buf, 6); err != nil {
				t.Fatal(err)
			}
			if string(buf) != "iceberg" {
				t.Errorf("ReadAt = %q", buf)
			}
			if n, err := f.ReadAt(buf, 10); n != 3 || !errors.Is(err, io.EOF) {
				t.Errorf("ReadAt past end = %d, %v; want 3, EOF", n, err)
			}
		})
	}
}

func TestLocalOpenRelativePath(t *testing.T) {
	t.Parallel()
	f, err := NewLocal().Open(context.Background(), "fileio.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() == 0 {
		t.Error("empty file")
	}
}

func TestLocalOpenErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.parquet")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name     string
		ctx      context.Context
		location string
		want     error
	}{
		{"missing file wraps ErrNotFound", context.Background(), missing, ErrNotFound},
		{"missing file URI wraps ErrNotFound", context.Background(), "file://" + filepath.ToSlash(missing), ErrNotFound},
		{"remote host is not local", context.Background(), "file://otherhost/x", ErrUnsupportedScheme},
		{"other scheme is not local", context.Background(), "s3://bucket/x", ErrUnsupportedScheme},
		{"canceled context stops before opening", canceled, "fileio.go", context.Canceled},
		{"directory is not a file", context.Background(), dir, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := NewLocal().Open(tc.ctx, tc.location)
			if err == nil {
				f.Close()
				t.Fatalf("Open(%q) succeeded", tc.location)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v does not wrap %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.location) {
				t.Errorf("error %q does not name %q", err, tc.location)
			}
		})
	}
}

func TestLocalPath(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"/a/b", "/a/b"},
		{"rel/x", "rel/x"},
		{"file:/a/b", "/a/b"},
		{"file:///a/b", "/a/b"},
		{"file://localhost/a/b", "/a/b"},
		{"file:///a/col=17%3A00", "/a/col=17%3A00"},
	}
	for _, tc := range cases {
		got, err := LocalPath(tc.in)
		if err != nil {
			t.Errorf("LocalPath(%q): %v", tc.in, err)
			continue
		}
		if got != filepath.FromSlash(tc.want) {
			t.Errorf("LocalPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
