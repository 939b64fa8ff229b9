package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/iceflight/iceflight/catalog"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// authorizeTicket checks that the caller may read a ticket's table.
func (e *Engine) authorizeTicket(ctx context.Context, t *iceflightv1.Ticket) error {
	if e.auth == nil {
		return nil
	}
	id, err := catalog.ParseIdentifier(t.Table)
	if err != nil {
		return fmt.Errorf("%w: table %q: %v", ErrTicketInvalid, t.Table, err)
	}
	return e.auth.Authorize(ctx, id)
}

// profileReader returns the reader of the storage profile ticket t names.
func (e *Engine) profileReader(t *iceflightv1.Ticket) (*reader.Reader, error) {
	if t.StorageProfile == "" {
		return e.reader, nil
	}
	if rd, ok := e.profiles[t.StorageProfile]; ok {
		return rd, nil
	}
	return nil, fmt.Errorf("%w: table %s: its ticket reads with the storage of catalog %q, which this server is not configured with; "+
		"start every process with the coordinator's --config", errNoProfile, t.Table, t.StorageProfile)
}

// errNoProfile is a ticket whose storage profile this server lacks: a
// deployment whose processes disagree on their configuration.
var errNoProfile = errors.New("unknown storage profile")

// errLimitReached stops a read once a ticket's row limit is served.
var errLimitReached = errors.New("row limit reached")

// limitRows wraps write so that at most limit rows pass (all when limit is
// 0); past the limit it returns errLimitReached to stop the reader.
func limitRows(limit int64, write func(arrow.RecordBatch) error) func(arrow.RecordBatch) error {
	if limit <= 0 {
		return write
	}
	remaining := limit
	return func(rec arrow.RecordBatch) error {
		if remaining <= 0 {
			return errLimitReached
		}
		if n := rec.NumRows(); n > remaining {
			part := rec.NewSlice(0, remaining)
			defer part.Release()
			remaining = 0
			if err := write(part); err != nil {
				return err
			}
			return errLimitReached
		}
		remaining -= rec.NumRows()
		if err := write(rec); err != nil {
			return err
		}
		if remaining == 0 {
			return errLimitReached
		}
		return nil
	}
}

// streamTicket verifies ticket (its signature, its expiry, the caller's
// read grant on its table) and streams its record batches: begin once with
// the stream's schema, then write for each batch, which is valid only
// during the call and reports the bytes it sent, for the metrics and the
// call log. It takes a stream slot and records rows, bytes and the call's
// table, snapshot and files; no file is opened before the ticket checks
// out.
func (e *Engine) streamTicket(ctx context.Context, ticket []byte, begin func(*arrow.Schema) error, write func(arrow.RecordBatch) (int64, error)) error {
	t, release, err := e.redeem(ctx, ticket)
	if err != nil {
		return err
	}
	defer release()
	defer e.metrics.StreamStarted(ctx)()
	call := CallInfoFrom(ctx)
	call.SetTable(t.Table)
	call.SetSnapshotID(t.SnapshotId)
	call.SetFiles(len(t.Tasks))
	emit := limitRows(t.Limit, boundedWrites(MaxMessageBytes, func(rec arrow.RecordBatch) error {
		n, err := write(rec)
		if err != nil {
			return err
		}
		e.metrics.Served(ctx, rec.NumRows(), n)
		call.AddServed(rec.NumRows(), n)
		return nil
	}))
	switch {
	case len(t.MetadataUnit) > 0:
		return e.streamMetadataTicket(ctx, t, begin, emit)
	case len(t.ChangeUnit) > 0:
		return e.streamChangeTicket(ctx, t, begin, emit)
	case t.ManifestGroup != nil:
		return e.streamGroupTicket(ctx, t, begin, emit)
	}
	rd, err := e.readerFor(ctx, t)
	if err != nil {
		return err
	}
	scan, tasks, err := decodeScan(t)
	if err != nil {
		return err
	}
	arrowSchema, err := reader.OutputSchema(scan)
	if err != nil {
		return fmt.Errorf("%w: table %s: %v", ErrTicketInvalid, t.Table, err)
	}
	if err := begin(arrowSchema); err != nil {
		return err
	}
	for _, task := range tasks {
		err := rd.Read(ctx, scan, task, emit)
		if errors.Is(err, errLimitReached) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("table %s: %w", t.Table, readError(t, task, err))
		}
	}
	return nil
}

// redeem takes a stream slot for the signed ticket b, verifies it and the
// caller's grant on its table, and returns it with the slot's release;
// on a process that does not stream, or on any refusal, it returns an
// error and holds no slot.
func (e *Engine) redeem(ctx context.Context, b []byte) (*iceflightv1.Ticket, func(), error) {
	if err := e.needStreamer(); err != nil {
		return nil, nil, err
	}
	release, err := e.streams.Acquire(ctx)
	if err != nil {
		e.metrics.Rejected(ctx, RejectStreamLimit)
		return nil, nil, err
	}
	t, err := e.signer.Verify(b)
	if err == nil {
		err = e.authorizeTicket(ctx, t)
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	return t, release, nil
}

// StreamOption changes what Stream sends.
type StreamOption func(*streamConfig)

type streamConfig struct {
	names []string
}

// WithColumnNames sends the stream's top-level columns under names, in
// order (a SQL statement's aliases); a ticket that streams another number
// of columns is refused with ErrBadCommand.
func WithColumnNames(names []string) StreamOption {
	return func(c *streamConfig) { c.names = names }
}

// Stream verifies ticket and streams its record batches to sender as
// Arrow IPC messages: each message is encoded once, straight into the
// buffer the transport writes (see codec.go), its body compressed as the
// engine's Compression says, and the bytes counted are those sent. Every
// front end's DoGet streams through it, so a read costs and counts the
// same whichever protocol asked for it.
func (e *Engine) Stream(ctx context.Context, ticket []byte, sender MessageSender, opts ...StreamOption) error {
	var cfg streamConfig
	for _, o := range opts {
		o(&cfg)
	}
	var sent int64
	var w *ipc.Writer
	var out *arrow.Schema
	begin := func(schema *arrow.Schema) error {
		if cfg.names != nil {
			if len(cfg.names) != len(schema.Fields()) {
				return fmt.Errorf("%w: the ticket streams %d columns and the statement names %d", ErrBadCommand, len(schema.Fields()), len(cfg.names))
			}
			schema = RenameColumns(schema, cfg.names)
			out = schema
		}
		w = newStreamWriter(sender, &sent, ipcOptions(schema, e.mem, e.compression)...)
		return nil
	}
	write := func(rec arrow.RecordBatch) (int64, error) {
		if out != nil {
			rec = array.NewRecordBatch(out, rec.Columns(), rec.NumRows())
			defer rec.Release()
		}
		before := sent
		err := w.Write(rec)
		return sent - before, err
	}
	err := e.streamTicket(ctx, ticket, begin, write)
	if w == nil {
		return err
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// RenameColumns is schema with its top-level fields called names, in
// order (schema itself when names is nil); names must be as many as the
// fields.
func RenameColumns(schema *arrow.Schema, names []string) *arrow.Schema {
	if names == nil {
		return schema
	}
	fields := schema.Fields()
	for i := range fields {
		fields[i].Name = names[i]
	}
	md := schema.Metadata()
	return arrow.NewSchema(fields, &md)
}

// StreamBatch sends rec as a whole stream through the same sink as
// Stream: for an answer the front end computed itself (a SQL COUNT).
func (e *Engine) StreamBatch(sender MessageSender, rec arrow.RecordBatch) error {
	w := newStreamWriter(sender, nil, ipcOptions(rec.Schema(), e.mem, e.compression)...)
	err := w.Write(rec)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// Count verifies ticket and counts the rows it streams, with the same
// checks, slot and metrics as Stream, sending nothing.
func (e *Engine) Count(ctx context.Context, ticket []byte) (int64, error) {
	var n int64
	err := e.streamTicket(ctx, ticket, func(*arrow.Schema) error { return nil },
		func(rec arrow.RecordBatch) (int64, error) {
			n += rec.NumRows()
			return 0, nil
		})
	return n, err
}
