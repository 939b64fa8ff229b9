package hdfs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"time"

	hdfsclient "github.com/colinmarc/hdfs/v2"
)

// Create starts a new file at location. Bytes go to a hidden temporary
// file beside it, renamed onto location when Close succeeds, so readers
// never see a partial file; a write whose context ends first, or that
// fails, removes the temporary file. A file already at location is
// replaced on Close, as Hadoop's rename-over does. Missing folders are
// made.
func (f *FileIO) Create(ctx context.Context, location string) (io.WriteCloser, error) {
	t, err := f.parse(location)
	if err != nil {
		return nil, err
	}
	var tag [8]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return nil, fmt.Errorf("create %s: %w", location, err)
	}
	dir, name := path.Split(t.path)
	tmp := path.Join(dir, "."+name+"."+hex.EncodeToString(tag[:])+".tmp")
	var w *hdfsclient.FileWriter
	var client *hdfsclient.Client
	err = f.retry(ctx, t, func(c *hdfsclient.Client) error {
		if err := c.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		var err error
		w, err = c.Create(tmp)
		client = c
		return err
	})
	if err != nil {
		return nil, f.wrap("create", location, t, err)
	}
	return &writer{ctx: ctx, fio: f, t: t, c: client, w: w, tmp: tmp, location: location}, nil
}

// writer writes one file through its temporary name. It keeps the context
// of Create because io.Writer's calls take none, and Create's contract is
// that a write cut short by it leaves nothing behind.
type writer struct {
	ctx      context.Context
	fio      *FileIO
	t        target
	c        *hdfsclient.Client
	w        *hdfsclient.FileWriter
	tmp      string
	location string
	done     bool
}

func (w *writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, fmt.Errorf("write %s: %w", w.location, io.ErrClosedPipe)
	}
	if err := w.ctx.Err(); err != nil {
		w.abort()
		return 0, fmt.Errorf("write %s: %w", w.location, err)
	}
	n, err := w.w.Write(p)
	if err != nil {
		w.abort()
		return n, w.fio.wrap("write", w.location, w.t, err)
	}
	return n, nil
}

// Close finishes the temporary file and renames it onto location.
func (w *writer) Close() error {
	if w.done {
		return nil
	}
	if err := w.ctx.Err(); err != nil {
		w.abort()
		return fmt.Errorf("write %s: %w", w.location, err)
	}
	w.done = true
	if err := w.complete(); err != nil {
		w.removeTmp()
		return w.fio.wrap("write", w.location, w.t, err)
	}
	if err := w.c.Rename(w.tmp, w.t.path); err != nil {
		w.removeTmp()
		return w.fio.wrap("rename onto", w.location, w.t, err)
	}
	return nil
}

// complete closes the temporary file. The NameNode answers "not yet"
// while the DataNode has not reported the last block (ErrReplicating);
// Hadoop's client then asks again with a growing wait, and so does this,
// within the FileIO's attempts doubled and the write's context.
func (w *writer) complete() error {
	wait := w.fio.cfg.Backoff
	for attempt := 1; ; attempt++ {
		err := w.w.Close()
		if !hdfsclient.IsErrReplicating(err) || attempt >= 2*w.fio.cfg.Attempts+4 {
			return err
		}
		timer := time.NewTimer(wait)
		select {
		case <-w.ctx.Done():
			timer.Stop()
			return errors.Join(err, w.ctx.Err())
		case <-timer.C:
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// abort ends the write and removes what it wrote.
func (w *writer) abort() {
	if w.done {
		return
	}
	w.done = true
	// Closing completes the block so the NameNode lets go of the lease;
	// its error does not matter, the file goes either way.
	_ = w.w.Close()
	w.removeTmp()
}

// removeTmp deletes the temporary file, best effort: a NameNode that is
// down leaves a hidden file that orphan-file removal collects.
func (w *writer) removeTmp() {
	_ = w.c.Remove(w.tmp)
}
