package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/iceberg/expr"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// benchTicket signs a ticket of n tasks made from a real plan of the
// sample warehouse's day-partitioned events, filtered on columns no
// partition settles, so every task carries a residual.
func benchTicket(b *testing.B, n int) (*Engine, []byte) {
	b.Helper()
	svc, _ := engineService(b, testSigner(b, 7))
	cmd, err := ParseDescriptor(cmdDescB(b, `{"table":"samples.events_by_day","filter":"latency_ms > 100 AND level = 'ERROR'","max_endpoints":1}`))
	if err != nil {
		b.Fatal(err)
	}
	info, err := svc.PlanCommand(context.Background(), cmd, nil)
	if err != nil {
		b.Fatal(err)
	}
	t, err := svc.signer.Verify(info.Endpoint[0].Ticket.Ticket)
	if err != nil {
		b.Fatal(err)
	}
	expandTicket(t)
	for _, task := range t.Tasks { // back to the plan's form
		task.ResidualJson, task.ResidualIndex = t.Residuals[task.ResidualIndex-1], 0
	}
	t.Residuals = nil
	base := t.Tasks
	t.Tasks = nil
	for i := range n {
		task := proto.Clone(base[i%len(base)]).(*iceflightv1.Task)
		task.Path = fmt.Sprintf("%s-%d.parquet", task.Path, i)
		t.Tasks = append(t.Tasks, task)
	}
	defer compactTicket(t)()
	signed, err := svc.signer.Sign(t)
	if err != nil {
		b.Fatal(err)
	}
	return svc, signed
}

// BenchmarkTicketSetup measures what a worker does with a ticket before it
// opens the first file: verify, decode, and parse the residuals the reader
// would parse per file (before ticket format 2 every task's, now none: the
// ticket's shared residuals are decoded once in decodeScan), for a ticket
// of 1,000 tasks. It reports the signed ticket's size.
func BenchmarkTicketSetup(b *testing.B) {
	svc, signed := benchTicket(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		t, err := svc.signer.Verify(signed)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := decodeScan(t); err != nil {
			b.Fatal(err)
		}
		// What the reader parses per file: a residual of the task's own.
		for _, task := range t.Tasks {
			if task.ResidualJson == "" {
				continue
			}
			if _, err := expr.ParseJSON([]byte(task.ResidualJson)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(signed)), "ticket_bytes")
}

func cmdDescB(_ *testing.B, cmd string) *flight.FlightDescriptor {
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(cmd)}
}
