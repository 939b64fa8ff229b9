package cluster

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// WriteTicketKeys writes a --ticket-keys file with one fresh key in dir,
// for every process of one cluster to share, and returns its path.
func WriteTicketKeys(dir string) (string, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "ticket-keys")
	return path, os.WriteFile(path, []byte("cluster="+hex.EncodeToString(key)+"\n"), 0o600)
}

// StartTimeout bounds how long a process may take to print its address.
const StartTimeout = 30 * time.Second

// stopGrace is how long a process may drain after SIGTERM before it is
// killed.
const stopGrace = 10 * time.Second

// Process is one running server started by this package.
type Process struct {
	// Name names the process in messages ("worker-1").
	Name string
	// Addr is the host:port it serves gRPC on (empty for nginx, which is
	// given its port).
	Addr string
	// LogPath is the file that holds its stderr.
	LogPath string

	cmd  *exec.Cmd
	done chan struct{} // closed once cmd.Wait returned
	err  error         // cmd.Wait's result, valid after done

	stopOnce sync.Once
}

// addrLine matches the line flightd prints once it listens:
// "iceflight serving N tables from DIR on grpc://ADDR" or
// "iceflight worker on grpc://ADDR".
var addrLine = regexp.MustCompile(`grpc://(\S+)`)

// BuildFlightd compiles ./cmd/flightd of the module at repo into dir and
// returns the binary's path.
func BuildFlightd(ctx context.Context, repo, dir string) (string, error) {
	bin := filepath.Join(dir, "flightd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/flightd")
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build flightd in %s: %w\n%s", repo, err, out)
	}
	return bin, nil
}

// SharedBuild is flightd built once for all the tests of a package, or
// $FLIGHTD when that is set. The zero value is ready to use; the package's
// TestMain runs its tests through Main, which removes the build.
type SharedBuild struct {
	once sync.Once
	bin  string
	dir  string
	err  error
}

// Flightd returns $FLIGHTD, or ./cmd/flightd of the module at repo,
// built on the first call.
func (b *SharedBuild) Flightd(ctx context.Context, repo string) (string, error) {
	if bin := os.Getenv("FLIGHTD"); bin != "" {
		return bin, nil
	}
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "iceflight-flightd-"); b.err == nil {
			b.bin, b.err = BuildFlightd(ctx, repo, b.dir)
		}
	})
	return b.bin, b.err
}

// Binary is Flightd for a test, which fails when flightd does not build.
func (b *SharedBuild) Binary(t testing.TB, repo string) string {
	t.Helper()
	bin, err := b.Flightd(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Main runs the tests of m, then deletes the build, if one was made, and
// returns the exit code: the body of a package's TestMain.
func (b *SharedBuild) Main(m *testing.M) int {
	code := m.Run()
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
	return code
}

// StartFlightd runs "bin serve args..." with its stderr in logDir/name.log
// and waits until it prints the address it listens on.
func StartFlightd(ctx context.Context, bin, name, logDir string, args ...string) (*Process, error) {
	p, stdout, err := start(name, logDir, bin, append([]string{"serve"}, args...)...)
	if err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		// Keep reading stdout to its end so the process never blocks on
		// a full pipe.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := addrLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	timer := time.NewTimer(StartTimeout)
	defer timer.Stop()
	select {
	case p.Addr = <-addr:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("%s exited before listening (%v): %s", name, p.err, p.Tail(20))
	case <-timer.C:
		err = fmt.Errorf("%s printed no address within %v: %s", name, StartTimeout, p.Tail(20))
	case <-ctx.Done():
		err = fmt.Errorf("start %s: %w", name, ctx.Err())
	}
	p.Stop()
	return nil, err
}

// start launches a process in its own process group with stderr in
// logDir/name.log and returns its stdout.
func start(name, logDir, bin string, args ...string) (*Process, io.ReadCloser, error) {
	logPath := filepath.Join(logDir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, stdout, nil
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the process has ended, and its error if so.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// PeakRSS returns the process's peak resident set size in bytes (Linux
// VmHWM); it must be called while the process runs.
func (p *Process) PeakRSS() (int64, error) { return peakRSS(p.Pid()) }

// Stop sends SIGTERM to the process group, waits up to stopGrace for the
// process to drain and exit, then kills the group. It is safe to call more
// than once and returns the process's exit error if it exited by itself
// with one.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		signalGroup(p.cmd.Process, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(stopGrace):
		}
		// Also kills children (nginx workers) that outlived their leader.
		signalGroup(p.cmd.Process, syscall.SIGKILL)
		<-p.done
	})
	var exit *exec.ExitError
	if errors.As(p.err, &exit) && exit.Exited() {
		return fmt.Errorf("%s exited with %d: %s", p.Name, exit.ExitCode(), p.Tail(10))
	}
	return nil
}

// Kill ends the process group at once with SIGKILL, as a crashed node or
// an OOM kill would, and waits for it.
func (p *Process) Kill() {
	p.stopOnce.Do(func() {
		signalGroup(p.cmd.Process, syscall.SIGKILL)
		<-p.done
	})
}

// Log returns the process's stderr so far.
func (p *Process) Log() string {
	b, err := os.ReadFile(p.LogPath)
	if err != nil {
		return fmt.Sprintf("(log %s unreadable: %v)", p.LogPath, err)
	}
	return string(b)
}

// Tail returns the last n lines of the process's stderr.
func (p *Process) Tail(n int) string {
	lines := strings.Split(strings.TrimRight(p.Log(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
