package flight

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestDictionaryCommand asks for string columns as dictionaries and checks
// that the FlightInfo, GetSchema and every streamed batch agree on the
// type, and that the values, row by row, are the plain read's.
func TestDictionaryCommand(t *testing.T) {
	h := serve(t, 97)
	ctx := context.Background()
	base := map[string]any{"table": "samples.trips", "filter": "fare > 1"}
	plain := h.rowsOf(ctx, t, base, nil)
	tests := []struct {
		name       string
		dictionary any
		dict       []string // the columns that come as dictionaries
	}{
		{"true: every string column", true, []string{"vendor", "note"}},
		{"a list of columns", []string{"note"}, []string{"note"}},
		{"false: none", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := map[string]any{"dictionary": tc.dictionary}
			for k, v := range base {
				cmd[k] = v
			}
			if got := h.rowsOf(ctx, t, cmd, tc.dict); fmt.Sprint(got) != fmt.Sprint(plain) {
				t.Fatalf("rows differ from the plain read:\n%v\nwant\n%v", got, plain)
			}
			res, err := h.client.GetSchema(ctx, testutil.CmdDesc(t, cmd))
			if err != nil {
				t.Fatal(err)
			}
			schema, err := flight.DeserializeSchema(res.Schema, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			checkDictionaryFields(t, schema, tc.dict)
		})
	}
	for _, bad := range []any{[]string{"fare"}, []string{"nope"}, 3, []string{""}} {
		_, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "dictionary": bad}))
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("dictionary %v: %v, want InvalidArgument", bad, err)
		}
	}
}

// rowsOf plans cmd, checks the FlightInfo's and every batch's schema make
// exactly dict dictionaries, and returns the rows as text, dictionaries
// decoded.
func (h *harness) rowsOf(ctx context.Context, t *testing.T, cmd map[string]any, dict []string) []string {
	t.Helper()
	info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, cmd))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	checkDictionaryFields(t, schema, dict)
	var rows []string
	h.each(ctx, t, info, func(rec arrow.RecordBatch) {
		if !rec.Schema().Equal(schema) {
			t.Fatalf("batch schema %s, FlightInfo's %s", rec.Schema(), schema)
		}
		for r := range int(rec.NumRows()) {
			row := ""
			for _, col := range rec.Columns() {
				row += col.ValueStr(r) + "|"
			}
			rows = append(rows, row)
		}
	})
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	return rows
}

func checkDictionaryFields(t *testing.T, schema *arrow.Schema, dict []string) {
	t.Helper()
	want := map[string]bool{}
	for _, n := range dict {
		want[n] = true
	}
	for _, f := range schema.Fields() {
		dt, isDict := f.Type.(*arrow.DictionaryType)
		if isDict != want[f.Name] {
			t.Fatalf("field %s is %s; want dictionary: %v", f.Name, f.Type, want[f.Name])
		}
		if isDict && (dt.IndexType.ID() != arrow.INT32 || dt.ValueType.ID() != arrow.STRING) {
			t.Fatalf("field %s is %s, want dictionary<int32, utf8>", f.Name, f.Type)
		}
	}
}

// TestIPCCompression streams with each compression: the rows are the
// uncompressed stream's, and the bodies on the wire are smaller.
func TestIPCCompression(t *testing.T) {
	ctx := context.Background()
	cmd := map[string]any{"table": "samples.trips"}
	var plainRows []string
	var plainBytes int
	for _, c := range []engine.Compression{engine.CompressionNone, engine.CompressionLZ4, engine.CompressionZstd} {
		h := serve(t, 1000, engine.WithCompression(c))
		rows := h.rowsOf(ctx, t, cmd, nil)
		info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, cmd))
		if err != nil {
			t.Fatal(err)
		}
		body := 0
		for _, ep := range info.Endpoint {
			stream, err := h.client.DoGet(ctx, ep.Ticket)
			if err != nil {
				t.Fatal(err)
			}
			for {
				fd, err := stream.Recv()
				if err != nil {
					break
				}
				body += len(fd.DataBody)
			}
		}
		if c == engine.CompressionNone {
			plainRows, plainBytes = rows, body
			continue
		}
		if fmt.Sprint(rows) != fmt.Sprint(plainRows) {
			t.Errorf("compression %d: rows differ from the uncompressed stream's", c)
		}
		if body >= plainBytes {
			t.Errorf("compression %d: %d body bytes, uncompressed %d", c, body, plainBytes)
		}
	}
	for _, s := range []string{"none", "LZ4", "zstd"} {
		if _, err := engine.ParseCompression(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := engine.ParseCompression("gzip"); err == nil {
		t.Error("gzip parsed")
	}
}
