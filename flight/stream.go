package flight

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ipcOptions are the IPC writer options of a DoGet stream.
func ipcOptions(schema *arrow.Schema, mem memory.Allocator) []ipc.Option {
	return []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem)}
}

// MaxMessageBytes bounds the Arrow data of one DoGet message. gRPC clients
// refuse messages over 4 MiB by default (grpc-go, and Flight clients built
// on it), and smaller messages keep a stream's memory low and its
// pipeline moving; a larger batch is sent as several slices.
const MaxMessageBytes = 2 << 20

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
