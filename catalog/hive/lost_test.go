package hive_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/hive"
	"github.com/iceflight/iceflight/catalog/hive/hms"
	"github.com/iceflight/iceflight/fileio"
	hmsserver "github.com/iceflight/iceflight/testkit/servers/hms"
)

// cutProxy forwards connections to a metastore, and cuts the first one
// that sends a given call right after the call: having forwarded it to
// the metastore (which then makes the change), or not.
type cutProxy struct {
	net.Listener
	target  string
	call    []byte
	forward bool

	mu   sync.Mutex
	done bool
}

func startCutProxy(t *testing.T, target, call string, forward bool) *cutProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{Listener: l, target: target, call: []byte(call), forward: forward}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

// cut reports whether this is the first time the call is seen.
func (p *cutProxy) cut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	first := !p.done
	p.done = true
	return first
}

func (p *cutProxy) serve(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	go func() { _, _ = io.Copy(client, server) }()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			// The client writes each call in one piece: the call's name
			// in a chunk marks it.
			if bytes.Contains(buf[:n], p.call) && p.cut() {
				if p.forward {
					_, _ = server.Write(buf[:n])
					// Let the metastore make the change before the
					// connection goes.
					time.Sleep(time.Second)
				}
				return
			}
			if _, err := server.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// A commit whose connection breaks after the alter was sent: when the
// metastore made the change, a fresh read finds the table at the new file
// and the commit succeeds; when it did not, the outcome is unknown and the
// new file stays, since the catalog cannot tell.
func TestReplyLostAfterAlter(t *testing.T) {
	t.Parallel()
	srv := hmsserver.Start(t)
	addr := strings.TrimPrefix(srv.URI, "thrift://")
	ctx := context.Background()
	setup := open(t, "lake", srv.URI, nil)
	for _, tc := range []struct {
		name    string
		forward bool
	}{{"the metastore got it", true}, {"the metastore never got it", false}} {
		t.Run(tc.name, func(t *testing.T) {
			db := "lost_" + map[bool]string{true: "forwarded", false: "swallowed"}[tc.forward]
			if err := setup.CreateNamespace(ctx, []string{db}, nil); err != nil {
				t.Fatal(err)
			}
			id := catalog.Identifier{db, "t"}
			created, err := setup.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
			if err != nil {
				t.Fatal(err)
			}
			proxy := startCutProxy(t, addr, "alter_table_with_environment_context", tc.forward)
			cat := open(t, "lake", "thrift://"+proxy.Addr().String(), nil)
			reqs, updates := committest.AppendUpdates(created.Metadata, 5)
			_, err = cat.CommitTable(ctx, id, reqs, updates)
			after, lerr := setup.LoadTable(ctx, id)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if tc.forward {
				if err != nil || after.Metadata.CurrentSnapshotID == nil || *after.Metadata.CurrentSnapshotID != 5 {
					t.Fatalf("commit: %v; the table is at %s", err, after.MetadataLocation)
				}
				return
			}
			if !errors.Is(err, catalog.ErrCommitStateUnknown) {
				t.Fatalf("commit: %v, want an unknown outcome", err)
			}
			if after.MetadataLocation != created.MetadataLocation {
				t.Fatalf("the table moved to %s", after.MetadataLocation)
			}
			p, _ := fileio.LocalPath(created.Metadata.Location + "/metadata")
			if entries, err := os.ReadDir(p); err != nil || len(entries) != 2 {
				t.Fatalf("the metadata folder holds %d files (%v), want the new one kept beside the first", len(entries), err)
			}
		})
	}
}

// A lock another writer holds past the configured checks makes the
// commit a conflict, leaves the table as it was, and releases nothing it
// did not take; once the lock goes, the commit passes.
func TestLockHeldElsewhere(t *testing.T) {
	t.Parallel()
	srv := hmsserver.Start(t)
	ctx := context.Background()
	cat := open(t, "lake", srv.URI, fileio.Properties{hive.PropLockCheckMinWait: "0.05", hive.PropLockCheckRetries: "3"})
	if err := cat.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{"db", "t"}
	created, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	pool := hms.NewPool(hms.Config{Addrs: []string{strings.TrimPrefix(srv.URI, "thrift://")}})
	defer pool.Close()
	var held *hms.LockResponse
	if err := pool.Do(ctx, func(c *hms.Client) (err error) {
		held, err = c.Lock(ctx, &hms.LockRequest{User: "other", Hostname: "elsewhere",
			Components: []hms.LockComponent{{Type: hms.LockExclusive, Level: hms.LockLevelTable, DBName: "db", TableName: "t"}}})
		return err
	}); err != nil || held.State != hms.LockAcquired {
		t.Fatalf("the other writer's lock: %+v, %v", held, err)
	}
	reqs, updates := committest.AppendUpdates(created.Metadata, 8)
	begin := time.Now()
	_, err = cat.CommitTable(ctx, id, reqs, updates)
	if !errors.Is(err, catalog.ErrCommitConflict) || time.Since(begin) > 10*time.Second {
		t.Fatalf("commit under another writer's lock: %v after %v, want a conflict", err, time.Since(begin))
	}
	if tbl, err := cat.LoadTable(ctx, id); err != nil || tbl.MetadataLocation != created.MetadataLocation {
		t.Fatalf("after the refused commit: %v, %v", tbl, err)
	}
	var state *hms.LockResponse
	if err := pool.Do(ctx, func(c *hms.Client) (err error) { state, err = c.CheckLock(ctx, held.LockID); return err }); err != nil || state.State != hms.LockAcquired {
		t.Fatalf("the other writer's lock after the refused commit: %+v, %v", state, err)
	}
	if err := pool.Do(ctx, func(c *hms.Client) error { return c.Unlock(ctx, held.LockID) }); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CommitTable(ctx, id, reqs, updates); err != nil {
		t.Fatalf("commit once the lock is gone: %v", err)
	}
}
