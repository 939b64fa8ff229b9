package flightsql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/iceberg"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// countBatch is the one-row answer of COUNT(*).
func countBatch(mem memory.Allocator, names []string, n int64) (arrow.RecordBatch, error) {
	if len(names) != 1 {
		return nil, status.Error(codes.InvalidArgument, "flight sql: a count handle names one column")
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Append(n)
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(countSchema(names[0]), []arrow.Array{col}, 1), nil
}

// planCount answers COUNT(*) with one endpoint whose ticket holds the
// count: from the snapshot summary when the statement reads the current
// snapshot with no filter and the table has no deletes, else by streaming
// the matching rows with no columns, here.
func (s *server) planCount(ctx context.Context, q *query, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	n, err := s.count(ctx, q)
	if err != nil {
		return nil, err
	}
	names := []string{q.countName}
	var eps []*flight.FlightEndpoint
	if q.cmd.Limit == nil || *q.cmd.Limit > 0 {
		t, err := flightsql.CreateStatementQueryTicket(handle{Count: &n, Names: names}.encode())
		if err != nil {
			return nil, err
		}
		eps = append(eps, &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: t}})
	}
	return &flight.FlightInfo{
		Schema:           flight.SerializeSchema(countSchema(q.countName), s.cfg.mem),
		FlightDescriptor: desc,
		Endpoint:         eps,
		TotalRecords:     int64(len(eps)),
		TotalBytes:       -1,
	}, nil
}

func (s *server) count(ctx context.Context, q *query) (int64, error) {
	// LIMIT bounds the answer's one row, not the rows counted.
	cmd := proto.Clone(q.cmd).(*iceflightv1.Command)
	cmd.Limit = nil
	if cmd.Filter == "" && cmd.SnapshotId == nil && cmd.AsOfTimestampMs == nil && cmd.Ref == "" && cmd.MetadataTable == "" && cmd.Changes == nil {
		t, err := s.engine.LoadTable(ctx, cmd.Table)
		if err != nil {
			return 0, err
		}
		snap := t.Metadata.CurrentSnapshot()
		if snap == nil {
			return 0, nil
		}
		if n, ok := summaryCount(t.Metadata.FormatVersion, snap.Summary); ok {
			return n, nil
		}
	}
	info, err := s.engine.PlanCommand(ctx, cmd, &flight.FlightDescriptor{Type: flight.DescriptorCMD})
	if err != nil {
		return 0, err
	}
	var n int64
	for _, ep := range info.Endpoint {
		rows, err := s.engine.Count(ctx, ep.GetTicket().GetTicket())
		n += rows
		if err != nil {
			return 0, fmt.Errorf("count the rows of %s: %w", cmd.Table, err)
		}
	}
	return n, nil
}

// summaryCount is a snapshot's row count from its summary, when the
// summary says there are no deletes to subtract.
func summaryCount(formatVersion int, summary iceberg.Summary) (int64, bool) {
	n, err := strconv.ParseInt(summary.Value("total-records"), 10, 64)
	if err != nil {
		return 0, false
	}
	if formatVersion < 2 {
		return n, true
	}
	zero := func(key string) bool { return summary.Value(key) == "0" }
	if zero("total-delete-files") || zero("total-position-deletes") && zero("total-equality-deletes") {
		return n, true
	}
	return 0, false
}

// CreatePreparedStatement checks a statement and answers its schemas; the
// handle is the statement itself (see handle).
func (s *server) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	var res flightsql.ActionCreatePreparedStatementResult
	if len(req.GetTransactionId()) > 0 {
		return res, status.Error(codes.Unimplemented, "flight sql: transactions are not supported")
	}
	sel, _, full, err := s.prepare(ctx, req.GetQuery(), nil)
	if err != nil {
		return res, err
	}
	schema, err := s.schema(ctx, req.GetQuery())
	if err != nil {
		return res, err
	}
	params, err := parameterSchema(sel, full)
	if err != nil {
		return res, err
	}
	isUpdate := false
	return flightsql.ActionCreatePreparedStatementResult{
		Handle:          handle{SQL: req.GetQuery()}.encode(),
		DatasetSchema:   schema,
		ParameterSchema: params,
		IsUpdate:        &isUpdate,
	}, nil
}

// ClosePreparedStatement has nothing to free: handles hold no state.
func (s *server) ClosePreparedStatement(context.Context, flightsql.ActionClosePreparedStatementRequest) error {
	return nil
}

// DoPutPreparedStatementQuery binds one row of parameters and answers the
// handle with the values in it.
func (s *server) DoPutPreparedStatementQuery(ctx context.Context, cmd flightsql.PreparedStatementQuery, rdr flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	h, err := decodeHandle(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	sel, err := Parse(h.SQL)
	if err != nil {
		return nil, sqlError(err)
	}
	var params []string
	rows := 0
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			if rows++; rows > 1 {
				return nil, status.Error(codes.Unimplemented, "flight sql: a prepared statement runs with one row of parameters; bind each row in its own execution")
			}
			if int(rec.NumCols()) != len(sel.Params) {
				return nil, status.Errorf(codes.InvalidArgument, "flight sql: the statement has %d placeholders and %d parameters were bound", len(sel.Params), rec.NumCols())
			}
			for c, col := range rec.Columns() {
				lit, err := parameterLiteral(col, r)
				if err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "flight sql: parameter %d: %v", c+1, err)
				}
				params = append(params, lit)
			}
		}
	}
	if err := rdr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if rows == 0 && len(sel.Params) > 0 {
		return nil, status.Errorf(codes.InvalidArgument, "flight sql: the statement has %d placeholders and no parameters were bound", len(sel.Params))
	}
	h.Params = params
	return h.encode(), nil
}

// GetFlightInfoPreparedStatement plans a prepared statement with the
// parameters its handle holds.
func (s *server) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	h, err := decodeHandle(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	params := h.Params
	if params == nil {
		params = []string{}
	}
	return s.plan(ctx, h.SQL, params, desc)
}

// GetSchemaPreparedStatement answers a prepared statement's schema.
func (s *server) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	h, err := decodeHandle(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	schema, err := s.schema(ctx, h.SQL)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, s.cfg.mem)}, nil
}
