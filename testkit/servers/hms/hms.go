// Package hms starts a standalone Hive Metastore (tools/hms: the metastore
// 4.0.0 over an embedded Derby database or a PostgreSQL one, plain Thrift,
// no SASL) on loopback for a test, and kills it when the test ends. `make
// servers-hms` builds it and names its launcher in HMS_BIN.
package hms

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/servers/postgres"
)

// Env names the launcher of tools/hms, set by `make servers-hms`.
const Env = "HMS_BIN"

// Server is a running metastore.
type Server struct {
	// URI is the metastore's Thrift address, thrift://127.0.0.1:PORT.
	URI string
	// Dir is the folder of its Derby database and of its warehouse roots:
	// a database created without a location is placed in
	// Dir/external/<name>.db.
	Dir string
	// StartUp is how long its first start took, from exec to accepting
	// connections (a new Derby database is created and its schema
	// loaded first).
	StartUp time.Duration

	proc *servers.Process
}

// Option configures a metastore Start starts.
type Option func(*options)

type options struct{ postgres bool }

// OnPostgres keeps the metastore's database in a PostgreSQL server of its
// own (testkit/servers/postgres) instead of embedded Derby. Hive 4.0's
// metastore deadlocks on Derby under concurrent commits (its transaction
// handler's lock() and check_lock() wait on each other, as do concurrent
// alter_table calls of one table, until Derby's 60 s lock timeout), so
// the tests that race writers need it.
func OnPostgres() Option { return func(o *options) { o.postgres = true } }

// Start starts a metastore with an empty database (embedded Derby in a
// temporary folder of t, unless OnPostgres) and kills it when t ends.
// Without the launcher the test is skipped (or fails under
// servers.RequireEnv).
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	bin := servers.Program(t, Env, "servers-hms")
	port := servers.FreePort(t)
	s := &Server{URI: "thrift://127.0.0.1:" + strconv.Itoa(port), Dir: t.TempDir()}
	args := []string{"--dir", s.Dir, "--port", strconv.Itoa(port)}
	if o.postgres {
		pg := postgres.Start(t)
		args = append(args, "--db-url", pg.JDBC(), "--db-user", pg.User, "--db-password", pg.Password)
	}
	var pipes []*os.File
	t.Cleanup(func() {
		for _, f := range pipes {
			f.Close()
		}
	})
	s.proc = servers.NewProcess(t, "hive metastore", "127.0.0.1:"+strconv.Itoa(port), func() *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Env = servers.ProgramEnv(s.Dir)
		// The metastore exits when its standard input ends: this test
		// process holds the pipe's other end, so a test killed before
		// its cleanup leaves no metastore behind.
		if r, w, err := os.Pipe(); err == nil {
			pipes = append(pipes, r, w)
			cmd.Stdin = r
		}
		return cmd
	})
	begin := time.Now()
	s.proc.Start(t)
	s.StartUp = time.Since(begin)
	return s
}

// Kill ends the metastore at once (SIGKILL), as a crash, and waits for it.
func (s *Server) Kill() { s.proc.Kill() }

// Restart starts the metastore again after Kill, on the same port and
// with the databases and tables it held.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.proc.Start(t)
}

// Output returns what the metastore printed so far, for failure messages.
func (s *Server) Output() string { return s.proc.Output() }

// External returns the folder a database name gets when it is created
// without a location.
func (s *Server) External(name string) string {
	return filepath.Join(s.Dir, "external", name+".db")
}
