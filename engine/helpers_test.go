package engine

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

var warehouse = filepath.Join("..", "testdata", "warehouse")

func pathDesc(parts ...string) *flight.FlightDescriptor {
	return &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: parts}
}

func cmdDesc(t *testing.T, cmd map[string]any) *flight.FlightDescriptor {
	b, err := json.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}
}
