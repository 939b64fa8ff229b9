package fileiotest

import (
	"context"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// CheckInfo checks that the file at loc, opened by Open and by OpenSized
// with its size, and each also behind fileio.Cancelable, reports want as
// its Info once one byte was read: the store's own answer to a request for
// the file's attributes, which the caller asks without fileio.
func CheckInfo(t *testing.T, fio fileio.FileIO, loc string, want fileio.Info) {
	t.Helper()
	ctx := context.Background()
	probe, err := fio.Open(ctx, loc)
	if err != nil {
		t.Fatalf("Open %s: %v", loc, err)
	}
	size := probe.Size()
	probe.Close()
	for _, c := range []struct {
		name string
		fio  fileio.FileIO
		size int64
	}{
		{"Open", fio, -1},
		{"OpenSized", fio, size},
		{"Cancelable Open", fileio.Cancelable(fio), -1},
		{"Cancelable OpenSized", fileio.Cancelable(fio), size},
	} {
		f, err := fileio.OpenSized(ctx, c.fio, loc, c.size)
		if err != nil {
			t.Fatalf("%s %s: %v", c.name, loc, err)
		}
		if _, err := f.ReadAt(make([]byte, 1), 0); err != nil {
			f.Close()
			t.Fatalf("%s %s: read: %v", c.name, loc, err)
		}
		got, ok := fileio.InfoOf(f)
		f.Close()
		if !ok || !got.ModTime.Equal(want.ModTime) || got.ETag != want.ETag {
			t.Errorf("%s %s: InfoOf = %v, %v; the store says %v", c.name, loc, got, ok, want)
		}
	}
}
