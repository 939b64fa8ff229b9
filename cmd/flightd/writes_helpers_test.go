package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/testkit/writecheck"
)

// The write tests speak the wire contract of issue 13 with a plain Flight
// client: DoPut with a CMD descriptor {"table", "mode", "filter"} and one
// PutResult whose app_metadata is actions.WriteResult's JSON; DoAction with JSON
// bodies and JSON results.

// putCommand is the DoPut descriptor's command.
type putCommand struct {
	Table  string `json:"table"`
	Mode   string `json:"mode"`
	Filter string `json:"filter,omitempty"`
}

// put streams recs to table with DoPut and returns the commit's result.
func put(ctx context.Context, fc flight.Client, cmd putCommand, recs ...arrow.RecordBatch) (actions.WriteResult, error) {
	var res actions.WriteResult
	if len(recs) == 0 {
		return res, errors.New("put needs a batch for its schema")
	}
	body, err := json.Marshal(cmd)
	if err != nil {
		return res, err
	}
	stream, err := fc.DoPut(ctx)
	if err != nil {
		return res, err
	}
	w := flight.NewRecordWriter(stream, ipc.WithSchema(recs[0].Schema()))
	w.SetFlightDescriptor(&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: body})
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			w.Close()
			return res, putError(stream, err)
		}
	}
	if err := w.Close(); err != nil {
		return res, putError(stream, err)
	}
	if err := stream.CloseSend(); err != nil {
		return res, err
	}
	var got *flight.PutResult
	for {
		pr, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, err
		}
		got = pr
	}
	if got == nil {
		return res, errors.New("DoPut answered no PutResult")
	}
	if err := json.Unmarshal(got.AppMetadata, &res); err != nil {
		return res, fmt.Errorf("PutResult app_metadata %q: %w", got.AppMetadata, err)
	}
	return res, nil
}

// putError is the server's status when a send failed because the server
// ended the call (gRPC reports io.EOF on Send then).
func putError(stream flight.FlightService_DoPutClient, sendErr error) error {
	if !errors.Is(sendErr, io.EOF) {
		return sendErr
	}
	for {
		if _, err := stream.Recv(); err != nil {
			return err
		}
	}
}

// action runs one DoAction with body as JSON and decodes its first result
// into out (when not nil).
func action(ctx context.Context, fc flight.Client, name string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	stream, err := fc.DoAction(ctx, &flight.Action{Type: name, Body: b})
	if err != nil {
		return err
	}
	first := true
	for {
		r, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if first && out != nil {
			if err := json.Unmarshal(r.Body, out); err != nil {
				return fmt.Errorf("%s result %q: %w", name, r.Body, err)
			}
		}
		first = false
	}
}

// createTable is the create_table action's body.
type createTable struct {
	Table         string                   `json:"table"`
	Schema        []byte                   `json:"schema"` // Arrow IPC schema, base64 in JSON
	PartitionBy   []actions.PartitionField `json:"partition_by,omitempty"`
	Properties    map[string]string        `json:"properties,omitempty"`
	FormatVersion int                      `json:"format_version,omitempty"`
	IfNotExists   bool                     `json:"if_not_exists,omitempty"`
}

func newTable(name string, schema *arrow.Schema, version int, spec ...actions.PartitionField) createTable {
	return createTable{Table: name, Schema: flight.SerializeSchema(schema, memory.DefaultAllocator), PartitionBy: spec, FormatVersion: version}
}

// readFlight reads table's current snapshot through flightd in canonical
// form against the schema Iceberg Java reports.
func readFlight(ctx context.Context, t *testing.T, fc flight.Client, table string, r *writecheck.Report) []string {
	t.Helper()
	cmd, _ := json.Marshal(map[string]any{"table": table})
	rows, err := scanRows(ctx, fc, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd}, &r.Schema)
	if err != nil {
		t.Fatalf("iceflight read of %s: %v", table, err)
	}
	return rows
}

// tableDir finds the folder of table ns.name below a directory
// warehouse: ns/name or ns.db/name.
func tableDir(t *testing.T, warehouse, ns, name string) string {
	t.Helper()
	for _, d := range []string{filepath.Join(warehouse, ns, name), filepath.Join(warehouse, ns+".db", name)} {
		if st, err := os.Stat(filepath.Join(d, "metadata")); err == nil && st.IsDir() {
			return d
		}
	}
	t.Fatalf("no folder of %s.%s below %s", ns, name, warehouse)
	return ""
}

// rowsOf renders model rows (column name to the oracle's JSON value) in
// canonical form against the schema Iceberg Java reports; columns the
// schema lacks are dropped, columns the rows lack are null.
func rowsOf(t *testing.T, r *writecheck.Report, rows []map[string]any) []string {
	t.Helper()
	out := make([]string, 0, len(rows))
	for _, m := range rows {
		obj := map[string]any{}
		for _, f := range r.Schema.Fields {
			obj[f.Name] = m[f.Name]
		}
		line, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		row, err := testutil.OracleRow(&r.Schema, line)
		if err != nil {
			t.Fatalf("expected row %s: %v", line, err)
		}
		out = append(out, row)
	}
	return out
}
