// Package minidfs starts Hadoop's MiniDFSCluster (one NameNode, one
// DataNode, in one JVM: tools/minidfs) on loopback for the HDFS tests, and
// stops it when the test ends. `make servers-hdfs` builds it and names its
// launcher in HDFS_BIN.
package minidfs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	hdfsclient "github.com/colinmarc/hdfs/v2"

	"github.com/iceflight/iceflight/fileio/hdfs"
	"github.com/iceflight/iceflight/testkit/servers"
)

// Env names the launcher of tools/minidfs, set by `make servers-hdfs`.
const Env = "HDFS_BIN"

// startTimeout bounds the cluster's start-up: a JVM, a NameNode format and
// a DataNode registration take 10 to 30 s on a busy 2-core machine.
const startTimeout = 180 * time.Second

// Server is a running MiniDFSCluster.
type Server struct {
	// Addr is the NameNode's RPC address, 127.0.0.1:PORT.
	Addr string
	// StartUp is how long the cluster's last start took from exec to
	// serving.
	StartUp time.Duration

	bin  string
	base string
	args []string

	mu   sync.Mutex
	proc *process
}

// process is one run of the cluster's JVM.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	stop   sync.Once
}

// Start starts a cluster with a fresh, empty file system in a temporary
// folder of t, and stops it when t ends. The user of the test process is
// the HDFS superuser; permissions are checked for everyone else.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{bin: servers.Program(t, Env, "servers-hdfs"), base: t.TempDir()}
	nn := servers.FreePort(t)
	s.args = []string{
		"--base", s.base,
		"--nn-port", strconv.Itoa(nn),
		"--nn-http-port", strconv.Itoa(servers.FreePort(t)),
		"--dn-port", strconv.Itoa(servers.FreePort(t)),
		"--dn-http-port", strconv.Itoa(servers.FreePort(t)),
		"--dn-ipc-port", strconv.Itoa(servers.FreePort(t)),
	}
	t.Cleanup(s.Stop)
	s.launch(t, "true")
	return s
}

// Restart starts the cluster again after Kill, on the same ports and
// with the files it held, as a machine rebooted after a crash.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.launch(t, "false")
}

// launch runs the cluster's JVM and waits until it serves; format says
// whether it starts from an empty file system.
func (s *Server) launch(t testing.TB, format string) {
	t.Helper()
	cmd := exec.Command(s.bin, append(s.args[:len(s.args):len(s.args)], "--format", format)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(s.base, "minidfs-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logFile
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("start %s: %v", s.bin, err)
	}
	p := &process{cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	ready := make(chan string, 1)
	go func() {
		// The tool prints one READY line, then only what Hadoop logs to
		// stdout; read it all so the tool never blocks on a full pipe.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "READY hdfs://"); ok {
				ready <- addr
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(p.exited)
	}()
	select {
	case s.Addr = <-ready:
		s.StartUp = time.Since(begin)
	case <-p.exited:
		t.Fatalf("MiniDFSCluster exited before serving: %s", tail(logPath))
	case <-time.After(startTimeout):
		p.shutdown()
		t.Fatalf("MiniDFSCluster did not serve within %v: %s", startTimeout, tail(logPath))
	}
}

// URL returns the location of p (absolute, "/wh/t") on the cluster.
func (s *Server) URL(p string) string { return "hdfs://" + s.Addr + p }

// current is the cluster's running process, or its last one.
func (s *Server) current() *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// Stop shuts the cluster down and waits until its process has ended.
// Stopping twice is stopping once.
func (s *Server) Stop() {
	if p := s.current(); p != nil {
		p.shutdown()
	}
}

// Kill ends the cluster at once (SIGKILL, no shutdown, its files left as
// they are), as a crashed machine would, and waits for the process to end.
func (s *Server) Kill() {
	if p := s.current(); p != nil {
		p.stop.Do(func() {
			_ = p.cmd.Process.Kill()
			<-p.exited
			p.stdin.Close()
		})
	}
}

// shutdown asks the process to end, by closing its standard input, then
// with SIGTERM if it lingers, and SIGKILL after that, and waits for it.
func (p *process) shutdown() {
	p.stop.Do(func() {
		p.stdin.Close()
		for _, sig := range []os.Signal{syscall.SIGTERM, os.Kill} {
			select {
			case <-p.exited:
				return
			case <-time.After(15 * time.Second):
				_ = p.cmd.Process.Signal(sig)
			}
		}
		<-p.exited
	})
}

// Stat returns the NameNode's status of the file at p ("/wh/t/f"), asked
// with the HDFS library alone, as the test process's user.
func (s *Server) Stat(p string) (os.FileInfo, error) {
	u := os.Getenv("HADOOP_USER_NAME")
	if u == "" {
		u = os.Getenv("USER")
	}
	if u == "" {
		u = "root"
	}
	c, err := hdfsclient.NewClient(hdfsclient.ClientOptions{Addresses: []string{s.Addr}, User: u})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Stat(p)
}

// Upload copies the local folder dir, with everything below it, to the
// folder dst ("/wh/t") on the cluster, through fio's Create.
func (s *Server) Upload(ctx context.Context, fio *hdfs.FileIO, dir, dst string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return s.uploadFile(ctx, fio, p, s.URL(path.Join(dst, filepath.ToSlash(rel))))
	})
}

func (s *Server) uploadFile(ctx context.Context, fio *hdfs.FileIO, src, location string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	// A copy that fails cancels the write, so that Close leaves no
	// partial file behind.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := fio.Create(ctx, location)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, in); err != nil {
		cancel()
		return errors.Join(fmt.Errorf("upload %s: %w", src, err), w.Close())
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("upload %s: %w", src, err)
	}
	return nil
}

// tail returns the last lines of the cluster's log, for a failure message.
func tail(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
