package s3

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers/versitygw"
)

// TestCreateExclusiveOneWinner races writers for one key on versitygw,
// by single PUT and by multipart upload: exactly one may win, the others
// fail wrapping fileio.ErrExist, and the object is the winner's.
func TestCreateExclusiveOneWinner(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"taken": body(3)})
	fs, _ := testIO(t, srv, nil, WithPartSize(minPartSize))
	ctx := context.Background()
	w, err := fs.CreateExclusive(ctx, "s3://lake/taken")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("new"))
	if err := w.Close(); !errors.Is(err, fileio.ErrExist) {
		t.Fatalf("over an existing object: %v, want ErrExist", err)
	}
	for _, size := range []int{100, minPartSize + 10} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			loc := fmt.Sprintf("s3://lake/race/%d", size)
			const writers = 4
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() {
					w, err := fs.CreateExclusive(ctx, loc)
					if err == nil {
						data := body(size)
						data[0] = byte(i)
						_, err = w.Write(data)
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
					t.Fatalf("writer %d: %v", i, err)
				}
			}
			if won < 0 {
				t.Fatalf("no writer won: %v", errs)
			}
			got, err := fileio.ReadAll(ctx, fs, loc, int64(size))
			if err != nil || len(got) != size || got[0] != byte(won) {
				t.Fatalf("object is not the winner's (%v)", err)
			}
		})
	}
}
