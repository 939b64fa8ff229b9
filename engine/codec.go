package engine

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the codec wireCodec wraps
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// A DoGet data message used to be copied three times on its way out: the
// IPC body into a FlightData, the FlightData by protobuf into a buffer
// that gRPC's pool clears first, and that buffer by gRPC's framer. For a
// read of big files these copies and the clear were about 8% of flightd's
// CPU. A wireMessage is a FlightData already in its protobuf wire form,
// built once in a buffer of ours (the body serialised straight into it);
// wireCodec hands that buffer to the transport as it is, and the
// transport gives it back when it has written it. Every other message
// goes through gRPC's protobuf codec.
//
// Receiving is the mirror image: gRPC gathers a message's frames into one
// buffer, and protobuf then copied each bytes field of a FlightData out of
// it. A DoPut of big batches spent about 5% of an append's CPU on that
// second copy of every body. wireCodec decodes a FlightData itself, its
// header and body slices of one fresh copy of the message.

// wireCodec is gRPC's protobuf codec, except that a *wireMessage
// marshals to its own buffer.
type wireCodec struct{ proto encoding.CodecV2 }

func (c wireCodec) Marshal(v any) (mem.BufferSlice, error) {
	if m, ok := v.(*wireMessage); ok {
		return m.take()
	}
	return c.proto.Marshal(v)
}

func (c wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if fd, ok := v.(*flight.FlightData); ok {
		b := data.Materialize()
		if unmarshalFlightData(b, fd) {
			return nil
		}
		return c.proto.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, v)
	}
	return c.proto.Unmarshal(data, v)
}

// unmarshalFlightData decodes b into fd, whose byte fields become slices
// of b (capped, so that an append to one cannot overwrite the next). It
// reports false, having left fd in any state, for what it leaves to
// protobuf: a field it does not know, a wire type other than length
// delimited, or a malformed message, whose error protobuf words.
func unmarshalFlightData(b []byte, fd *flight.FlightData) bool {
	fd.Reset()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return false
		}
		b = b[n:]
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		v = v[:len(v):len(v)]
		switch num {
		case 1:
			if fd.FlightDescriptor == nil {
				fd.FlightDescriptor = new(flight.FlightDescriptor)
			}
			// Protobuf merges a repeated message field into one.
			if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(v, fd.FlightDescriptor); err != nil {
				return false
			}
		case 2:
			fd.DataHeader = v
		case 3:
			fd.AppMetadata = v
		case 1000:
			fd.DataBody = v
		default:
			return false
		}
	}
	return true
}

func (c wireCodec) Name() string { return c.proto.Name() }

// init replaces the registered "proto" codec, process-wide, with one that
// also knows wireMessage. Registering (rather than a server option) means
// that whatever gRPC server serves an engine's front ends, its streams can send
// wireMessages; for every other value the codec is protobuf's.
func init() {
	proto := encoding.GetCodecV2("proto")
	if proto == nil {
		panic("flight: gRPC's proto codec is not registered")
	}
	if _, ok := proto.(wireCodec); ok {
		return
	}
	encoding.RegisterCodecV2(wireCodec{proto: proto})
}

// FlightData's fields, as protobuf tags with wire type 2 (length
// delimited): data_header is field 2, data_body field 1000.
const (
	tagDataHeader = 2<<3 | 2
	tagDataBody   = 1000<<3 | 2
)

// wireMessage is one FlightData of header and body in protobuf's wire
// format, in a buffer of wireBuffers. It is sent once: Marshal takes the
// buffer, and the transport returns it to the pool.
type wireMessage struct {
	buf     *wireBuffer
	start   int // the message is buf.b[start:]
	bodyLen int
}

// BodyLen is the size of the message's IPC body: 0 for a schema message.
// Stream wrappers that watch what a DoGet sends (a test that breaks a
// stream after n batches) tell batches apart with it.
func (m *wireMessage) BodyLen() int { return m.bodyLen }

// wireBuffer is a message buffer and the mem.BufferPool that takes it
// back: gRPC calls Put when it has written the message.
type wireBuffer struct{ b []byte }

func (w *wireBuffer) Get(n int) *[]byte {
	b := make([]byte, n)
	return &b
}

func (w *wireBuffer) Put(*[]byte) { wireBuffers.Put(w) }

// wireBuffers holds message buffers between messages. Nothing is cleared:
// a message writes every byte it sends.
var wireBuffers = sync.Pool{New: func() any {
	return &wireBuffer{b: make([]byte, 0, MaxMessageBytes+64<<10)}
}}

// maxPrefix is the most bytes a message's header field and body tag take
// beyond the header itself: the two tags and two varint lengths.
const maxPrefix = 1 + binary.MaxVarintLen32 + 2 + binary.MaxVarintLen32

// newWireMessage encodes a FlightData of header and the body that
// writeBody writes. The body is written first, after room for the
// prefix, and the prefix (which holds the body's length) is then put
// just before it, so nothing is moved.
func newWireMessage(header []byte, writeBody func(io.Writer) error) (*wireMessage, int, error) {
	buf := wireBuffers.Get().(*wireBuffer)
	room := len(header) + maxPrefix
	if cap(buf.b) < room {
		buf.b = make([]byte, 0, room+MaxMessageBytes)
	}
	// The bytes before the prefix are never sent, and the prefix and
	// body overwrite the rest.
	body := appender{b: buf.b[:room]}
	if err := writeBody(&body); err != nil {
		wireBuffers.Put(buf)
		return nil, 0, err
	}
	buf.b = body.b
	n := len(buf.b) - room
	// protobuf leaves out an empty bytes field; so does this.
	var prefix [maxPrefix]byte
	p := prefix[:0]
	if len(header) > 0 {
		p = append(p, tagDataHeader)
		p = binary.AppendUvarint(p, uint64(len(header)))
	}
	hp := len(p)
	if n > 0 {
		p = append(p, tagDataBody&0x7f|0x80, tagDataBody>>7)
		p = binary.AppendUvarint(p, uint64(n))
	}
	start := room - len(p) - len(header)
	copy(buf.b[start:], p[:hp])
	copy(buf.b[start+hp:], header)
	copy(buf.b[start+hp+len(header):], p[hp:])
	return &wireMessage{buf: buf, start: start, bodyLen: n}, len(header) + n, nil
}

// take hands the message's buffer to gRPC, which frees it once written.
func (m *wireMessage) take() (mem.BufferSlice, error) {
	if m.buf == nil {
		return nil, fmt.Errorf("flight: a wire message is sent once")
	}
	data := m.buf.b[m.start:]
	b := mem.NewBuffer(&data, m.buf)
	m.buf = nil
	return mem.BufferSlice{b}, nil
}

// release gives back the buffer of a message that was never sent.
func (m *wireMessage) release() {
	if m.buf != nil {
		wireBuffers.Put(m.buf)
		m.buf = nil
	}
}

// appender is an io.Writer that appends to b.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}
