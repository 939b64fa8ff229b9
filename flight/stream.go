package flight

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Compression is the IPC body compression of DoGet streams: each
// buffer of a record batch is compressed (Arrow IPC's BodyCompression),
// which every Arrow reader decodes without being asked. It costs the
// server CPU per byte, so it pays only where the network, not the
// server's cores, limits a read: off by default, as on loopback.
type Compression int

const (
	// CompressionNone sends buffers as they are.
	CompressionNone Compression = iota
	// CompressionLZ4 compresses buffers with LZ4 frames: cheap, about half
	// the bytes of typical tables.
	CompressionLZ4
	// CompressionZstd compresses buffers with Zstandard: fewer bytes than
	// LZ4 for more CPU.
	CompressionZstd
)

// ParseCompression parses a --ipc-compression value: none, lz4 or zstd.
func ParseCompression(s string) (Compression, error) {
	switch strings.ToLower(s) {
	case "", "none":
		return CompressionNone, nil
	case "lz4", "lz4_frame":
		return CompressionLZ4, nil
	case "zstd":
		return CompressionZstd, nil
	}
	return 0, fmt.Errorf("IPC compression %q is none, lz4 or zstd", s)
}

// WithCompression sets the IPC compression of DoGet streams
// (CompressionNone by default).
func WithCompression(c Compression) Option { return func(s *Service) { s.compression = c } }

// ipcOptions are the IPC writer options of a DoGet stream.
func ipcOptions(schema *arrow.Schema, mem memory.Allocator, c Compression) []ipc.Option {
	opts := []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem)}
	switch c {
	case CompressionLZ4:
		opts = append(opts, ipc.WithLZ4())
	case CompressionZstd:
		opts = append(opts, ipc.WithZstd())
	}
	return opts
}

// MaxMessageBytes bounds the Arrow data of one DoGet message. gRPC clients
// refuse messages over 4 MiB by default (grpc-go, and Flight clients built
// on it), and smaller messages keep a stream's memory low and its
// pipeline moving; a larger batch is sent as several slices. grpc-go
// marshals each message into a buffer from a pool whose largest tier is
// 1 MiB; a message past it takes a buffer from an untiered pool that
// seldom fits the next one, so the bound leaves room under 1 MiB for the
// message's header. In the read benchmark, 2 MiB messages cost flightd
// about 200 MB more peak memory than these, at the same speed.
const MaxMessageBytes = 1<<20 - 64<<10

// boundedWrites wraps write so that each written batch holds at most
// about maxBytes of Arrow data, slicing larger batches by rows (slices
// share the batch's buffers: nothing is copied).
func boundedWrites(maxBytes int64, write func(arrow.RecordBatch) error) func(arrow.RecordBatch) error {
	return func(rec arrow.RecordBatch) error {
		n := rec.NumRows()
		size := recordBytes(rec)
		if size <= maxBytes || n <= 1 {
			return write(rec)
		}
		rows := max(1, n*maxBytes/size)
		for start := int64(0); start < n; start += rows {
			part := rec.NewSlice(start, min(n, start+rows))
			err := write(part)
			part.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// recordBytes adds up the buffers of a batch's columns, children included.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
	}
	for _, col := range rec.Columns() {
		add(col.Data())
	}
	return n
}

// countingStream counts the IPC bytes a DoGet stream sends.
type countingStream struct {
	flight.FlightService_DoGetServer
	bytes int64
}

func (c *countingStream) Send(d *flight.FlightData) error {
	c.bytes += int64(len(d.DataHeader) + len(d.DataBody))
	return c.FlightService_DoGetServer.Send(d)
}

// newStreamWriter returns the IPC writer of a DoGet stream: what
// flight.NewRecordWriter returns, except that each message's body is
// assembled in a buffer taken from a pool and given back on Close.
// flight.NewRecordWriter's buffer starts empty and doubles its way up to
// the first message's size, copying and clearing as it goes: a stream of
// one small file spent as much time there as in decoding the file.
func newStreamWriter(stream flight.DataStreamWriter, opts ...ipc.Option) *ipc.Writer {
	return ipc.NewWriterWithPayloadWriter(&payloadWriter{stream: stream}, opts...)
}

// bodyBuffers holds message body buffers between streams.
var bodyBuffers = sync.Pool{New: func() any {
	b := new(bytes.Buffer)
	b.Grow(MaxMessageBytes + 64<<10)
	return b
}}

// payloadWriter sends each IPC payload as one FlightData message.
type payloadWriter struct {
	stream flight.DataStreamWriter
	fd     flight.FlightData
	body   *bytes.Buffer
}

func (w *payloadWriter) Start() error { return nil }

func (w *payloadWriter) WritePayload(p ipc.Payload) error {
	meta := p.Meta()
	defer meta.Release()
	if w.body == nil {
		w.body = bodyBuffers.Get().(*bytes.Buffer)
	}
	w.body.Reset()
	if err := p.SerializeBody(w.body); err != nil {
		return err
	}
	w.fd.DataHeader = meta.Bytes()
	w.fd.DataBody = w.body.Bytes()
	// Send marshals the message before it returns, so the body buffer is
	// free for the next payload.
	err := w.stream.Send(&w.fd)
	w.fd.DataHeader, w.fd.DataBody = nil, nil
	return err
}

func (w *payloadWriter) Close() error {
	if w.body != nil {
		bodyBuffers.Put(w.body)
		w.body = nil
	}
	return nil
}
