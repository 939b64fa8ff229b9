package hive_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/hive"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	hmsserver "github.com/iceflight/iceflight/testkit/servers/hms"
)

// localIO is the FileIO the catalogs of these tests read with, as the
// configuration's storage registry builds it for local files.
func localIO(context.Context, fileio.Properties) (fileio.FileIO, error) {
	return fileio.NewResolver(), nil
}

// modes are the two ways a commit swaps a table's pointer.
var modes = []struct {
	name string
	lock string // PropLockEnabled
}{
	{"with locks", "true"},
	{"with Hive 4's compare-and-swap", "false"},
}

// open returns a catalog name on the metastore at uri with its warehouse
// in a folder of t, reading the metastore on every load; props add to or
// replace its properties.
func open(t *testing.T, name, uri string, props fileio.Properties) *hive.Catalog {
	t.Helper()
	all := fileio.Properties{hive.PropURI: uri, "warehouse": "file:" + t.TempDir()}
	for k, v := range props {
		all[k] = v
	}
	cat, err := hive.New(context.Background(), name, all, hive.WithFileIO(localIO), hive.WithRefreshInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

// TestOnMetastore runs the catalog's checks on one metastore they share,
// each in databases of its own; it keeps its database in PostgreSQL, as
// the checks race writers (see hmsserver.OnPostgres).
func TestOnMetastore(t *testing.T) {
	t.Parallel()
	srv := hmsserver.Start(t, hmsserver.OnPostgres())
	t.Logf("metastore started in %v", srv.StartUp)
	for _, m := range modes {
		t.Run("commits "+m.name, func(t *testing.T) {
			t.Parallel()
			cat := open(t, "lake", srv.URI, fileio.Properties{hive.PropLockEnabled: m.lock})
			checkCommits(t, cat, "commits_"+m.lock)
		})
		t.Run("writers of two processes "+m.name, func(t *testing.T) {
			t.Parallel()
			checkTwoProcesses(t, srv.URI, m.lock)
		})
	}
	t.Run("namespace properties", func(t *testing.T) {
		t.Parallel()
		committest.NamespaceProperties(t, context.Background(), open(t, "lake", srv.URI, nil), nil)
	})
	t.Run("tables of other formats", func(t *testing.T) {
		t.Parallel()
		checkOtherFormats(t, srv.URI)
	})
	t.Run("references", func(t *testing.T) {
		t.Parallel()
		checkReferences(t, srv)
	})
}

// checkCommits runs the shared checks of commits and of the operations
// the REST API adds on cat, in databases named after prefix.
func checkCommits(t *testing.T, cat *hive.Catalog, prefix string) {
	ctx := context.Background()
	db, other := prefix, prefix+"_other"
	for _, ns := range []string{db, other} {
		if err := cat.CreateNamespace(ctx, []string{ns}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := cat.CreateNamespace(ctx, []string{db}, nil); !errors.Is(err, catalog.ErrNamespaceExists) {
		t.Fatalf("create the database again: %v", err)
	}
	id := catalog.Identifier{db, "t"}
	created, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	// The table goes in its database's folder, <warehouse>/<db>.db/<table>.
	if !strings.HasSuffix(created.Metadata.Location, "/"+db+".db/t") || !strings.Contains(created.MetadataLocation, "/metadata/00000-") {
		t.Fatalf("created at %s, metadata %s", created.Metadata.Location, created.MetadataLocation)
	}
	load := func() *iceberg.TableMetadata {
		tbl, err := cat.LoadTable(ctx, id)
		if err != nil {
			t.Error(err)
			return nil
		}
		return tbl.Metadata
	}
	committest.Race(t, ctx, cat, id, 3, 8, load)
	committest.NoChange(t, ctx, cat, id)
	tbl, err := cat.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tbl.MetadataLocation, "/metadata/00003-") || len(tbl.Metadata.MetadataLog) != 3 {
		t.Fatalf("after three commits: %s, metadata-log %v", tbl.MetadataLocation, tbl.Metadata.MetadataLog)
	}
	// The losers removed the files they wrote: one per version is left.
	p, err := fileio.LocalPath(tbl.Metadata.Location)
	if err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(filepath.Join(p, "metadata")); err != nil || len(entries) != 4 {
		t.Fatalf("metadata folder holds %d files (%v), want 4", len(entries), err)
	}
	if err := cat.DropNamespace(ctx, []string{db}); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Fatalf("drop a database with a table: %v", err)
	}
	if err := cat.DropTable(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	// The metastore, not the catalog, finds the database missing here.
	if _, err := cat.RegisterTable(ctx, catalog.Identifier{prefix + "_nowhere", "t"}, tbl.MetadataLocation); !errors.Is(err, catalog.ErrNamespaceNotFound) {
		t.Fatalf("register into a database that does not exist: %v", err)
	}

	t.Run("lifecycle", func(t *testing.T) { committest.Lifecycle(t, ctx, cat, []string{db}, []string{prefix + "_nowhere"}) })
	t.Run("rename", func(t *testing.T) { committest.Rename(t, ctx, cat, []string{db}, []string{other}) })
	t.Run("register", func(t *testing.T) { committest.Register(t, ctx, cat, []string{db}, t.TempDir()) })
	for _, ns := range []string{db, other} {
		if err := cat.DropNamespace(ctx, []string{ns}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cat.DropNamespace(ctx, []string{db}); !errors.Is(err, catalog.ErrNamespaceNotFound) {
		t.Fatalf("drop the database again: %v", err)
	}
}

// checkTwoProcesses has the writers of two catalogs, as two processes
// would (each its own connections and its own queue of commits), append to
// one table at once, each retrying on a conflict until its commits are
// in: the table's history must hold every one of them.
func checkTwoProcesses(t *testing.T, uri, lock string) {
	ctx := context.Background()
	props := fileio.Properties{hive.PropLockEnabled: lock, hive.PropLockCheckMinWait: "0.01", hive.PropLockCheckRetries: "50"}
	cats := []*hive.Catalog{open(t, "lake", uri, props), open(t, "lake", uri, props)}
	db := "twoproc_" + lock
	if err := cats[0].CreateNamespace(ctx, []string{db}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{db, "t"}
	if _, err := cats[0].CreateTable(ctx, id, committest.NewMetadata(t, "", nil)); err != nil {
		t.Fatal(err)
	}
	const writers, commits = 3, 4
	errs := make(chan error, 2*writers)
	for p, cat := range cats {
		for w := range writers {
			go func() {
				errs <- appendRetrying(ctx, cat, id, int64(100*(p*writers+w+1)), commits)
			}()
		}
	}
	for range 2 * writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	tbl, err := cats[1].LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for snap := tbl.Metadata.CurrentSnapshot(); snap != nil; {
		seen[snap.SnapshotID] = true
		if snap.ParentSnapshotID == nil {
			break
		}
		snap, _ = tbl.Metadata.SnapshotByID(*snap.ParentSnapshotID)
	}
	for p := range 2 {
		for w := range writers {
			for c := range commits {
				if id := int64(100*(p*writers+w+1) + c); !seen[id] {
					t.Errorf("snapshot %d of writer %d.%d is not in the table's history (%d snapshots)", id, p, w, len(seen))
				}
			}
		}
	}
}

// appendRetrying commits n appends (snapshots first, first+1 ...) to id
// through cat, each on freshly loaded metadata and tried again on a
// conflict, as a writer does.
func appendRetrying(ctx context.Context, cat *hive.Catalog, id catalog.Identifier, first int64, n int) error {
	for i := range n {
		for attempt := 0; ; attempt++ {
			tbl, err := cat.LoadTable(ctx, id)
			if err != nil {
				return err
			}
			reqs, updates := committest.AppendUpdates(tbl.Metadata, first+int64(i))
			_, err = cat.CommitTable(ctx, id, reqs, updates)
			if err == nil {
				break
			}
			if !errors.Is(err, catalog.ErrCommitConflict) || attempt > 200 {
				return fmt.Errorf("commit %d of writer %d, attempt %d: %w", i, first, attempt, err)
			}
			time.Sleep(time.Duration(attempt%5) * 5 * time.Millisecond)
		}
	}
	return nil
}
