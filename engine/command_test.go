package engine

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

func TestParseDescriptor(t *testing.T) {
	t.Parallel()
	pb, _ := proto.Marshal(&iceflightv1.Command{Table: "db.t", Columns: []string{"a"}})
	id, five := int64(7), int64(5)
	cases := []struct {
		name string
		desc *flight.FlightDescriptor
		want *iceflightv1.Command
		err  error
	}{
		{"path with namespace parts", &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"db", "t"}},
			&iceflightv1.Command{Table: "db.t"}, nil},
		{"path with a dotted name", &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"db.t"}},
			&iceflightv1.Command{Table: "db.t"}, nil},
		{"json command", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"db.t","columns":["a","b"],"snapshot_id":7}`)},
			&iceflightv1.Command{Table: "db.t", Columns: []string{"a", "b"}, SnapshotId: &id}, nil},
		{"protobuf command", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: pb},
			&iceflightv1.Command{Table: "db.t", Columns: []string{"a"}}, nil},
		{"unknown json key is an error", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"db.t","colums":["a"]}`)},
			nil, ErrBadCommand},
		{"trailing data is an error", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"db.t"} {}`)},
			nil, ErrBadCommand},
		{"missing table is an error", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"columns":["a"]}`)},
			nil, ErrBadCommand},
		{"empty path is an error", &flight.FlightDescriptor{Type: flight.DescriptorPATH}, nil, ErrBadCommand},
		{"a filter string is kept as text", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"db.t","filter":"a > 1","limit":5}`)},
			&iceflightv1.Command{Table: "db.t", Filter: "a > 1", Limit: &five}, nil},
		{"a filter object is kept as JSON text", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"db.t","filter":{"type":"eq","term":"a","value":1}}`)},
			&iceflightv1.Command{Table: "db.t", Filter: `{"type":"eq","term":"a","value":1}`}, nil},
		{"a filter object that is not UTF-8 is an error", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte("{\"table\":\"db.t\",\"filter\":{\"type\":\"not-null\",\"term\":\"\x90\"}}")},
			nil, ErrBadCommand},
		{"negative limit is an error", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"db.t","limit":-1}`)},
			nil, ErrBadCommand},
		{"SQL text is an error", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte("select id from db.t")},
			nil, ErrBadCommand},
		{"binary that is not a Command is an error", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte{0xff, 0xff}},
			nil, ErrBadCommand},
		{"negative max_endpoints is an error", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"db.t","max_endpoints":-1}`)},
			nil, ErrBadCommand},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDescriptor(tc.desc)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
