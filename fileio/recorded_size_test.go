package fileio_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// misrecorded is a store whose sized opens trust a size that is wrong, as
// an object store's do: the first read finds the mismatch.
type misrecorded struct {
	*fileio.Mem
	sized, opened int
}

func (m *misrecorded) OpenSized(ctx context.Context, location string, size int64) (fileio.File, error) {
	m.sized++
	f, err := m.Mem.Open(ctx, location)
	if err != nil || f.Size() == size {
		return f, err
	}
	return mismatched{f}, nil
}

func (m *misrecorded) Open(ctx context.Context, location string) (fileio.File, error) {
	m.opened++
	return m.Mem.Open(ctx, location)
}

type mismatched struct{ fileio.File }

func (m mismatched) ReadAt([]byte, int64) (int, error) {
	return 0, fmt.Errorf("read: %w", fileio.ErrSizeMismatch)
}

func TestOpenRecordedAsksTheStoreOnlyWhenTheRecordedSizeIsWrong(t *testing.T) {
	t.Parallel()
	readAll := func(f fileio.File) (string, error) {
		b, err := io.ReadAll(io.NewSectionReader(f, 0, f.Size()))
		return string(b), err
	}
	for _, tt := range []struct {
		name                string
		recorded            int64
		wantSized, wantOpen int
	}{
		{"right size", 5, 1, 0},
		{"wrong size", 9, 1, 1},
		{"unknown size", -1, 0, 1},
	} {
		store := &misrecorded{Mem: fileio.NewMem()}
		store.Put("mem://b/f", []byte("hello"))
		f, got, err := fileio.OpenRecorded(context.Background(), store, "mem://b/f", tt.recorded, readAll)
		if err != nil || got != "hello" {
			t.Errorf("%s: OpenRecorded = %q, %v; want hello", tt.name, got, err)
			continue
		}
		f.Close()
		if store.sized != tt.wantSized || store.opened != tt.wantOpen {
			t.Errorf("%s: %d sized opens and %d opens, want %d and %d", tt.name, store.sized, store.opened, tt.wantSized, tt.wantOpen)
		}
	}
}

func TestOpenRecordedReturnsOtherFailuresAsTheyAre(t *testing.T) {
	t.Parallel()
	store := &misrecorded{Mem: fileio.NewMem()}
	store.Put("mem://b/f", []byte("hello"))
	bad := errors.New("bad footer")
	_, _, err := fileio.OpenRecorded(context.Background(), store, "mem://b/f", 5, func(fileio.File) (int, error) { return 0, bad })
	if !errors.Is(err, bad) || store.opened != 0 {
		t.Errorf("OpenRecorded = %v after %d opens; want the failure, no second open", err, store.opened)
	}
	if _, _, err := fileio.OpenRecorded(context.Background(), store, "mem://b/none", 5, func(fileio.File) (int, error) { return 0, nil }); !errors.Is(err, fileio.ErrNotFound) {
		t.Errorf("missing file: %v, want ErrNotFound", err)
	}
}

func TestOpenRecordedClosesTheFileWhenStartPanics(t *testing.T) {
	t.Parallel()
	store := &closeCounting{Mem: fileio.NewMem()}
	store.Put("mem://b/f", []byte("hello"))
	func() {
		defer func() { _ = recover() }()
		_, _, _ = fileio.OpenRecorded(context.Background(), store, "mem://b/f", 5, func(fileio.File) (int, error) { panic("decoder bug") })
	}()
	if store.open != 0 {
		t.Errorf("%d files left open after start panicked", store.open)
	}
}

// closeCounting counts the files it opened that are not closed yet.
type closeCounting struct {
	*fileio.Mem
	open int
}

func (c *closeCounting) Open(ctx context.Context, location string) (fileio.File, error) {
	f, err := c.Mem.Open(ctx, location)
	if err == nil {
		c.open++
		f = closing{f, c}
	}
	return f, err
}

type closing struct {
	fileio.File
	c *closeCounting
}

func (f closing) Close() error { f.c.open--; return f.File.Close() }

func (c *closeCounting) OpenSized(ctx context.Context, location string, _ int64) (fileio.File, error) {
	return c.Open(ctx, location)
}
