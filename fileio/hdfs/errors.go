package hdfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	hdfsclient "github.com/colinmarc/hdfs/v2"

	"github.com/iceflight/iceflight/fileio"
)

// errClosed marks a call on a FileIO after its Close.
var errClosed = errors.New("HDFS FileIO closed")

// Java exceptions of the NameNode that mean "try again later": it is
// starting (safe mode), not the active one of an HA pair, or busy.
var retriableExceptions = []string{
	"org.apache.hadoop.hdfs.server.namenode.SafeModeException",
	"org.apache.hadoop.ipc.StandbyException",
	"org.apache.hadoop.ipc.RetriableException",
	"org.apache.hadoop.ipc.RemoteException$RetriableException",
	"org.apache.hadoop.hdfs.server.datanode.ReplicaNotFoundException",
	"org.apache.hadoop.hdfs.BlockMissingException",
}

// transient reports whether err may pass on retry: the NameNode or a
// DataNode refused, reset or timed out a connection, or the NameNode said
// to come back.
func transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var remote hdfsclient.Error
	if errors.As(err, &remote) {
		for _, e := range retriableExceptions {
			if remote.Exception() == e {
				return true
			}
		}
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	// The library flattens the errors of its failover and block readers
	// into strings.
	msg := err.Error()
	for _, s := range []string{"no available namenodes", "no available datanodes", "No available datanodes", "connection refused", "connection reset", "broken pipe", "i/o timeout"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// wrap names op and location in err and marks it with the fileio sentinel
// callers branch on. A refusal names the NameNode and the user (or the
// ticket cache, for Kerberos), never a secret.
func (f *FileIO) wrap(op, location string, t target, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s %s: %w", op, location, fileio.ErrNotFound)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("%s %s: %w: NameNode %s refused %s", op, location, fileio.ErrPermissionDenied, t.nn, f.principal())
	case transient(err):
		return fmt.Errorf("%s %s: %w: NameNode %s: %v", op, location, fileio.ErrUnavailable, t.nn, err)
	default:
		return fmt.Errorf("%s %s: %w", op, location, err)
	}
}

// principal says who the FileIO acts as, for messages.
func (f *FileIO) principal() string {
	if f.cfg.KerberosTicket != "" {
		return "the Kerberos principal of ticket cache " + f.cfg.KerberosTicket
	}
	return fmt.Sprintf("user %q (simple authentication)", f.user)
}

// retry runs call until it succeeds, fails for good, or has been tried
// Attempts times, waiting a doubling, jittered back-off between attempts.
// A failed attempt drops its client, so the next one reconnects. The
// error of the last attempt is returned as is: wrap classifies it.
func (f *FileIO) retry(ctx context.Context, t target, call func(c *hdfsclient.Client) error) error {
	wait := f.cfg.Backoff
	var err error
	for attempt := 1; ; attempt++ {
		if cerr := ctx.Err(); cerr != nil {
			if err != nil {
				return fmt.Errorf("%w (after: %v)", cerr, err)
			}
			return cerr
		}
		err = f.do(ctx, t, call)
		if !transient(err) || attempt >= f.cfg.Attempts {
			return err
		}
		sleep := wait/2 + rand.N(wait)
		wait *= 2
		timer := time.NewTimer(sleep)
		select {
		case <-ctx.Done():
			timer.Stop()
		case <-timer.C:
		}
	}
}

// do makes one attempt of call, holding a request slot.
func (f *FileIO) do(ctx context.Context, t target, call func(c *hdfsclient.Client) error) error {
	if err := f.acquire(ctx); err != nil {
		return err
	}
	defer f.release()
	c, err := f.client(t)
	if err != nil {
		return err
	}
	err = call(c)
	if transient(err) {
		f.forget(t, c)
	}
	return err
}

// acquire takes one of the process's request slots, waiting until one is
// free or ctx is done.
func (f *FileIO) acquire(ctx context.Context) error {
	select {
	case requests <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *FileIO) release() { <-requests }
