package tablecheck

import (
	"errors"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// Server is a storage server a test started and can stop and start again.
type Server interface {
	Kill()
	Restart(t testing.TB)
}

// CheckFaults checks what a scan of tb through fio meets when storage
// fails. s stopped after the first batch: the read ends with an error
// wrapping fileio.ErrUnavailable that names a file below tb.Root (after the
// back end's retries), its memory released. s restarted: the same plan
// reads equal to the oracle. A data file removed (by remove, given its
// location) after planning: the read fails with fileio.ErrNotFound naming
// it.
func CheckFaults(t *testing.T, fio fileio.FileIO, tb *Table, s Server, remove func(location string)) {
	t.Helper()
	stopped := false
	_, err := tb.Read(t, fio, func() {
		if !stopped {
			s.Kill()
			stopped = true
		}
	})
	if !errors.Is(err, fileio.ErrUnavailable) || !strings.Contains(err.Error(), tb.Root+"/") {
		t.Fatalf("scan with the server stopped = %v, want ErrUnavailable naming a file below %s", err, tb.Root)
	}
	t.Logf("the cut scan says: %v", err)
	s.Restart(t)
	got, err := tb.Read(t, fio, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb.Check(t, got)

	files := tb.DataFiles()
	gone := files[len(files)-1]
	remove(gone)
	if _, err := tb.Read(t, fio, nil); !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), gone) {
		t.Fatalf("scan with %s deleted = %v, want ErrNotFound naming it", gone, err)
	}
}
