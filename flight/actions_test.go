package flight

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/reader"
)

func TestSendPagesBoundsEachResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		n         int
		elemBytes int
		open, end byte
		wantPages int
	}{
		{"an empty answer is one empty page", 0, 0, '[', ']', 1},
		{"a short answer is one page", 10, 100, '[', ']', 1},
		{"a long array is split into pages under the bound", 30000, 100, '[', ']', 3},
		{"a long object is split the same way", 30000, 100, '{', '}', 3},
		{"an element over the bound gets a page of its own", 3, maxResultBytes + 10, '[', ']', 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			elem := func(i int) ([]byte, error) {
				pad := strings.Repeat("x", max(0, tt.elemBytes-20))
				if tt.open == '{' {
					return fmt.Appendf(nil, `"k%07d":"%s"`, i, pad), nil
				}
				return fmt.Appendf(nil, `"%07d%s"`, i, pad), nil
			}
			var pages [][]byte
			err := sendPages(context.Background(), tt.n, tt.open, tt.end, elem, func(b []byte) error {
				pages = append(pages, b)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(pages) != tt.wantPages {
				t.Fatalf("%d pages, want %d", len(pages), tt.wantPages)
			}
			var got []string
			for i, p := range pages {
				if len(p) > maxResultBytes && tt.elemBytes <= maxResultBytes {
					t.Errorf("page %d is %d bytes, over %d", i, len(p), maxResultBytes)
				}
				if tt.open == '{' {
					var m map[string]string
					if err := json.Unmarshal(p, &m); err != nil {
						t.Fatalf("page %d: %v", i, err)
					}
					for k := range m {
						got = append(got, k)
					}
					continue
				}
				var a []string
				if err := json.Unmarshal(p, &a); err != nil {
					t.Fatalf("page %d: %v", i, err)
				}
				got = append(got, a...)
			}
			if len(got) != tt.n {
				t.Fatalf("pages hold %d elements, want %d", len(got), tt.n)
			}
		})
	}
}

func TestSendPagesStopsWhenTheCallEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := sendPages(ctx, 10, '[', ']', func(int) ([]byte, error) { return []byte("1"), nil }, func([]byte) error { return nil })
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// fakeServerStream is the server side of a streaming call, served in
// process: only Context and Send are used.
type fakeServerStream[T any] struct {
	grpc.ServerStream
	ctx  context.Context
	sent []T
}

func (f *fakeServerStream[T]) Context() context.Context { return f.ctx }
func (f *fakeServerStream[T]) Send(m T) error {
	f.sent = append(f.sent, m)
	return nil
}

// TestActionsAndListingsTakeAPlanningSlot checks that DoAction and
// ListFlights, which load table metadata, are refused like GetFlightInfo
// while the planning limit is reached, and run once a slot is free.
func TestActionsAndListingsTakeAPlanningSlot(t *testing.T) {
	t.Parallel()
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(cat, reader.New(fileio.NewResolver()), testSigner(t, 7), WithLimits(1, 1),
		WithLogger(slog.New(slog.DiscardHandler)))
	ctx := context.Background()
	calls := map[string]func() error{
		"DoAction snapshots": func() error {
			return svc.DoAction(&flight.Action{Type: ActionSnapshots, Body: []byte(`{"table": "samples.history"}`)},
				&fakeServerStream[*flight.Result]{ctx: ctx})
		},
		"ListFlights": func() error {
			return svc.ListFlights(&flight.Criteria{}, &fakeServerStream[*flight.FlightInfo]{ctx: ctx})
		},
	}
	for name, call := range calls {
		release, err := svc.plans.acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := call(); status.Code(err) != codes.ResourceExhausted {
			t.Errorf("%s while the only planning slot is taken: %v, want ResourceExhausted", name, err)
		}
		release()
		if err := call(); err != nil {
			t.Errorf("%s with a free slot: %v", name, err)
		}
	}
}
