package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// fakeStore is a storage back end for the registry's tests: every FileIO
// it builds serves "fake://" locations from memory and remembers the
// endpoint property it was built with.
type fakeStore struct {
	builds atomic.Int64
	fail   atomic.Bool
}

func (s *fakeStore) backend() fileio.Backend {
	return fileio.Backend{Name: "Fake", Schemes: []string{"fake", "fakea"}, New: func(_ context.Context, props fileio.Properties) (fileio.FileIO, error) {
		s.builds.Add(1)
		if s.fail.Load() {
			return nil, errors.New("no credentials for bucket b")
		}
		m := fileio.NewMem()
		m.Put("fake://b/endpoint", []byte(props.Get("fake.endpoint")))
		m.Put("fakea://b/endpoint", []byte(props.Get("fake.endpoint")))
		return m, nil
	}}
}

// localFile writes text to a file in dir and returns its path.
func localFile(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, text+".txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, fio fileio.FileIO, location string) (string, error) {
	t.Helper()
	b, err := fileio.ReadAll(context.Background(), fio, location, 0)
	return string(b), err
}

func TestEqualPropertiesShareOneFileIO(t *testing.T) {
	t.Parallel()
	var store fakeStore
	r := New(WithBackends(store.backend()))
	ctx := context.Background()
	a, _ := r.ForProperties(ctx, fileio.Properties{"fake.endpoint": "http://one", "x": "1"})
	b, _ := r.ForProperties(ctx, fileio.Properties{"x": "1", "fake.endpoint": "http://one"})
	c, _ := r.ForProperties(ctx, fileio.Properties{"fake.endpoint": "http://two", "x": "1"})
	if a != b {
		t.Error("equal property sets got two FileIOs")
	}
	if a == c {
		t.Error("different property sets share a FileIO")
	}
	for _, tt := range []struct {
		fio  fileio.FileIO
		want string
	}{{a, "http://one"}, {b, "http://one"}, {c, "http://two"}} {
		if got, err := read(t, tt.fio, "fake://b/endpoint"); err != nil || got != tt.want {
			t.Errorf("read with endpoint %q: %q, %v", tt.want, got, err)
		}
	}
	if n := store.builds.Load(); n != 2 {
		t.Errorf("the back end was built %d times for two profiles", n)
	}
	if r.Len() != 2 {
		t.Errorf("%d profiles kept, want 2", r.Len())
	}
}

func TestPropertyKeysDoNotCollide(t *testing.T) {
	t.Parallel()
	// A naive "k=v;" encoding would make these one profile.
	a := profileKey(fileio.Properties{"a": "b;c=d"})
	b := profileKey(fileio.Properties{"a": "b", "c": "d"})
	if a == b {
		t.Error("two property sets share a key")
	}
}

func TestLocationsGoToTheirScheme(t *testing.T) {
	t.Parallel()
	local := localFile(t, t.TempDir(), "local")
	var store fakeStore
	ctx := context.Background()
	fio, err := New(WithBackends(store.backend())).ForProperties(ctx, fileio.Properties{"fake.endpoint": "e"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, location, want string
		err                  error
	}{
		{"a bare path is local", local, "local", nil},
		{"file:// is local", "file://" + local, "local", nil},
		{"the back end serves its scheme", "fake://b/endpoint", "e", nil},
		{"and each of its schemes", "fakea://b/endpoint", "e", nil},
		{"an unknown scheme is unsupported", "gs://b/k", "", fileio.ErrUnsupportedScheme},
		{"a missing object is not found", "fake://b/none", "", fileio.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(t, fio, tt.location)
			if !errors.Is(err, tt.err) || got != tt.want {
				t.Errorf("read %s: %q, %v; want %q, %v", tt.location, got, err, tt.want, tt.err)
			}
		})
	}
}

func TestABackEndIsBuiltOnItsFirstLocation(t *testing.T) {
	t.Parallel()
	var store fakeStore
	fio, _ := New(WithBackends(store.backend())).ForProperties(context.Background(), nil)
	if n := store.builds.Load(); n != 0 {
		t.Fatalf("built %d times before any location of its schemes was opened", n)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { read(t, fio, "fake://b/endpoint") })
	}
	wg.Wait()
	if n := store.builds.Load(); n != 1 {
		t.Errorf("built %d times by 8 concurrent reads", n)
	}
}

func TestABackEndThatCannotBeBuiltFailsOnlyItsSchemesAndIsTriedAgain(t *testing.T) {
	t.Parallel()
	local := localFile(t, t.TempDir(), "local")
	var store fakeStore
	store.fail.Store(true)
	const secret = "s3cr3t-value"
	fio, _ := New(WithBackends(store.backend())).ForProperties(context.Background(), fileio.Properties{"fake.secret": secret})
	_, err := read(t, fio, "fake://b/endpoint")
	if err == nil || !strings.Contains(err.Error(), "storage Fake") {
		t.Fatalf("a back end that cannot be built: %v, want an error naming it", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("the error %q shows a property's value", err)
	}
	if got, err := read(t, fio, local); err != nil || got != "local" {
		t.Errorf("a local read beside a broken back end: %q, %v", got, err)
	}
	store.fail.Store(false)
	if _, err := read(t, fio, "fake://b/endpoint"); err != nil {
		t.Errorf("the back end is not tried again once it can be built: %v", err)
	}
}

func TestLocalFileSystemOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inside, outside := localFile(t, dir, "in"), localFile(t, t.TempDir(), "out")
	confined, err := fileio.NewLocalWithin(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	within, _ := New(WithBackends(), WithLocal(confined)).ForProperties(ctx, nil)
	if _, err := read(t, within, inside); err != nil {
		t.Errorf("a confined local file system refuses a file inside its folder: %v", err)
	}
	if _, err := read(t, within, outside); !errors.Is(err, fileio.ErrOutsideRoot) {
		t.Errorf("a confined local file system read %s: %v", outside, err)
	}
	none, _ := New(WithBackends(), WithoutLocal()).ForProperties(ctx, nil)
	if _, err := read(t, none, inside); !errors.Is(err, fileio.ErrUnsupportedScheme) {
		t.Errorf("without the local file system a bare path reads: %v", err)
	}
}

func TestTheLeastRecentlyUsedProfileGoesFirst(t *testing.T) {
	t.Parallel()
	var store fakeStore
	r := New(WithBackends(store.backend()), WithMaxProfiles(2))
	ctx := context.Background()
	prof := func(i int) fileio.Properties { return fileio.Properties{"fake.endpoint": fmt.Sprint(i)} }
	first, _ := r.ForProperties(ctx, prof(1))
	r.ForProperties(ctx, prof(2))
	if again, _ := r.ForProperties(ctx, prof(1)); again != first {
		t.Fatal("a kept profile was rebuilt")
	}
	r.ForProperties(ctx, prof(3)) // evicts 2, the least recently used
	if r.Len() != 2 {
		t.Errorf("%d profiles kept, bound 2", r.Len())
	}
	if again, _ := r.ForProperties(ctx, prof(1)); again != first {
		t.Error("the most recently used profile was evicted")
	}
	// An evicted profile's FileIO still reads for whoever holds it.
	if got, err := read(t, first, "fake://b/endpoint"); err != nil || got != "1" {
		t.Errorf("read: %q, %v", got, err)
	}
}

// openOnly is a FileIO that can only open files.
type openOnly struct{ fio fileio.FileIO }

func (o openOnly) Open(ctx context.Context, location string) (fileio.File, error) {
	return o.fio.Open(ctx, location)
}

// capable is a FileIO that can do everything, and records what it did.
type capable struct {
	fileio.FileIO
	did []string
}

func (c *capable) OpenSized(ctx context.Context, location string, size int64) (fileio.File, error) {
	c.did = append(c.did, fmt.Sprintf("OpenSized %s %d", location, size))
	return c.FileIO.Open(ctx, location)
}

func (c *capable) ReadDir(_ context.Context, dir string) ([]fileio.Entry, error) {
	c.did = append(c.did, "ReadDir "+dir)
	return nil, nil
}

func (c *capable) Create(_ context.Context, location string) (io.WriteCloser, error) {
	c.did = append(c.did, "Create "+location)
	return nil, nil
}

func (c *capable) Remove(_ context.Context, location string) error {
	c.did = append(c.did, "Remove "+location)
	return nil
}

func TestTheLazyBackEndForwardsWhatItsFileIOCan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := fileio.NewMem()
	mem.Put("fake://b/k", []byte("v"))
	backend := func(fio fileio.FileIO) fileio.Backend {
		return fileio.Backend{Name: "Fake", Schemes: []string{"fake"},
			New: func(context.Context, fileio.Properties) (fileio.FileIO, error) { return fio, nil }}
	}
	lz := &lazy{backend: backend(openOnly{mem})}
	if _, err := lz.ReadDir(ctx, "fake://b/"); !errors.Is(err, fileio.ErrUnsupportedScheme) {
		t.Errorf("ReadDir on a back end that cannot list: %v", err)
	}
	if _, err := lz.Create(ctx, "fake://b/new"); !errors.Is(err, fileio.ErrUnsupportedScheme) {
		t.Errorf("Create on a back end that cannot write: %v", err)
	}
	if err := lz.Remove(ctx, "fake://b/k"); !errors.Is(err, fileio.ErrUnsupportedScheme) {
		t.Errorf("Remove on a back end that cannot remove: %v", err)
	}
	if f, err := lz.OpenSized(ctx, "fake://b/k", 1); err != nil {
		t.Errorf("OpenSized on a back end that cannot: %v, want a plain open", err)
	} else {
		f.Close()
	}
	full := &capable{FileIO: mem}
	lz = &lazy{backend: backend(full)}
	lz.ReadDir(ctx, "fake://b/")
	lz.Create(ctx, "fake://b/new")
	lz.Remove(ctx, "fake://b/k")
	if f, err := lz.OpenSized(ctx, "fake://b/k", 1); err == nil {
		f.Close()
	}
	want := []string{"ReadDir fake://b/", "Create fake://b/new", "Remove fake://b/k", "OpenSized fake://b/k 1"}
	if !slices.Equal(full.did, want) {
		t.Errorf("the back end did %q, want %q", full.did, want)
	}
}
