package servers

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// StartTimeout bounds how long a server may take to listen.
const StartTimeout = 60 * time.Second

// Process is a server program run for one test that can be killed and
// started again on the same address, as a fault test needs.
type Process struct {
	// Addr is the loopback address the server listens on, host:port.
	Addr string
	// Stop is the signal Kill sends: SIGKILL, as a crash, unless a server
	// needs a chance to save what it holds in memory (Azurite's database)
	// to come back with it.
	Stop os.Signal

	name string
	cmd  func() *exec.Cmd
	log  testutil.LockedBuffer

	mu     sync.Mutex
	run    *exec.Cmd
	exited chan struct{}
}

// NewProcess returns a Process named name (for messages) that runs the
// command cmd makes and listens on addr. Start starts it; it is killed
// when t ends.
func NewProcess(t testing.TB, name, addr string, cmd func() *exec.Cmd) *Process {
	p := &Process{Addr: addr, Stop: os.Kill, name: name, cmd: cmd}
	t.Cleanup(p.Kill)
	return p
}

// ProgramEnv returns the whole environment a server program runs with:
// PATH, HOME=home and extra. Nothing else of the test's environment (its
// cloud credentials among it) reaches the server, so its keys come from
// its flags or extra alone.
func ProgramEnv(home string, extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, extra...)
}

// Start starts the program and waits until it accepts connections on
// Addr; a program that exits first or never listens fails t with its
// output.
func (p *Process) Start(t testing.TB) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run != nil {
		return
	}
	cmd := p.cmd()
	cmd.Stdout, cmd.Stderr = &p.log, &p.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	p.run, p.exited = cmd, exited
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	if err := WaitDial(ctx, p.Addr, exited, StartTimeout); err != nil {
		t.Fatalf("%s on %s: %v; its output:\n%s", p.name, p.Addr, err, p.log.String())
	}
}

// Kill stops the program with the Stop signal and waits for it to end; a
// program that outlives the signal by StartTimeout is killed. It does
// nothing when the program is not running.
func (p *Process) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run == nil {
		return
	}
	_ = p.run.Process.Signal(p.Stop)
	select {
	case <-p.exited:
	case <-time.After(StartTimeout):
		_ = p.run.Process.Kill()
		<-p.exited
	}
	p.run = nil
}

// Restart kills the program (Kill) and starts it again (Start) on the
// same address, as a fault test's server that comes back.
func (p *Process) Restart(t testing.TB) {
	t.Helper()
	p.Kill()
	p.Start(t)
}

// Output returns what the program printed so far, for failure messages.
func (p *Process) Output() string { return p.log.String() }
