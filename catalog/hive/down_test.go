package hive_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/hive"
	"github.com/iceflight/iceflight/fileio"
	hmsserver "github.com/iceflight/iceflight/testkit/servers/hms"
)

// A metastore that dies fails every call fast as unavailable, with no
// hang, and the catalog serves again once it is back.
func TestMetastoreDown(t *testing.T) {
	t.Parallel()
	srv := hmsserver.Start(t)
	ctx := context.Background()
	cat := open(t, "lake", srv.URI, nil)
	if err := cat.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{"db", "t"}
	if _, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil)); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	committest.Unreachable(t, ctx, cat, id, 5*time.Second)
	begin := time.Now()
	if _, err := cat.LoadNamespace(ctx, []string{"db"}); !errors.Is(err, catalog.ErrCatalogUnavailable) || time.Since(begin) > 5*time.Second {
		t.Fatalf("load a namespace with the metastore down: %v after %v", err, time.Since(begin))
	}
	srv.Restart(t)
	if _, err := cat.LoadTable(ctx, id); err != nil {
		t.Fatalf("load after the metastore came back: %v", err)
	}
}

// A metastore that accepts connections and never answers fails a call at
// its deadline, not later.
func TestMetastoreSilent(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	cat := open(t, "lake", "thrift://"+l.Addr().String(), fileio.Properties{hive.PropSocketTimeout: "1s"})
	begin := time.Now()
	_, err = cat.LoadTable(context.Background(), catalog.Identifier{"db", "t"})
	if !errors.Is(err, catalog.ErrCatalogUnavailable) || time.Since(begin) > 10*time.Second {
		t.Fatalf("load from a silent metastore: %v after %v", err, time.Since(begin))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	begin = time.Now()
	if _, err := open(t, "lake", "thrift://"+l.Addr().String(), nil).ListTables(ctx); err == nil || time.Since(begin) > 2*time.Second {
		t.Fatalf("list with a short deadline: %v after %v", err, time.Since(begin))
	}
}
