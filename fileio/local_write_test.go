package fileio

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func writeAll(t *testing.T, w io.WriteCloser, data string) error {
	t.Helper()
	if _, err := io.WriteString(w, data); err != nil {
		return err
	}
	return w.Close()
}

func TestLocalCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	l, err := NewLocalWithin(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	loc := filepath.Join(dir, "t", "metadata", "v1.metadata.json")
	w, err := l.Create(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "half"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(loc); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("file visible before Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(loc); string(b) != "half" {
		t.Fatalf("content %q", b)
	}
	// Create replaces; the folder keeps no temporary file.
	w, err = l.Create(ctx, "file://"+loc)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeAll(t, w, "whole"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(loc); string(b) != "whole" {
		t.Fatalf("content %q", b)
	}
	if names, _ := os.ReadDir(filepath.Dir(loc)); len(names) != 1 {
		t.Fatalf("folder holds %v", names)
	}
	if err := l.Remove(ctx, loc); err != nil {
		t.Fatal(err)
	}
	if err := l.Remove(ctx, loc); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second remove: %v", err)
	}
}

func TestLocalCreateConfined(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	l, err := NewLocalWithin(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, loc := range []string{
		filepath.Join(outside, "x"),
		filepath.Join(dir, "..", filepath.Base(outside), "x"),
		filepath.Join(dir, "out", "x"),
		filepath.Join(dir, "out", "sub", "x"),
		dir,
	} {
		_, err := l.Create(ctx, loc)
		if err == nil {
			// A symlink out may be found only at Close, by os.Root.
			t.Fatalf("create %s: allowed", loc)
		}
		if !errors.Is(err, ErrOutsideRoot) {
			t.Fatalf("create %s: %v, want ErrOutsideRoot", loc, err)
		}
		if err := l.Remove(ctx, loc); !errors.Is(err, ErrOutsideRoot) {
			t.Fatalf("remove %s: %v, want ErrOutsideRoot", loc, err)
		}
	}
	if names, _ := os.ReadDir(outside); len(names) != 0 {
		t.Fatalf("wrote outside: %v", names)
	}
}

func TestLocalCreateCanceled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	loc := filepath.Join(dir, "f")
	w, err := NewLocal().Create(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "x")
	cancel()
	if err := w.Close(); !errors.Is(err, context.Canceled) {
		t.Fatalf("close: %v", err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
}

func TestCreateExclusiveRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	local, err := NewLocalWithin(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	for _, tc := range []struct {
		name string
		fio  FileIO
		loc  string
		read func() string
	}{
		{"local", local, filepath.Join(dir, "v2.metadata.json"), func() string {
			b, _ := os.ReadFile(filepath.Join(dir, "v2.metadata.json"))
			return string(b)
		}},
		{"mem", NewMem(), "mem://b/v2.metadata.json", nil},
		{"resolver over local", NewResolver(WithScheme("file", local)), "file://" + filepath.Join(dir, "v3.metadata.json"), nil},
		{"cancelable remapper", Cancelable(Remap(local, Rule{From: "s3://b/wh", To: dir})), "s3://b/wh/v4.metadata.json", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const writers = 8
			errs := make([]error, writers)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					w, err := CreateExclusive(ctx, tc.fio, tc.loc)
					if err != nil {
						errs[i] = err
						return
					}
					<-start
					errs[i] = writeAll(t, w, string(rune('a'+i)))
				}()
			}
			close(start)
			wg.Wait()
			won := -1
			for i, err := range errs {
				switch {
				case err == nil && won >= 0:
					t.Fatalf("writers %d and %d both won", won, i)
				case err == nil:
					won = i
				case !errors.Is(err, ErrExist):
					t.Fatalf("writer %d: %v", i, err)
				}
			}
			if won < 0 {
				t.Fatal("no writer won")
			}
			got, err := ReadAll(ctx, tc.fio, tc.loc, 10)
			if err != nil || string(got) != string(rune('a'+won)) {
				t.Fatalf("file holds %q (%v), want the winner's %q", got, err, string(rune('a'+won)))
			}
			if tc.read != nil && tc.read() != string(got) {
				t.Fatal("disk disagrees")
			}
		})
	}
	if names, _ := os.ReadDir(dir); len(names) != 3 {
		t.Fatalf("folder holds %v, want the three files and no temporary ones", names)
	}
}
