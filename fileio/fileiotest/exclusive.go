package fileiotest

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// CheckCreateExclusive checks fio's CreateExclusive at loc, which must not
// exist: writers racing for it get exactly one winner, whose bytes the
// file holds, and every other Close fails wrapping fileio.ErrExist; a
// later exclusive create fails the same way and leaves the file alone.
func CheckCreateExclusive(t *testing.T, fio fileio.FileIO, loc string) {
	t.Helper()
	ctx := context.Background()
	const writers = 4
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			w, err := fileio.CreateExclusive(ctx, fio, loc)
			if err == nil {
				_, err = io.WriteString(w, "writer "+string(rune('a'+i)))
				if cerr := w.Close(); err == nil {
					err = cerr
				}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Fatalf("writers %d and %d both won", won, i)
		case err == nil:
			won = i
		case !errors.Is(err, fileio.ErrExist):
			t.Fatalf("writer %d: %v, want ErrExist", i, err)
		}
	}
	if won < 0 {
		t.Fatalf("no writer won: %v", errs)
	}
	want := "writer " + string(rune('a'+won))
	w, err := fileio.CreateExclusive(ctx, fio, loc)
	if err == nil {
		io.WriteString(w, "late")
		err = w.Close()
	}
	if !errors.Is(err, fileio.ErrExist) {
		t.Fatalf("a late exclusive create: %v, want ErrExist", err)
	}
	if got, err := fileio.ReadAll(ctx, fio, loc, 100); err != nil || string(got) != want {
		t.Fatalf("file holds %q (%v), want the winner's %q", got, err, want)
	}
}
