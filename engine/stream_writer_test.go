package engine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"
)

// capturedStream keeps a copy of every message sent on it: Send as
// arrow-go's writer sends, SendMsg as flightd's writer does, through the
// registered codec as gRPC would, keeping the wire bytes too.
type capturedStream struct {
	msgs []*flight.FlightData
	wire [][]byte
}

func (c *capturedStream) Send(d *flight.FlightData) error {
	c.msgs = append(c.msgs, &flight.FlightData{
		DataHeader: bytes.Clone(d.DataHeader),
		DataBody:   bytes.Clone(d.DataBody),
	})
	return nil
}

func (c *capturedStream) SendMsg(m any) error {
	codec := encoding.GetCodecV2("proto")
	data, err := codec.Marshal(m)
	if err != nil {
		return err
	}
	wire := data.Materialize()
	data.Free()
	var d flight.FlightData
	if err := proto.Unmarshal(wire, &d); err != nil {
		return err
	}
	c.wire = append(c.wire, wire)
	return c.Send(&d)
}

// The stream writer must send exactly the messages arrow-go's Flight record
// writer sends, batch after batch and stream after stream, although it
// reuses its body buffers.
func TestStreamWriterSendsWhatFlightRecordWriterSends(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var batches []arrow.RecordBatch
	for i, rows := range []int{3, 20_000, 0, 7} {
		ids := array.NewInt64Builder(mem)
		strs := array.NewStringBuilder(mem)
		for r := range rows {
			ids.Append(int64(i*100_000 + r))
			if r%5 == 0 {
				strs.AppendNull()
			} else {
				strs.Append(fmt.Sprintf("%d%s", r, strings.Repeat("x", r%40)))
			}
		}
		a, b := ids.NewArray(), strs.NewArray()
		batches = append(batches, array.NewRecordBatch(schema, []arrow.Array{a, b}, int64(rows)))
		a.Release()
		b.Release()
		ids.Release()
		strs.Release()
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	write := func(w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}) {
		for _, b := range batches {
			if err := w.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var want capturedStream
	write(flight.NewRecordWriter(&want, ipc.WithSchema(schema), ipc.WithAllocator(mem)))
	for stream := range 3 {
		var got capturedStream
		var sent int64
		write(newStreamWriter(&got, &sent, ipcOptions(schema, mem, CompressionNone)...))
		if len(got.msgs) != len(want.msgs) {
			t.Fatalf("stream %d: %d messages, want %d", stream, len(got.msgs), len(want.msgs))
		}
		var wantSent int64
		for i := range want.msgs {
			if !bytes.Equal(got.msgs[i].DataHeader, want.msgs[i].DataHeader) || !bytes.Equal(got.msgs[i].DataBody, want.msgs[i].DataBody) {
				t.Fatalf("stream %d: message %d differs from flight.NewRecordWriter's", stream, i)
			}
			// The wire bytes are protobuf's own encoding of the message.
			pb, err := proto.MarshalOptions{Deterministic: true}.Marshal(want.msgs[i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.wire[i], pb) {
				t.Fatalf("stream %d: message %d's wire bytes differ from protobuf's", stream, i)
			}
			wantSent += int64(len(want.msgs[i].DataHeader) + len(want.msgs[i].DataBody))
		}
		if sent != wantSent {
			t.Fatalf("stream %d: counted %d bytes sent, want %d", stream, sent, wantSent)
		}
	}
}
