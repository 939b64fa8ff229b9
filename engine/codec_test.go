package engine

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// flightDataSeeds are FlightData messages as protobuf writes them, and
// spellings of them it accepts too: fields out of order, repeated, empty.
func flightDataSeeds(t testing.TB) [][]byte {
	t.Helper()
	var seeds [][]byte
	for _, fd := range []*flight.FlightData{
		{},
		{DataHeader: []byte{1, 2, 3}, DataBody: make([]byte, 300)},
		{FlightDescriptor: &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"db.t"}`)}, DataHeader: []byte("schema")},
		{FlightDescriptor: &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"a", "b"}}, AppMetadata: []byte("meta"), DataBody: []byte{9}},
	} {
		b, err := proto.Marshal(fd)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	bytesField := func(b []byte, num protowire.Number, v []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, v)
	}
	// The body before the header, a header twice (the last wins), a
	// descriptor in two pieces (merged), an unknown field, a varint.
	b := bytesField(nil, 1000, []byte("body"))
	b = bytesField(b, 2, []byte("first"))
	b = bytesField(b, 2, []byte("second"))
	seeds = append(seeds, b)
	d1, _ := proto.Marshal(&flight.FlightDescriptor{Cmd: []byte("c")})
	d2, _ := proto.Marshal(&flight.FlightDescriptor{Path: []string{"p"}})
	seeds = append(seeds, bytesField(bytesField(nil, 1, d1), 1, d2))
	seeds = append(seeds, bytesField(bytesField(nil, 7, []byte("x")), 2, []byte("h")))
	seeds = append(seeds, protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 5))
	seeds = append(seeds, []byte{0x12, 0x05, 1}) // a length past the end
	return seeds
}

// FuzzUnmarshalFlightData requires wireCodec's FlightData decoding to
// agree with protobuf's: the same message where it decodes one, an error
// where protobuf has one, and byte fields that an append to one of them
// leaves as they were.
func FuzzUnmarshalFlightData(f *testing.F) {
	for _, s := range flightDataSeeds(f) {
		f.Add(s)
	}
	codec := wireCodec{proto: protoCodec(f)}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want flight.FlightData
		werr := proto.Unmarshal(b, &want)
		var got flight.FlightData
		gerr := codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &got)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("error %v, protobuf's %v", gerr, werr)
		}
		if werr != nil {
			return
		}
		if !proto.Equal(&got, &want) {
			t.Fatalf("decoded %v, protobuf %v", &got, &want)
		}
		fields := [][]byte{got.DataHeader, got.AppMetadata, got.DataBody}
		before := [][]byte{bytes.Clone(fields[0]), bytes.Clone(fields[1]), bytes.Clone(fields[2])}
		for i := range fields {
			_ = append(fields[i], 0xAA, 0xAA, 0xAA, 0xAA)
			for j := range fields {
				if !bytes.Equal(fields[j], before[j]) {
					t.Fatalf("appending to field %d changed field %d", i, j)
				}
			}
		}
	})
}

// TestUnmarshalFlightDataTakesItsOwnCopy checks that the decoded fields
// do not alias the buffer gRPC hands in, which it frees and reuses once
// Unmarshal returns.
func TestUnmarshalFlightDataTakesItsOwnCopy(t *testing.T) {
	t.Parallel()
	b, err := proto.Marshal(&flight.FlightData{DataHeader: []byte("head"), DataBody: []byte("body")})
	if err != nil {
		t.Fatal(err)
	}
	var fd flight.FlightData
	if err := (wireCodec{proto: protoCodec(t)}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &fd); err != nil {
		t.Fatal(err)
	}
	clear(b)
	if string(fd.DataHeader) != "head" || string(fd.DataBody) != "body" {
		t.Fatalf("header %q, body %q after the wire buffer was cleared", fd.DataHeader, fd.DataBody)
	}
}

// protoCodec is gRPC's protobuf codec, which wireCodec wraps.
func protoCodec(t testing.TB) encoding.CodecV2 {
	t.Helper()
	c, ok := encoding.GetCodecV2("proto").(wireCodec)
	if !ok {
		t.Fatal("the registered proto codec is not wireCodec")
	}
	return c.proto
}
