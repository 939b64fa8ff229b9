package fileio_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// names returns the entries' names, a "/" after each folder.
func names(entries []fileio.Entry) []string {
	out := []string{}
	for _, e := range entries {
		if e.IsDir {
			out = append(out, e.Name+"/")
		} else {
			out = append(out, e.Name)
		}
	}
	return out
}

func TestMemListsFoldersImpliedBySlashes(t *testing.T) {
	t.Parallel()
	m := fileio.NewMem()
	for _, loc := range []string{
		"mem://b/wh/db/t/metadata/v1.metadata.json",
		"mem://b/wh/db/t/data/a.parquet",
		"mem://b/wh/db/u/metadata/v1.metadata.json",
		"mem://b/wh/top.txt",
		"mem://b/wh2/other",
	} {
		m.Put(loc, []byte("x"))
	}
	ctx := context.Background()
	cases := []struct {
		dir  string
		want []string
	}{
		{"mem://b/wh", []string{"db/", "top.txt"}},
		{"mem://b/wh/", []string{"db/", "top.txt"}},
		{"mem://b/wh/db", []string{"t/", "u/"}},
		{"mem://b/wh/db/t/metadata", []string{"v1.metadata.json"}},
		{"mem://b/nothing", []string{}},
	}
	for _, tc := range cases {
		got, err := m.ReadDir(ctx, tc.dir)
		if err != nil || !reflect.DeepEqual(names(got), tc.want) {
			t.Errorf("ReadDir(%s) = %v, %v; want %v", tc.dir, names(got), err, tc.want)
		}
	}
	if e, _ := m.ReadDir(ctx, "mem://b/wh"); e[1].Size != 1 {
		t.Errorf("file entry size %d, want 1", e[1].Size)
	}
}

func TestLocalReadDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{"wh/t/metadata", "wh/sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "wh", "f.txt"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "wh", "sub"), filepath.Join(root, "wh", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "wh", "out")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "wh", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	within, err := fileio.NewLocalWithin(filepath.Join(root, "wh"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { within.Close() })
	ctx := context.Background()
	wh := filepath.Join(root, "wh")
	for name, l := range map[string]*fileio.Local{"unconfined": fileio.NewLocal(), "confined": within} {
		got, err := l.ReadDir(ctx, wh)
		want := []string{"f.txt", "fifo", "link", "out", "sub/", "t/"}
		if err != nil || !reflect.DeepEqual(names(got), want) {
			t.Errorf("%s: ReadDir = %v, %v; want %v (symlinks listed, not followed)", name, names(got), err, want)
		}
		if got[0].Size != 3 {
			t.Errorf("%s: f.txt size %d, want 3", name, got[0].Size)
		}
		if _, err := l.ReadDir(ctx, filepath.Join(wh, "fifo")); err == nil || !strings.Contains(err.Error(), "not a folder") {
			t.Errorf("%s: listing a FIFO = %v, want a prompt refusal", name, err)
		}
		if _, err := l.ReadDir(ctx, filepath.Join(wh, "f.txt")); err == nil {
			t.Errorf("%s: listing a file: want an error", name)
		}
		if _, err := l.ReadDir(ctx, "file://"+filepath.Join(wh, "missing")); !errors.Is(err, fileio.ErrNotFound) {
			t.Errorf("%s: listing a missing folder = %v, want ErrNotFound", name, err)
		}
	}
	if _, err := within.ReadDir(ctx, filepath.Join(wh, "out")); !errors.Is(err, fileio.ErrOutsideRoot) || strings.Contains(err.Error(), outside) {
		t.Errorf("confined: listing through a symlink out = %v, want ErrOutsideRoot naming no outside path", err)
	}
	if _, err := within.ReadDir(ctx, root); !errors.Is(err, fileio.ErrOutsideRoot) {
		t.Errorf("confined: listing above the root = %v, want ErrOutsideRoot", err)
	}
}

// plain hides every optional method of the FileIO it wraps.
type plain struct{ fileio.FileIO }

func TestWrappersForwardWhatTheirBaseCanDo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := fileio.NewMem()
	mem.Put("mem://b/wh/t/a", []byte("12345"))
	wrappers := map[string]func(fileio.FileIO) fileio.FileIO{
		"Cancelable": fileio.Cancelable,
		"Resolver": func(f fileio.FileIO) fileio.FileIO {
			return fileio.NewResolver(fileio.WithScheme("mem", f))
		},
		"Remapper": func(f fileio.FileIO) fileio.FileIO {
			return fileio.Remap(f, fileio.Rule{From: "mem://old/t", To: "mem://b/wh/t"})
		},
	}
	for name, wrap := range wrappers {
		dir, file := "mem://b/wh/t", "mem://b/wh/t/a"
		if name == "Remapper" {
			dir, file = "mem://old/t", "mem://old/t/a"
		}
		fio := wrap(mem)
		if got, err := fileio.ReadDir(ctx, fio, dir); err != nil || !reflect.DeepEqual(names(got), []string{"a"}) {
			t.Errorf("%s: ReadDir = %v, %v", name, names(got), err)
		}
		if f, err := fileio.OpenSized(ctx, fio, file, 3); err != nil || f.Size() != 3 {
			t.Errorf("%s: OpenSized did not trust the size: %v", name, err)
		} else {
			f.Close()
		}
		w, err := fileio.Create(ctx, fio, file+"-new")
		if err == nil {
			_, err = io.WriteString(w, "new")
		}
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			t.Errorf("%s: Create: %v", name, err)
		}
		if err := fileio.Remove(ctx, fio, file+"-new"); err != nil {
			t.Errorf("%s: Remove: %v", name, err)
		}
		if err := fileio.Remove(ctx, fio, file+"-new"); !errors.Is(err, fileio.ErrNotFound) {
			t.Errorf("%s: second Remove = %v, want ErrNotFound", name, err)
		}

		bare := wrap(plain{mem})
		if _, err := fileio.ReadDir(ctx, bare, dir); !errors.Is(err, fileio.ErrUnsupportedScheme) {
			t.Errorf("%s over a FileIO that cannot list: ReadDir = %v, want ErrUnsupportedScheme", name, err)
		}
		if f, err := fileio.OpenSized(ctx, bare, file, 3); err != nil || f.Size() != 5 {
			t.Errorf("%s over a FileIO without OpenSized: want a plain Open, got %v", name, err)
		} else {
			f.Close()
		}
		if _, err := fileio.Create(ctx, bare, file+"-x"); !errors.Is(err, fileio.ErrUnsupportedScheme) {
			t.Errorf("%s over a FileIO that cannot write: Create = %v", name, err)
		}
	}
}

func TestCancelableListingGivesUp(t *testing.T) {
	t.Parallel()
	stuck := stuckLister{entered: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(stuck.release) })
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-stuck.entered
		cancel()
	}()
	if _, err := fileio.ReadDir(ctx, fileio.Cancelable(stuck), "mem://b/wh"); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadDir on stuck storage = %v, want context.Canceled", err)
	}
}

// stuckLister is storage whose listings hang until released.
type stuckLister struct {
	fileio.FileIO
	entered, release chan struct{}
}

func (s stuckLister) ReadDir(context.Context, string) ([]fileio.Entry, error) {
	close(s.entered)
	<-s.release
	return nil, nil
}

func TestLocalScanDirStopsWhenTold(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range 600 {
		if err := os.WriteFile(filepath.Join(root, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	within, err := fileio.NewLocalWithin(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { within.Close() })
	ctx := context.Background()
	seen := 0
	if err := within.ScanDir(ctx, root, func(string, bool) bool { seen++; return seen < 300 }); err != nil || seen != 300 {
		t.Errorf("ScanDir stopped after %d names (%v), want 300", seen, err)
	}
	seen = 0
	if err := within.ScanDir(ctx, root, func(string, bool) bool { seen++; return true }); err != nil || seen != 601 {
		t.Errorf("ScanDir saw %d names (%v), want 601", seen, err)
	}
	if err := within.ScanDir(ctx, filepath.Join(root, "fifo"), func(string, bool) bool { return true }); err == nil {
		t.Error("scanning a FIFO: want a prompt refusal")
	}
	if err := within.ScanDir(ctx, filepath.Dir(root), func(string, bool) bool { return true }); !errors.Is(err, fileio.ErrOutsideRoot) {
		t.Errorf("scanning above the root = %v, want ErrOutsideRoot", err)
	}
}
