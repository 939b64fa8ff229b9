// Command flightpoll times a streamed plan from the client's side: it
// sends a command with PollFlightInfo, notes when the first answer that
// carries an endpoint arrives, polls to the end and prints one JSON
// object. pyarrow has no PollFlightInfo yet, so planbench runs this
// instead; it is its own module so the benchmark's peers stay out of the
// main go.mod.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
)

// result is what flightpoll prints.
type result struct {
	FirstEndpointMs float64 `json:"first_endpoint_ms"`
	WholeMs         float64 `json:"whole_ms"`
	Polls           int     `json:"polls"`
	Endpoints       int     `json:"endpoints"`
	TotalRecords    int64   `json:"total_records"`
	InfoBytes       int     `json:"info_bytes"`
	AppMetadata     string  `json:"app_metadata"`
	Error           string  `json:"error,omitempty"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8815", "flightd's address")
	cmd := flag.String("cmd", "", "the JSON command")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Parse()
	res := run(*addr, *cmd, *timeout)
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(addr, cmd string, timeout time.Duration) result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var res result
	c, err := flight.NewClientWithMiddleware(addr, nil, nil,
		grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		res.Error = err.Error()
		return res
	}
	defer c.Close()
	start := time.Now()
	desc := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(cmd)}
	for {
		p, err := c.PollFlightInfo(ctx, desc)
		if err != nil {
			res.Error = err.Error()
			return res
		}
		res.Polls++
		info := p.GetInfo()
		if res.FirstEndpointMs == 0 && len(info.GetEndpoint()) > 0 {
			res.FirstEndpointMs = ms(time.Since(start))
		}
		if p.GetFlightDescriptor() == nil {
			res.WholeMs = ms(time.Since(start))
			res.Endpoints = len(info.GetEndpoint())
			res.TotalRecords = info.GetTotalRecords()
			res.InfoBytes = proto.Size(info)
			res.AppMetadata = string(info.GetAppMetadata())
			return res
		}
		desc = p.GetFlightDescriptor()
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
