package fileio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// confinedTree builds root/{t/data/ok.parquet, t/data/up -> ../.., t/data/out
// -> outside/secret} and outside/secret, and returns root and outside.
func confinedTree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "wh"), filepath.Join(base, "outside")
	data := filepath.Join(root, "t", "data")
	for _, d := range []string{data, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, b := range map[string]string{filepath.Join(data, "ok.parquet"): "rows", filepath.Join(outside, "secret"): "root:x:0:0"} {
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{filepath.Join(data, "out"): filepath.Join(outside, "secret"), filepath.Join(data, "up"): "../../.."} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestLocalWithinRefusesEscapes(t *testing.T) {
	t.Parallel()
	root, outside := confinedTree(t)
	l, err := NewLocalWithin(root)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanup, not defer: the parallel cases run after this function returns.
	t.Cleanup(func() { l.Close() })
	secret := filepath.Join(outside, "secret")
	cases := []struct {
		name     string
		location string
		want     error
	}{
		{"absolute path outside the root", secret, ErrOutsideRoot},
		{"file URI outside the root", "file://" + secret, ErrOutsideRoot},
		{"dot-dot out of the root", filepath.Join(root, "t") + "/../../outside/secret", ErrOutsideRoot},
		{"symlink to a file outside", filepath.Join(root, "t", "data", "out"), ErrOutsideRoot},
		{"symlinked folder leading outside", filepath.Join(root, "t", "data", "up", "outside", "secret"), ErrOutsideRoot},
		{"missing file outside is not probed", filepath.Join(outside, "nope"), ErrOutsideRoot},
		{"missing file inside is not found", filepath.Join(root, "t", "nope"), ErrNotFound},
		{"the root folder is not a file", root, ErrNotRegular},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := l.Open(context.Background(), tc.location)
			if err == nil {
				f.Close()
				t.Fatalf("Open(%q) succeeded", tc.location)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v does not wrap %v", err, tc.want)
			}
			if strings.Contains(err.Error(), "root:x") {
				t.Errorf("error %q echoes the file", err)
			}
		})
	}
}

func TestLocalWithinOpensInside(t *testing.T) {
	t.Parallel()
	root, _ := confinedTree(t)
	// A root given through a symlink is the folder it names.
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(root, alias); err != nil {
		t.Fatal(err)
	}
	l, err := NewLocalWithin(alias)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, loc := range []string{
		filepath.Join(root, "t", "data", "ok.parquet"),
		filepath.Join(alias, "t", "data", "ok.parquet"),
		"file://" + filepath.Join(root, "t", "x", "..", "data", "ok.parquet"),
	} {
		f, err := l.Open(context.Background(), loc)
		if err != nil {
			t.Errorf("Open(%q): %v", loc, err)
			continue
		}
		if f.Size() != 4 {
			t.Errorf("Open(%q).Size() = %d, want 4", loc, f.Size())
		}
		f.Close()
	}
}

// A FIFO blocks open(2) until a writer comes; Open must refuse it at once,
// confined or not.
func TestLocalRefusesFIFOWithoutBlocking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "manifest-list.avro")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	within, err := NewLocalWithin(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer within.Close()
	for name, l := range map[string]*Local{"unconfined": NewLocal(), "confined": within} {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				f, err := l.Open(context.Background(), fifo)
				if err == nil {
					f.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrNotRegular) {
					t.Fatalf("Open(FIFO) = %v, want ErrNotRegular", err)
				}
				if !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "FIFO") {
					t.Errorf("error %q does not name the FIFO", err)
				}
			case <-time.After(10 * time.Second):
				// Unblock the open so the goroutine ends, then fail.
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Close()
				}
				<-done
				t.Fatal("Open(FIFO) blocked")
			}
		})
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p, dir string
		want   bool
	}{
		{"/wh/t", "/wh/t", true},
		{"/wh/t/data/x", "/wh/t", true},
		{"/wh/t2", "/wh/t", false},
		{"/wh", "/wh/t", false},
		{"/etc/passwd", "/wh", false},
		{"/anything", "/", true},
	}
	for _, tc := range cases {
		if got := Within(tc.p, tc.dir); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.p, tc.dir, got, tc.want)
		}
	}
}
