// Package postgres starts a PostgreSQL server for a test: initdb into a
// fresh folder, then postgres on a free loopback port, stopped and removed
// when the test ends. The programs come from Debian's postgresql package,
// whose bin folder `make servers-sql` names in POSTGRES_BIN.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iceflight/iceflight/testkit/servers"
)

// Env names the folder holding initdb and postgres.
const Env = "POSTGRES_BIN"

// makeTarget installs PostgreSQL and sets Env.
const makeTarget = "servers-sql"

// Server is a running PostgreSQL server with one superuser.
type Server struct {
	// Addr is the server's host:port on 127.0.0.1.
	Addr string
	// User and Password are the superuser's, Database the database to use.
	User, Password, Database string

	bin, data, sockets string
	cred               *syscall.Credential
	cmd                *exec.Cmd
	exited             chan struct{}
	log                string
}

// Start starts a server for t and stops it when t ends. PostgreSQL refuses
// to run as root, so when the test runs as root the server runs as the
// user postgres (Debian's package makes it) or, failing that, nobody.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := servers.Program(t, Env, makeTarget)
	for _, p := range []string{"initdb", "postgres", "pg_isready"} {
		if _, err := os.Stat(filepath.Join(bin, p)); err != nil {
			servers.Missing(t, fmt.Sprintf("%s=%s has no %s: run `make %s`", Env, bin, p, makeTarget))
		}
	}
	cred, err := serverUser()
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parents are private to root, which the server's
	// user could not enter.
	base, err := os.MkdirTemp("", "iceflight-postgres-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	s := &Server{User: "iceflight", Password: "iceflight-test-pw", Database: "postgres", log: filepath.Join(base, "server.log")}
	pwfile := filepath.Join(base, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cred != nil {
		if err := chownAll(base, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(base, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", s.User, "--pwfile="+pwfile,
		"--auth=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s.bin, s.data, s.sockets, s.cred = bin, data, base, cred
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(servers.FreePort(t)))
	t.Cleanup(s.Stop)
	s.run(t)
	return s
}

// run starts postgres on s's data folder and address and waits until it
// listens.
func (s *Server) run(t testing.TB) {
	t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	// fsync off: a test server's data need not survive a crash.
	s.cmd = exec.Command(filepath.Join(s.bin, "postgres"), "-D", s.data, "-h", "127.0.0.1", "-p", port,
		"-k", s.sockets, "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=40")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start postgres: %v", err)
	}
	exited := make(chan struct{})
	s.exited = exited
	go func(cmd *exec.Cmd) {
		cmd.Wait()
		close(exited)
	}(s.cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := servers.WaitDial(ctx, s.Addr, exited, 30*time.Second); err != nil {
		s.Stop()
		t.Fatalf("postgres: %v\n%s", err, s.Log())
	}
	// A server that listens may still be starting up and refuse sessions
	// (57P03): pg_isready says when it accepts them.
	for {
		ready := exec.CommandContext(ctx, filepath.Join(s.bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", port)
		if ready.Run() == nil {
			return
		}
		select {
		case <-exited:
			t.Fatalf("postgres exited while starting\n%s", s.Log())
		case <-ctx.Done():
			s.Stop()
			t.Fatalf("postgres accepts no session after 30 s\n%s", s.Log())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Restart starts a stopped server again on the same address and data, as
// an operator bringing a database back would.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	s.run(t)
}

// URI returns the server's database as PyIceberg's SqlCatalog names it.
func (s *Server) URI() string {
	u := url.URL{Scheme: "postgresql+psycopg2", User: url.UserPassword(s.User, s.Password), Host: s.Addr, Path: "/" + s.Database}
	return u.String()
}

// JDBC returns the server's database as Iceberg Java's JdbcCatalog names
// it; the credentials go in jdbc.user and jdbc.password.
func (s *Server) JDBC() string { return "jdbc:postgresql://" + s.Addr + "/" + s.Database }

// Stop shuts the server down (fast shutdown: connections are cut) and
// waits for it to exit. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// Log returns what the server wrote to its log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// serverUser returns the credential the server runs under: nil (the
// test's own) unless the test runs as root.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var errs []string
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("user %s: %w", name, err)
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("postgres refuses to run as root and no other user was found: %s", strings.Join(errs, "; "))
}

// chownAll gives dir and everything in it to uid and gid.
func chownAll(dir string, uid, gid int) error {
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}
