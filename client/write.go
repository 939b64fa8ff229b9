package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/iceflight/iceflight/proto/actions"
)

// WriteResult is what a commit did, as the server's DoPut and delete
// answer it.
type WriteResult = actions.WriteResult

// Put is one DoPut: where the rows go and how they change the table.
type Put = actions.PutCommand

// Append adds rows's rows to table in one commit. rows is read to its
// end, not released.
func (c *Client) Append(ctx context.Context, table string, rows array.RecordReader) (*WriteResult, error) {
	return c.Put(ctx, Put{Table: table, Mode: actions.ModeAppend}, rows)
}

// Overwrite replaces the rows of table that match filter ("" all of them)
// with rows's rows, in one commit.
func (c *Client) Overwrite(ctx context.Context, table, filter string, rows array.RecordReader) (*WriteResult, error) {
	return c.Put(ctx, Put{Table: table, Mode: actions.ModeOverwrite, Filter: filter}, rows)
}

// Put streams rows to the server with DoPut and returns the commit's
// result. If rows fails midway the call is cancelled, so the server
// commits nothing.
func (c *Client) Put(ctx context.Context, p Put, rows array.RecordReader) (*WriteResult, error) {
	fc, err := c.origin()
	if err != nil {
		return nil, err
	}
	cmd, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(c.outgoing(ctx))
	defer cancel()
	stream, err := fc.DoPut(ctx)
	if err != nil {
		return nil, withTable(p.Table, fmt.Errorf("DoPut: %w", err))
	}
	w := flight.NewRecordWriter(stream, ipc.WithSchema(rows.Schema()), ipc.WithAllocator(c.opts.mem))
	w.SetFlightDescriptor(&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
	sendErr := func() error {
		for rows.Next() {
			if err := writePieces(w, rows.RecordBatch(), putMessageBytes); err != nil {
				w.Close()
				return err
			}
		}
		if err := rows.Err(); err != nil {
			// Cancelled, the stream breaks and the server commits nothing.
			cancel()
			w.Close()
			return fmt.Errorf("read the rows to send: %w", err)
		}
		// The schema goes out even when there are no rows.
		if err := w.Close(); err != nil {
			return err
		}
		return stream.CloseSend()
	}()
	var local error
	if sendErr != nil && ctx.Err() != nil {
		local = sendErr // our own failure, not the server's
	}
	// A Write or CloseSend that failed because the server ended the call
	// (io.EOF) leaves the reason to Recv.
	res, err := stream.Recv()
	if local != nil {
		return nil, withTable(p.Table, fmt.Errorf("DoPut: %w", local))
	}
	if err != nil {
		return nil, withTable(p.Table, fmt.Errorf("DoPut: %w", err))
	}
	if sendErr != nil && !errors.Is(sendErr, io.EOF) {
		return nil, withTable(p.Table, fmt.Errorf("DoPut: %w", sendErr))
	}
	var out WriteResult
	if err := json.Unmarshal(res.GetAppMetadata(), &out); err != nil {
		return nil, fmt.Errorf("table %s: DoPut result %q: %w", p.Table, res.GetAppMetadata(), err)
	}
	// Drain the end of the call, so its status is seen.
	for {
		if _, err := stream.Recv(); err != nil {
			if !errors.Is(err, io.EOF) {
				return &out, withTable(p.Table, fmt.Errorf("DoPut: %w", err))
			}
			break
		}
	}
	return &out, nil
}

// putMessageBytes is about the most a DoPut message carries: gRPC servers
// refuse messages over 4 MiB unless raised (flightd raises it, others need
// not), and smaller messages keep the server's memory per stream small.
const putMessageBytes = 2 << 20

// writePieces writes rec as slices of about budget bytes each.
func writePieces(w *flight.Writer, rec arrow.RecordBatch, budget int64) error {
	var size int64
	for _, col := range rec.Columns() {
		size += bufferBytes(col.Data())
	}
	n := rec.NumRows()
	if size <= budget || n <= 1 {
		return w.Write(rec)
	}
	step := max(1, n*budget/size)
	for start := int64(0); start < n; start += step {
		piece := rec.NewSlice(start, min(start+step, n))
		err := w.Write(piece)
		piece.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// bufferBytes is the size of the buffers under d, its children's and
// dictionary's included.
func bufferBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += bufferBytes(c)
	}
	// Dictionary returns a typed nil when there is none.
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n += bufferBytes(dict)
	}
	return n
}
