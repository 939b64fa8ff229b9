package fileio_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"go.uber.org/goleak"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
)

// TestMain checks that no abandoned call outlives the package's tests once
// the storage it waited on is released.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCancelableGivesUpOnStuckStorage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts []fileiotest.BlockingOption
	}{
		{"an Open that blocks returns once its context is done", nil},
		{"a ReadAt that blocks returns once the Open's context is done", []fileiotest.BlockingOption{fileiotest.OnRead()}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := fileio.NewMem()
			mem.Put("s3://b/stuck", []byte("never read"))
			stuck := fileiotest.NewBlocking(mem, func(string) bool { return true }, tc.opts...)
			t.Cleanup(stuck.Release)
			fio := fileio.Cancelable(stuck)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				f, err := fio.Open(ctx, "s3://b/stuck")
				if err == nil {
					defer f.Close()
					_, err = f.ReadAt(make([]byte, 4), 0)
				}
				errc <- err
			}()
			<-stuck.Entered()
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("stuck call returned %v, want context.Canceled", err)
			}
		})
	}
}

func TestCancelableReadsWhatTheFileHolds(t *testing.T) {
	t.Parallel()
	// Over two read chunks, so pieces are joined at the right offsets.
	data := make([]byte, 2<<20+12345)
	for i := range data {
		data[i] = byte(i * 7)
	}
	mem := fileio.NewMem()
	mem.Put("mem://f", data)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cases := []struct {
		name     string
		off, n   int64
		wantN    int
		wantEOF  bool
		fileSize int64
	}{
		{"a read within one chunk", 10, 100, 100, false, 0},
		{"a read across chunks", 1<<20 - 3, 1<<20 + 10, 1<<20 + 10, false, 0},
		{"a read past the end stops with io.EOF", int64(len(data)) - 5, 10, 5, true, 0},
	}
	f, err := fileio.Cancelable(mem).Open(ctx, "mem://f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("Size %d, want %d", f.Size(), len(data))
	}
	for _, tc := range cases {
		p := make([]byte, tc.n)
		n, err := f.ReadAt(p, tc.off)
		if n != tc.wantN || (err == io.EOF) != tc.wantEOF || (err != nil && err != io.EOF) {
			t.Errorf("%s: ReadAt = %d, %v; want %d bytes, EOF %v", tc.name, n, err, tc.wantN, tc.wantEOF)
			continue
		}
		if !bytes.Equal(p[:n], data[tc.off:tc.off+int64(n)]) {
			t.Errorf("%s: bytes differ from the file's", tc.name)
		}
	}
}

func TestAwaitReturnsOnceItsContextIsDone(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() { <-started; cancel() }()
	_, err := fileio.Await(ctx, func() (int, error) {
		close(started)
		<-release
		return 1, nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Await = %v, want context.Canceled", err)
	}
	if v, err := fileio.Await(context.Background(), func() (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Fatalf("Await without a deadline = %d, %v", v, err)
	}
}
