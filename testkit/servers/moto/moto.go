// Package moto starts moto's server mode, the AWS service emulator, on a
// free loopback port for one test; the tests of the Glue catalog talk to
// its Glue API. mk/glue.mk installs the program and names it in MOTO_BIN.
package moto

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers"
)

// Env names the environment variable that holds moto_server's path.
const Env = "MOTO_BIN"

// Region is the region the tests address; moto keeps one Glue catalog per
// account and region.
const Region = "us-east-1"

// Server is a running moto server.
type Server struct {
	// Endpoint is the server's URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKey and SecretKey are keys any client may sign with: moto
	// accepts every key unless started with auth (StartWithAuth).
	AccessKey, SecretKey string

	proc *servers.Process
}

// Option adjusts how Start runs the server.
type Option func(*options)

type options struct {
	env []string
}

// WithAuth makes the server check the credentials of every request after
// the first free ones against its own IAM users (moto's
// INITIAL_NO_AUTH_ACTION_COUNT): with none created, every key is refused,
// as AWS refuses keys it does not know.
func WithAuth(free int) Option {
	return func(o *options) {
		o.env = append(o.env, "INITIAL_NO_AUTH_ACTION_COUNT="+strconv.Itoa(free))
	}
}

// Start starts a server on a free loopback port and stops it when the test
// ends. Without MOTO_BIN the test is skipped (or fails under
// ICEFLIGHT_REQUIRE_SERVERS).
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	bin := servers.Program(t, Env, "servers-moto")
	port := servers.FreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	home := t.TempDir()
	s := &Server{Endpoint: "http://" + addr, AccessKey: "testing", SecretKey: "testing"}
	s.proc = servers.NewProcess(t, "moto_server", addr, func() *exec.Cmd {
		cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
		// Nothing of the test's AWS environment reaches the server.
		cmd.Env = servers.ProgramEnv(home, o.env...)
		return cmd
	})
	s.proc.Start(t)
	// The port opens before the application is ready: wait for an answer.
	ctx, cancel := context.WithTimeout(context.Background(), servers.StartTimeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint+"/moto-api/", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return s
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("moto_server on %s does not answer: %v\n%s", addr, err, s.proc.Output())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Kill stops the server at once (SIGKILL, as a crash would); its catalog,
// held in memory, is lost.
func (s *Server) Kill() { s.proc.Kill() }

// Props returns the Glue catalog properties, by PyIceberg's names, that
// reach the server.
func (s *Server) Props() fileio.Properties {
	return fileio.Properties{
		"glue.endpoint":          s.Endpoint,
		"glue.region":            Region,
		"glue.access-key-id":     s.AccessKey,
		"glue.secret-access-key": s.SecretKey,
	}
}

// String names the server in messages.
func (s *Server) String() string { return fmt.Sprintf("moto at %s", s.Endpoint) }
