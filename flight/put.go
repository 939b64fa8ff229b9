package flight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/internal/strictjson"
	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/writer"
)

// PutAbort is the app_metadata of a DoPut message, with no data, by which
// a client that cannot cancel its call says that its rows failed (see
// actions.PutAbort).
const PutAbort = actions.PutAbort

// errPutAborted is a DoPut the client aborted with PutAbort.
var errPutAborted = fmt.Errorf("DoPut: the client aborted the stream: %w", context.Canceled)

// parsePutDescriptor reads a DoPut's descriptor: a CMD holding an
// actions.PutCommand, whose unknown keys are refused as in GetFlightInfo
// commands, or a PATH naming a table to append to.
func parsePutDescriptor(d *flight.FlightDescriptor) (*actions.PutCommand, writer.WriteRequest, error) {
	var cmd actions.PutCommand
	switch {
	case d == nil:
		return nil, writer.WriteRequest{}, fmt.Errorf("%w: DoPut: the first message carries no descriptor", engine.ErrBadCommand)
	case d.Type == flight.DescriptorPATH:
		if len(d.Path) == 0 {
			return nil, writer.WriteRequest{}, fmt.Errorf("%w: DoPut: empty path", engine.ErrBadCommand)
		}
		cmd.Table = strings.Join(d.Path, ".")
	case d.Type == flight.DescriptorCMD:
		b := bytes.TrimSpace(d.Cmd)
		if len(b) == 0 || b[0] != '{' {
			return nil, writer.WriteRequest{}, fmt.Errorf("%w: DoPut command is not a JSON object such as "+
				`{"table": "db.t", "mode": "append"}`, engine.ErrBadCommand)
		}
		if err := strictjson.Decode(b, &cmd); err != nil {
			return nil, writer.WriteRequest{}, fmt.Errorf("%w: DoPut command JSON: %v", engine.ErrBadCommand, err)
		}
	default:
		return nil, writer.WriteRequest{}, fmt.Errorf("%w: DoPut: descriptor type %v", engine.ErrBadCommand, d.Type)
	}
	req := writer.WriteRequest{Filter: cmd.Filter, Branch: cmd.Branch, SnapshotProperties: cmd.SnapshotProperties}
	switch cmd.Mode {
	case "", actions.ModeAppend:
		req.Mode = writer.Append
		if cmd.Filter != "" {
			return nil, req, fmt.Errorf("%w: DoPut: a filter needs mode \"overwrite\"", engine.ErrBadCommand)
		}
	case actions.ModeOverwrite:
		req.Mode = writer.Overwrite
	default:
		return nil, req, fmt.Errorf("%w: DoPut: mode %q: want \"append\" or \"overwrite\"", engine.ErrBadCommand, cmd.Mode)
	}
	if strings.TrimSpace(cmd.Table) == "" {
		return nil, req, fmt.Errorf("%w: DoPut command names no table", engine.ErrBadCommand)
	}
	return &cmd, req, nil
}

// DoPut appends or overwrites a table's rows with the client's Arrow
// stream, as one commit, and answers one PutResult whose app_metadata is
// the JSON actions.WriteResult. A stream that breaks or is cancelled before its
// end commits nothing.
func (s *Service) DoPut(stream flight.FlightService_DoPutServer) (err error) {
	ctx := stream.Context()
	defer s.eng.EndCall(ctx, &err)
	defer panics.Recover(&err, "DoPut")
	return s.doPut(ctx, stream)
}

// errPutEmpty is a DoPut stream that ended before its first message, the
// one that carries the schema and the descriptor.
var errPutEmpty = fmt.Errorf("%w: DoPut: the stream ended before its schema", engine.ErrBadCommand)

func (s *Service) doPut(ctx context.Context, stream flight.FlightService_DoPutServer) error {
	// Refused before the stream is read further: a worker or a read-only
	// server should not take in a stream it will throw away.
	if err := s.checkWritable("DoPut"); err != nil {
		return err
	}
	release, err := s.puts.Acquire(ctx)
	if err != nil {
		s.eng.Metrics().Rejected(ctx, engine.RejectPutLimit)
		return err
	}
	defer release()
	// The writer's context ends when the stream breaks, so that a writer
	// that has not looked at the reader's error yet cannot commit.
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	in := &putStream{recv: stream.Recv, max: s.maxPutBytes, broken: cancel}
	rdr, err := flight.NewRecordReader(in, ipc.WithAllocator(s.eng.Allocator()))
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errPutEmpty
		}
		if in.err != nil {
			return in.err
		}
		return fmt.Errorf("%w: DoPut: read the stream's schema: %v", engine.ErrBadCommand, err)
	}
	defer rdr.Release()
	cmd, req, err := parsePutDescriptor(rdr.LatestFlightDescriptor())
	if err != nil {
		return err
	}
	id, err := s.authorizeWrite(ctx, "DoPut", cmd.Table)
	if err != nil {
		return err
	}
	rows := &putRows{Reader: rdr, in: in}
	res, err := s.writer.Write(wctx, id, req, rows)
	if err == nil && in.err != nil {
		// Writers must not commit a broken stream; if one did, the
		// client still learns that its stream failed.
		s.eng.Logger().ErrorContext(ctx, "DoPut: the writer committed a stream that broke", "table", id.String(), "err", in.err)
		err = in.err
	}
	if err != nil {
		if in.err != nil && !errors.Is(err, in.err) {
			err = fmt.Errorf("%w (the stream broke: %v)", err, in.err)
		}
		return withTableName(id.String(), err)
	}
	s.committed(id)
	call := engine.CallInfoFrom(ctx)
	call.SetSnapshotID(res.SnapshotID)
	call.SetFiles(int(res.AddedDataFiles))
	call.AddServed(rows.rows, in.bytes)
	s.eng.Metrics().Written(ctx, rows.rows, in.bytes)
	body, err := json.Marshal(writeAnswer(res))
	if err != nil {
		return fmt.Errorf("table %s: encode result: %w", id, err)
	}
	return stream.Send(&flight.PutResult{AppMetadata: body})
}

// withTableName names table in err unless its message already does.
func withTableName(table string, err error) error {
	if strings.Contains(err.Error(), table) {
		return err
	}
	return fmt.Errorf("table %s: %w", table, err)
}

// putStream counts the bytes of a DoPut's messages, fails the stream past
// max, and remembers the first error that broke it.
type putStream struct {
	recv   func() (*flight.FlightData, error)
	max    int64
	bytes  int64
	err    error
	broken func(error)
}

func (p *putStream) Recv() (*flight.FlightData, error) {
	if p.err != nil {
		return nil, p.err
	}
	fd, err := p.recv()
	if err == io.EOF {
		return nil, err
	}
	if err == nil && len(fd.DataHeader) == 0 && len(fd.DataBody) == 0 && string(fd.AppMetadata) == PutAbort {
		err = errPutAborted
	} else if err == nil {
		p.bytes += int64(len(fd.DataHeader) + len(fd.DataBody))
		if p.max > 0 && p.bytes > p.max {
			err = fmt.Errorf("%w: it sent over %d bytes, the server's --max-put-bytes", engine.ErrPutTooLarge, p.max)
		}
	} else {
		err = fmt.Errorf("DoPut: the stream broke: %w", err)
	}
	if err != nil {
		p.err = err
		p.broken(err)
		return nil, err
	}
	return fd, nil
}

// putRows is the record reader handed to the writer: the stream's
// batches, and the stream's own error first, since the IPC reader
// rewraps it.
type putRows struct {
	*flight.Reader
	in   *putStream
	rows int64
}

func (r *putRows) Next() bool {
	if !r.Reader.Next() {
		return false
	}
	r.rows += r.Reader.RecordBatch().NumRows()
	return true
}

func (r *putRows) Err() error {
	if r.in.err != nil {
		return r.in.err
	}
	return r.Reader.Err()
}

// Schema is the stream's schema.
func (r *putRows) Schema() *arrow.Schema { return r.Reader.Schema() }

// peekedPut is a DoPut stream whose first message was read to route it,
// and which gives that message back first.
type peekedPut struct {
	flight.FlightService_DoPutServer
	first *flight.FlightData
}

func (p *peekedPut) Recv() (*flight.FlightData, error) {
	if m := p.first; m != nil {
		p.first = nil
		return m, nil
	}
	return p.FlightService_DoPutServer.Recv()
}
