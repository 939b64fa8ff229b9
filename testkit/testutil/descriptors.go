package testutil

import (
	"encoding/json"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// PathDesc is the Flight PATH descriptor of parts (a table's name).
func PathDesc(parts ...string) *flight.FlightDescriptor {
	return &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: parts}
}

// CmdDesc is the Flight CMD descriptor of cmd, an iceflight JSON command.
func CmdDesc(t testing.TB, cmd map[string]any) *flight.FlightDescriptor {
	t.Helper()
	b, err := json.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}
}
