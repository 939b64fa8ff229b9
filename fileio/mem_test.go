package fileio

import (
	"context"
	"errors"
	"io/fs"
	"testing"
)

func TestMem(t *testing.T) {
	t.Parallel()
	m := NewMem()
	data := []byte("abc")
	m.Put("s3://b/k", data)
	data[0] = 'X' // Put keeps a copy.

	f, err := m.Open(context.Background(), "s3://b/k")
	if err != nil {
		t.Fatal(err)
	}
	m.Put("s3://b/k", []byte("replaced"))
	buf := make([]byte, 3)
	if _, err := f.ReadAt(buf, 0); err != nil || string(buf) != "abc" || f.Size() != 3 {
		t.Errorf("open file read %q, %v, size %d; want abc, nil, 3", buf, err, f.Size())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(buf, 0); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadAt after Close: %v", err)
	}
	if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}

	if _, err := m.Open(context.Background(), "s3://b/other"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Open(ctx, "s3://b/k"); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}
