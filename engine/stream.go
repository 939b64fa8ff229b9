package engine

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
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
func WithCompression(c Compression) Option { return func(e *Engine) { e.compression = c } }

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

// MessageSender is the part of a gRPC server stream a DoGet writer needs:
// every Flight DoGet stream is one.
type MessageSender interface{ SendMsg(m any) error }

// newStreamWriter returns the IPC writer of a DoGet stream: what
// flight.NewRecordWriter returns, except that each message is encoded
// once, straight into a buffer that gRPC's transport writes and gives back
// (see codec.go), and that *sent counts the header and body bytes sent.
// flight.NewRecordWriter assembles each body in a buffer that starts
// empty and doubles its way up to the first message's size, and protobuf
// then copies it again.
func newStreamWriter(stream MessageSender, sent *int64, opts ...ipc.Option) *ipc.Writer {
	return ipc.NewWriterWithPayloadWriter(&payloadWriter{stream: stream, sent: sent}, opts...)
}

// payloadWriter sends each IPC payload as one FlightData message.
type payloadWriter struct {
	stream MessageSender
	sent   *int64
}

func (w *payloadWriter) Start() error { return nil }

func (w *payloadWriter) WritePayload(p ipc.Payload) error {
	meta := p.Meta()
	defer meta.Release()
	msg, n, err := newWireMessage(meta.Bytes(), p.SerializeBody)
	if err != nil {
		return err
	}
	// SendMsg marshals msg, which gives its buffer to gRPC; a message it
	// failed before taking is given back here.
	defer msg.release()
	if err := w.stream.SendMsg(msg); err != nil {
		return err
	}
	if w.sent != nil {
		*w.sent += int64(n)
	}
	return nil
}

func (w *payloadWriter) Close() error { return nil }
