package hdfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/iceflight/iceflight/fileio"
)

func TestParseLocation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		cfg      Config
		location string
		addrs    []string
		path     string
		fails    bool
	}{
		{"an authority with a port is the NameNode", Config{}, "hdfs://nn1:9000/wh/t/f.parquet", []string{"nn1:9000"}, "/wh/t/f.parquet", false},
		{"an authority without a port gets the default port", Config{}, "hdfs://nn1/wh", []string{"nn1:8020"}, "/wh", false},
		{"an authority without a port gets hdfs.port", Config{Port: 9001}, "hdfs://nn1/wh", []string{"nn1:9001"}, "/wh", false},
		{"an empty authority is the configured host", Config{Host: "nn2", Port: 9002}, "hdfs:///wh/x", []string{"nn2:9002"}, "/wh/x", false},
		{"a nameservice is the configured host list", Config{Host: "nn1:8020,nn2"}, "hdfs://prod/wh", []string{"nn1:8020", "nn2:8020"}, "/wh", false},
		{"a port in the location wins over the configured host", Config{Host: "nn2"}, "hdfs://nn1:9000/wh", []string{"nn1:9000"}, "/wh", false},
		{"an empty authority without a configured host fails", Config{}, "hdfs:///wh", nil, "", true},
		{"another scheme fails", Config{}, "s3://b/k", nil, "", true},
		{"escaped names stay as written", Config{}, "hdfs://nn:1/t/h=17%3A00/f", []string{"nn:1"}, "/t/h=17%3A00/f", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New(c.cfg).parse(c.location)
			if c.fails {
				if err == nil {
					t.Fatalf("parse %s: no error", c.location)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got.addrs) != fmt.Sprint(c.addrs) || got.path != c.path {
				t.Errorf("parse %s = %v %q, want %v %q", c.location, got.addrs, got.path, c.addrs, c.path)
			}
		})
	}
}

func TestConfigFromPyIcebergProperties(t *testing.T) {
	t.Parallel()
	cfg, err := ConfigFromProperties(fileio.Properties{"hdfs.host": "nn", "hdfs.port": "9000", "hdfs.user": "etl", "hdfs.kerberos_ticket": "/tmp/krb5cc_1"})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Host: "nn", Port: 9000, User: "etl", KerberosTicket: "/tmp/krb5cc_1"}
	if cfg != want {
		t.Errorf("config = %+v, want %+v", cfg, want)
	}
	if _, err := ConfigFromProperties(fileio.Properties{"hdfs.port": "80x"}); err == nil {
		t.Error("a port that is no number: no error")
	}
	if cfg, _ := ConfigFromProperties(fileio.Properties{"hdfs.host": "default"}); cfg.Host != "" {
		t.Errorf(`host "default" = %q, want none (PyArrow's fs.defaultFS)`, cfg.Host)
	}
}

func TestTransientErrorsAreTheOnesThatMayPass(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		want bool
	}{
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{io.ErrUnexpectedEOF, true},
		{errors.New("no available namenodes: dial tcp 127.0.0.1:1: connect: connection refused"), true},
		{os.ErrNotExist, false},
		{os.ErrPermission, false},
		{fileio.ErrSizeMismatch, false},
		{nil, false},
	}
	for _, c := range cases {
		if got := transient(c.err); got != c.want {
			t.Errorf("transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestWrapMarksTheSentinelAndNamesNoSecret(t *testing.T) {
	t.Parallel()
	f := New(Config{User: "etl", KerberosTicket: "/tmp/krb5cc_7"})
	tg := target{addrs: []string{"nn:8020"}, nn: "nn:8020"}
	cases := []struct {
		err  error
		want error
	}{
		{os.ErrNotExist, fileio.ErrNotFound},
		{os.ErrPermission, fileio.ErrPermissionDenied},
		{syscall.ECONNREFUSED, fileio.ErrUnavailable},
	}
	for _, c := range cases {
		err := f.wrap("open", "hdfs://nn:8020/x", tg, &os.PathError{Op: "open", Path: "/x", Err: c.err})
		if !errors.Is(err, c.want) {
			t.Errorf("wrap(%v) = %v, want %v", c.err, err, c.want)
		}
		if !strings.Contains(err.Error(), "hdfs://nn:8020/x") {
			t.Errorf("wrap(%v) = %v: the location is not named", c.err, err)
		}
	}
	msg := f.wrap("open", "hdfs://nn:8020/x", tg, os.ErrPermission).Error()
	if !strings.Contains(msg, "nn:8020") || !strings.Contains(msg, "/tmp/krb5cc_7") {
		t.Errorf("refusal %q names neither the NameNode nor the credential source", msg)
	}
}

func TestKerberosWithoutATicketCacheFailsNamingIt(t *testing.T) {
	t.Parallel()
	missing := t.TempDir() + "/krb5cc_none"
	_, err := New(Config{KerberosTicket: missing}).Open(t.Context(), "hdfs://127.0.0.1:1/x")
	if err == nil || !strings.Contains(err.Error(), "ticket cache "+missing) {
		t.Errorf("Open with a missing ticket cache = %v, want an error naming %s", err, missing)
	}
}

// Not parallel: it holds every request slot of the process.
func TestCallsWaitForARequestSlotWithinTheirContext(t *testing.T) {
	for range MaxRequests {
		requests <- struct{}{}
	}
	defer func() {
		for range MaxRequests {
			<-requests
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	// Port 1 answers nothing: had the call not waited, its one attempt
	// would fail with a connection refused, not the context's deadline.
	_, err := New(Config{Attempts: 1}).Open(ctx, "hdfs://127.0.0.1:1/x")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Open with every slot taken = %v, want the context's deadline", err)
	}
}

// Not parallel, so that goleak sees only this test's goroutines.
func TestAServerThatStopsAnsweringIsUnavailableAfterBoundedAttempts(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	// A NameNode that accepts connections and then says nothing, as a
	// hung JVM does.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	accepted := make(chan int, 16)
	conns.Go(func() {
		n := 0
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n++
			accepted <- n
			conns.Go(func() {
				_, _ = io.Copy(io.Discard, c)
				c.Close()
			})
		}
	})
	fio := New(Config{Attempts: 2, Backoff: 10 * time.Millisecond, Timeout: 200 * time.Millisecond})
	loc := "hdfs://" + l.Addr().String() + "/wh/t/f.parquet"
	_, err = fio.Open(t.Context(), loc)
	if !errors.Is(err, fileio.ErrUnavailable) || !strings.Contains(err.Error(), l.Addr().String()) {
		t.Errorf("Open on a silent NameNode = %v, want ErrUnavailable naming it", err)
	}
	if got := len(accepted); got != 2 {
		t.Errorf("%d connections, want one per attempt (2)", got)
	}
	if err := fio.Close(); err != nil {
		t.Error(err)
	}
	l.Close()
	conns.Wait()
	goleak.VerifyNone(t, ignore)
}
