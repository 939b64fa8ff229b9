// Package flightsql is iceflight's Flight SQL front end: a SQL subset
// (Supported) mapped onto the same plan and stream core as the plain
// Flight service, so ADBC, JDBC and the BI tools built on them can query
// iceflight while keeping its parallel endpoints and worker locations.
//
// It is served on the plain service's port: the port's router (package
// flight's Mux) hands over the descriptors, tickets and actions whose Any
// type URL or action type are Flight SQL's. The front end plans and
// streams through the engine (package engine), so authentication,
// grants, limits, metrics, the call log and the stream sink apply once,
// in the same place, whichever protocol a call came in on.
package flightsql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// Option configures a FrontEnd.
type Option func(*config)

type config struct {
	mem          memory.Allocator
	catalogs     bool
	version      string
	maxEndpoints int32
}

// DefaultMaxEndpoints caps the endpoints of a statement's plan. ADBC's
// Flight SQL driver opens a stream for every endpoint at once and drains
// them in order, so a plan of the plain protocol's 64 endpoints would hold
// 64 streams' buffers on the server for one query (1 GB on the read
// benchmark's 2,000 small files) while reading little faster.
const DefaultMaxEndpoints = 16

// WithMaxEndpoints caps the endpoints of a statement's plan (0: the
// planner's own cap, as for the plain protocol).
func WithMaxEndpoints(n int) Option { return func(c *config) { c.maxEndpoints = int32(n) } }

// WithAllocator sets the allocator of the batches the front end builds.
func WithAllocator(mem memory.Allocator) Option { return func(c *config) { c.mem = mem } }

// WithCatalogs says that the first part of every table name is a mounted
// catalog's name, which Flight SQL then reports as the table's catalog;
// without it tables have no catalog and namespaces are schemas.
func WithCatalogs() Option { return func(c *config) { c.catalogs = true } }

// WithVersion sets the server version GetSqlInfo reports.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// FrontEnd serves Flight SQL over an engine; it is one of the front ends
// package flight's Mux routes to.
type FrontEnd struct {
	flight.FlightServer // arrow-go's dispatcher over srv
	srv                 *server
}

// New returns the Flight SQL front end over engine.
func New(eng *engine.Engine, opts ...Option) (*FrontEnd, error) {
	cfg := config{mem: memory.DefaultAllocator, version: "dev", maxEndpoints: DefaultMaxEndpoints}
	for _, o := range opts {
		o(&cfg)
	}
	srv := &server{engine: eng, cfg: cfg}
	if err := srv.registerSqlInfo(); err != nil {
		return nil, err
	}
	return &FrontEnd{FlightServer: flightsql.NewFlightServerWithAllocator(srv, cfg.mem), srv: srv}, nil
}

// sqlTypePrefix starts the type URL of every Flight SQL command.
const sqlTypePrefix = "type.googleapis.com/arrow.flight.protocol.sql."

// claims reports whether b is a protobuf Any of a Flight SQL message.
func claims(b []byte) bool {
	var a anypb.Any
	return len(b) > 0 && proto.Unmarshal(b, &a) == nil && strings.HasPrefix(a.GetTypeUrl(), sqlTypePrefix)
}

// ClaimsDescriptor reports whether d is a Flight SQL command.
func (fe *FrontEnd) ClaimsDescriptor(d *flight.FlightDescriptor) bool {
	return d.GetType() == flight.DescriptorCMD && claims(d.GetCmd())
}

// ClaimsTicket reports whether t is a Flight SQL ticket; iceflight's own
// signed tickets never decode as one.
func (fe *FrontEnd) ClaimsTicket(t *flight.Ticket) bool { return claims(t.GetTicket()) }

// actions are the Flight SQL action types the front end serves.
var actions = []*flight.ActionType{
	{Type: flightsql.CreatePreparedStatementActionType, Description: "Flight SQL: prepare a SELECT of the supported subset; its handle is self-contained, so any process of the deployment executes it"},
	{Type: flightsql.ClosePreparedStatementActionType, Description: "Flight SQL: close a prepared statement (its handle holds no server state)"},
}

// ClaimsAction reports whether actionType is a Flight SQL action.
func (fe *FrontEnd) ClaimsAction(actionType string) bool {
	for _, a := range actions {
		if a.Type == actionType {
			return true
		}
	}
	return false
}

// Actions lists the Flight SQL action types for ListActions.
func (fe *FrontEnd) Actions() []*flight.ActionType { return actions }

// DoGet streams a statement's ticket itself, through the engine (so that
// a wrapped iceflight ticket is verified and limited as DoGet does), and
// hands the metadata commands' tickets to arrow-go's dispatcher.
func (fe *FrontEnd) DoGet(tkt *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	var a anypb.Any
	var tq pb.TicketStatementQuery
	if proto.Unmarshal(tkt.GetTicket(), &a) == nil && a.MessageIs(&tq) && a.UnmarshalTo(&tq) == nil {
		return fe.srv.streamStatement(stream.Context(), tq.GetStatementHandle(), stream)
	}
	return fe.FlightServer.DoGet(tkt, stream)
}

// server implements arrow-go's flightsql.Server over the engine.
type server struct {
	flightsql.BaseServer
	engine *engine.Engine
	cfg    config
}

// sqlError is the gRPC status of a statement the front end cannot take.
func sqlError(err error) error {
	var se *SyntaxError
	var ue *UnsupportedError
	var ne *NameError
	switch {
	case errors.As(err, &ue):
		return status.Error(codes.Unimplemented, err.Error())
	case errors.As(err, &se), errors.Is(err, errBadParams):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.As(err, &ne):
		return status.Error(codes.NotFound, err.Error())
	}
	return err
}

// prepare parses sql and binds it for the caller of ctx; params nil
// leaves the filter unbound (a statement being prepared). It answers the
// schema the statement's snapshot selection streams, which bound it.
func (s *server) prepare(ctx context.Context, sql string, params []string) (*Select, *query, *arrow.Schema, error) {
	sel, err := Parse(sql)
	if err != nil {
		return nil, nil, nil, sqlError(err)
	}
	id, kind, err := s.table(ctx, sel.Table)
	if err != nil {
		return nil, nil, nil, err
	}
	var schema *arrow.Schema
	schemaOf := func(cmd *iceflightv1.Command) (*arrow.Schema, error) {
		var err error
		schema, err = s.engine.CommandSchema(ctx, &iceflightv1.Command{Table: cmd.Table, SnapshotId: cmd.SnapshotId,
			AsOfTimestampMs: cmd.AsOfTimestampMs, Ref: cmd.Ref, MetadataTable: kind, Changes: cmd.Changes})
		return schema, err
	}
	q, err := bind(sel, id, schemaOf, params)
	if err != nil {
		return nil, nil, nil, sqlError(err)
	}
	q.cmd.MetadataTable = kind
	q.cmd.MaxEndpoints = s.cfg.maxEndpoints
	return sel, q, schema, nil
}

// table resolves a statement's table among those the caller may read. A
// name matching none is looked up directly, so that a table the caller may
// not read is refused as the plain protocol refuses it (without telling
// whether it exists) and one a failed catalog listing left out is found.
func (s *server) table(ctx context.Context, parts []Ident) (catalog.Identifier, string, error) {
	ids, _, err := s.engine.ReadableTables(ctx)
	if err != nil {
		return nil, "", err
	}
	id, err := resolveTable(parts, ids)
	var ne *NameError
	if base, kind, ok := splitMetadataTable(parts); ok && errors.As(err, &ne) && len(ne.Ambiguous) == 0 {
		// "t$files" names the files metadata table of t, unless a table
		// is called so.
		id, err := s.dataTable(ctx, base, ids)
		return id, kind, err
	}
	if err == nil {
		return id, "", nil
	}
	id, err = s.dataTable(ctx, parts, ids)
	return id, "", err
}

// dataTable is table's lookup of a data table, given the readable tables.
func (s *server) dataTable(ctx context.Context, parts []Ident, ids []catalog.Identifier) (catalog.Identifier, error) {
	id, err := resolveTable(parts, ids)
	var ne *NameError
	if err == nil || !errors.As(err, &ne) || len(ne.Ambiguous) > 0 {
		return id, sqlError(err)
	}
	t, lerr := s.engine.LoadTable(ctx, plainPath(parts))
	switch {
	case lerr == nil:
		return t.Identifier, nil
	case errors.Is(lerr, catalog.ErrTableNotFound), errors.Is(lerr, catalog.ErrInvalidIdentifier):
		return nil, sqlError(err)
	}
	return nil, lerr
}

// handle is a statement or ticket handle. It is self-contained, so any
// process of a deployment serves it; it needs no signature because every
// part of it is checked again when used: a statement's SQL is parsed and
// authorized anew, a wrapped ticket is verified by the engine, and a
// count is only ever a number the holder could have computed itself.
type handle struct {
	// SQL and Params are a (prepared) statement.
	SQL string `json:"sql,omitempty"`
	// Params are the bound values, as literals of the filter grammar.
	Params []string `json:"params,omitempty"`
	// Ticket is an iceflight ticket whose columns Names renames.
	Ticket []byte   `json:"ticket,omitempty"`
	Names  []string `json:"names,omitempty"`
	// Count answers COUNT(*).
	Count *int64 `json:"count,omitempty"`
}

func (h handle) encode() []byte {
	b, _ := json.Marshal(h) // a struct of plain fields always marshals
	return b
}

func decodeHandle(b []byte) (handle, error) {
	var h handle
	if err := json.Unmarshal(b, &h); err != nil {
		return h, status.Errorf(codes.InvalidArgument, "flight sql: not a statement handle of this server: %v", err)
	}
	return h, nil
}

// GetFlightInfoStatement plans a query: its endpoints are the plain
// plan's, with their worker locations, so clients read them in parallel.
func (s *server) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if len(cmd.GetTransactionId()) > 0 {
		return nil, status.Error(codes.Unimplemented, "flight sql: transactions are not supported")
	}
	return s.plan(ctx, cmd.GetQuery(), []string{}, desc)
}

// GetSchemaStatement answers a query's schema without planning it.
func (s *server) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	schema, err := s.schema(ctx, cmd.GetQuery())
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, s.cfg.mem)}, nil
}

// schema is the schema sql answers with, its filter left unbound.
func (s *server) schema(ctx context.Context, sql string) (*arrow.Schema, error) {
	_, q, _, err := s.prepare(ctx, sql, nil)
	if err != nil {
		return nil, err
	}
	if q.count {
		return countSchema(q.countName), nil
	}
	schema, err := s.engine.CommandSchema(ctx, q.cmd)
	if err != nil {
		return nil, err
	}
	return engine.RenameColumns(schema, q.names), nil
}

func countSchema(name string) *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.PrimitiveTypes.Int64}}, nil)
}

// plan plans sql with params bound into a FlightInfo.
func (s *server) plan(ctx context.Context, sql string, params []string, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	_, q, _, err := s.prepare(ctx, sql, params)
	if err != nil {
		return nil, err
	}
	if q.count {
		return s.planCount(ctx, q, desc)
	}
	info, err := s.engine.PlanCommand(ctx, q.cmd, desc)
	if err != nil {
		return nil, err
	}
	if q.names == nil {
		return info, nil
	}
	// An alias renames columns the plain tickets stream under their own
	// names: each ticket is wrapped with the names, and the front end's
	// DoGet streams it renamed, on whichever process the endpoint names.
	schema, err := flight.DeserializeSchema(info.Schema, s.cfg.mem)
	if err != nil {
		return nil, fmt.Errorf("flight sql: the plan's schema: %w", err)
	}
	info.Schema = flight.SerializeSchema(engine.RenameColumns(schema, q.names), s.cfg.mem)
	for _, ep := range info.Endpoint {
		t, err := flightsql.CreateStatementQueryTicket(handle{Ticket: ep.GetTicket().GetTicket(), Names: q.names}.encode())
		if err != nil {
			return nil, err
		}
		ep.Ticket = &flight.Ticket{Ticket: t}
	}
	return info, nil
}

// streamStatement streams the rows of a statement ticket's handle.
func (s *server) streamStatement(ctx context.Context, b []byte, stream engine.MessageSender) error {
	h, err := decodeHandle(b)
	if err != nil {
		return err
	}
	switch {
	case h.Count != nil:
		rec, err := countBatch(s.cfg.mem, h.Names, *h.Count)
		if err != nil {
			return err
		}
		defer rec.Release()
		return s.engine.StreamBatch(stream, rec)
	case h.Ticket != nil:
		var opts []engine.StreamOption
		if h.Names != nil {
			opts = append(opts, engine.WithColumnNames(h.Names))
		}
		return s.engine.Stream(ctx, h.Ticket, stream, opts...)
	}
	return status.Error(codes.InvalidArgument, "flight sql: the statement handle holds neither a ticket nor a count")
}
