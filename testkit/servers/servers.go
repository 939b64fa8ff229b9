// Package servers starts the real storage and catalog servers the tests
// run against (an S3 server, fake-gcs-server, Azurite, HDFS, the Iceberg
// REST fixture, PostgreSQL) on loopback, one package per server below this
// one, and tears them down when the test ends. The make targets in mk/
// install each server's program and name it in an environment variable.
package servers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"
)

// RequireEnv is the environment variable that turns a missing server from
// a skip into a failure; .ci/run sets it, so CI never passes by skipping.
const RequireEnv = "ICEFLIGHT_REQUIRE_SERVERS"

// Program returns the path in the environment variable env, which the make
// target named by target sets. When it is unset, the test is skipped with
// a message saying how to run it, or fails if RequireEnv is set.
func Program(t testing.TB, env, target string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		Missing(t, fmt.Sprintf("%s is not set: run `make %s` (or make test), which installs the server and sets it", env, target))
	}
	return p
}

// Missing skips t with why, or fails it when RequireEnv is set.
func Missing(t testing.TB, why string) {
	t.Helper()
	if v, _ := strconv.ParseBool(os.Getenv(RequireEnv)); v {
		t.Fatal(why)
	}
	t.Skip(why)
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// WaitDial waits until addr accepts TCP connections, exited is closed (the
// server's process ended; nil: never), or timeout passes.
func WaitDial(ctx context.Context, addr string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("server exited before listening on %s", addr)
		default:
		}
		c, err := (&net.Dialer{Timeout: 200 * time.Millisecond}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("timed out waiting for " + addr)
}
