package writer

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// prefetchReader reads a stream one batch ahead on a goroutine of its own,
// so that receiving and decoding the next batch (a DoPut's network and IPC
// work, paced by the client) overlaps with encoding this one. Without it
// the two take turns: once the encoder got cheap, a DoPut append spent
// most of its time with the server waiting on the client and the client
// waiting on the server.
//
// It holds at most two batches beyond the one being encoded: the one in
// the channel and the one the goroutine waits to hand over.
type prefetchReader struct {
	rows array.RecordReader
	ch   chan arrow.RecordBatch
	stop chan struct{}
	wg   sync.WaitGroup
	cur  arrow.RecordBatch
	err  error // the stream's, set before ch is closed
	done bool  // Next saw ch closed, so err may be read
}

// prefetch starts reading rows ahead. The caller must call close, which
// waits for the goroutine, before rows is read again or its counts used.
func prefetch(rows array.RecordReader) *prefetchReader {
	p := &prefetchReader{rows: rows, ch: make(chan arrow.RecordBatch, 1), stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.ch)
		for rows.Next() {
			b := rows.RecordBatch()
			b.Retain()
			select {
			case p.ch <- b:
			case <-p.stop:
				b.Release()
				return
			}
		}
		p.err = rows.Err()
	}()
	return p
}

// Next moves to the next batch, releasing the one before.
func (p *prefetchReader) Next() bool {
	p.releaseCurrent()
	b, ok := <-p.ch
	p.cur, p.done = b, !ok
	return ok
}

// RecordBatch returns the current batch, valid until Next or close.
func (p *prefetchReader) RecordBatch() arrow.RecordBatch { return p.cur }

// Record returns the current batch.
//
// Deprecated: use RecordBatch, as array.RecordReader says.
func (p *prefetchReader) Record() arrow.RecordBatch { return p.cur }

// Schema returns the stream's schema.
func (p *prefetchReader) Schema() *arrow.Schema { return p.rows.Schema() }

// Err returns the stream's error once Next has returned false.
func (p *prefetchReader) Err() error {
	if !p.done {
		return nil
	}
	return p.err
}

// Retain and Release are no-ops: the reader's life is close's.
func (p *prefetchReader) Retain()  {}
func (p *prefetchReader) Release() {}

// close stops the goroutine, waits for it and frees the batches it read
// that were not taken. A goroutine waiting for the stream's next batch is
// waited for: a writer that failed mid-stream returns once the client
// sends its next message or goes away, as a stream that pauses holds its
// writer anyway.
func (p *prefetchReader) close() {
	close(p.stop)
	p.wg.Wait()
	p.releaseCurrent()
	for b := range p.ch {
		b.Release()
	}
}

func (p *prefetchReader) releaseCurrent() {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
}
