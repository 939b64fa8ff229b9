package flight

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/proto/actions"
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
	svc := newService(cat, reader.New(fileio.NewResolver()), testSigner(t, 7), engine.WithLimits(1, 1),
		engine.WithLogger(slog.New(slog.DiscardHandler)))
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
		release, err := svc.Engine().PlanSlot(ctx)
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

// manySnapshotsWarehouse writes a warehouse holding db.many: the metadata
// of samples.history with n snapshots and tags tags, enough to need several
// action results.
func manySnapshotsWarehouse(t *testing.T, n, tags int) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(warehouse, "samples", "history", "metadata", "v4.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	if err := json.Unmarshal(src, &md); err != nil {
		t.Fatal(err)
	}
	base := md["snapshots"].([]any)[0].(map[string]any)
	snaps := make([]any, n)
	refs := map[string]any{}
	for i := range snaps {
		s := maps.Clone(base)
		id := int64(1000 + i)
		s["snapshot-id"], s["timestamp-ms"], s["sequence-number"] = id, 1_700_000_000_000+int64(n-i), 1
		delete(s, "parent-snapshot-id")
		snaps[i] = s
	}
	for i := range tags {
		refs[fmt.Sprintf("tag-%06d", i)] = map[string]any{"snapshot-id": int64(1000 + i%n), "type": "tag"}
	}
	refs["main"] = map[string]any{"snapshot-id": int64(1000), "type": "branch"}
	dir := t.TempDir()
	md["snapshots"], md["refs"], md["current-snapshot-id"] = snaps, refs, int64(1000)
	md["snapshot-log"], md["metadata-log"] = []any{}, []any{}
	md["location"] = filepath.Join(dir, "db", "many")
	out, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(dir, "db", "many", "metadata")
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(meta, "v1.metadata.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLongActionAnswersArePaged lists a table of many snapshots and tags
// through the service: every result stays under maxResultBytes, and the
// results joined hold every snapshot, oldest first, and every ref.
func TestLongActionAnswersArePaged(t *testing.T) {
	t.Parallel()
	const n, tags = 3000, 30000 // about 2 MB of snapshots, 1.5 MB of refs
	cat, err := catalog.NewDirectory(manySnapshotsWarehouse(t, n, tags))
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(cat, reader.New(fileio.NewResolver()), testSigner(t, 7), engine.WithLogger(slog.New(slog.DiscardHandler)))
	results := func(kind string) [][]byte {
		stream := &fakeServerStream[*flight.Result]{ctx: context.Background()}
		if err := svc.DoAction(&flight.Action{Type: kind, Body: []byte(`{"table": "db.many"}`)}, stream); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		var out [][]byte
		for _, r := range stream.sent {
			if len(r.Body) > maxResultBytes {
				t.Errorf("%s: a result of %d bytes, over %d", kind, len(r.Body), maxResultBytes)
			}
			out = append(out, r.Body)
		}
		if len(out) < 2 {
			t.Errorf("%s: %d results, want several", kind, len(out))
		}
		return out
	}
	var snaps []actions.Snapshot
	for _, body := range results(ActionSnapshots) {
		var page []actions.Snapshot
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, page...)
	}
	if len(snaps) != n || !sort.SliceIsSorted(snaps, func(i, j int) bool { return snaps[i].TimestampMs < snaps[j].TimestampMs }) ||
		!snaps[n-1].Current || snaps[n-1].SnapshotID != 1000 {
		t.Errorf("joined pages hold %d snapshots (want %d), oldest first, the current one last", len(snaps), n)
	}
	refs := map[string]actions.Ref{}
	for _, body := range results(ActionRefs) {
		if err := json.Unmarshal(body, &refs); err != nil {
			t.Fatal(err)
		}
	}
	if len(refs) != tags+1 || refs["main"].Type != "branch" || refs["tag-003042"].SnapshotID != 1042 {
		t.Errorf("joined pages hold %d refs, want %d with main and every tag", len(refs), tags+1)
	}
}
