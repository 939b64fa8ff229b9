package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/iceberg/scantask"
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
	base, err := decodeTasks(t) // back to the plan's form
	if err != nil {
		b.Fatal(err)
	}
	t.Residuals = nil
	tasks := make([]*scantask.Task, n)
	for i := range n {
		task := *base[i%len(base)]
		task.Path = fmt.Sprintf("%s-%d.parquet", task.Path, i)
		tasks[i] = &task
	}
	if err := encodeTasks(t, tasks); err != nil {
		b.Fatal(err)
	}
	signed, err := svc.signer.Sign(t)
	if err != nil {
		b.Fatal(err)
	}
	return svc, signed
}

// BenchmarkTicketSetup measures what a worker does with a ticket before it
// opens the first file: verify, and decode its scan and tasks, each shared
// residual once (before ticket format 2 the reader parsed every task's),
// for a ticket of 1,000 tasks. It reports the signed ticket's size.
func BenchmarkTicketSetup(b *testing.B) {
	svc, signed := benchTicket(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		t, err := svc.signer.Verify(signed)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := decodeScan(t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(signed)), "ticket_bytes")
}

func cmdDescB(_ *testing.B, cmd string) *flight.FlightDescriptor {
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(cmd)}
}
