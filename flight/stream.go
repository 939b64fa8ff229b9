package flight

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ipcOptions are the IPC writer options of a DoGet stream.
func ipcOptions(schema *arrow.Schema, mem memory.Allocator) []ipc.Option {
	return []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem)}
}
