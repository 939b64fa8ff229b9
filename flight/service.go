// Package flight is iceflight's Arrow Flight service: it turns descriptors
// into planned scans with signed tickets (GetFlightInfo, GetSchema,
// ListFlights) and redeems tickets as Arrow record batch streams (DoGet).
package flight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.opentelemetry.io/otel"
	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// ReuseConnection is the location that tells a client to fetch an endpoint
// over the connection it planned on.
const ReuseConnection = "arrow-flight-reuse-connection://?"

var tracer = otel.Tracer("github.com/iceflight/iceflight/flight")

// Service implements the Flight RPCs over a catalog.
type Service struct {
	flight.BaseFlightServer

	catalog catalog.Catalog
	planner *planner.Planner
	reader  *reader.Reader
	// compression is the IPC body compression of DoGet streams.
	compression Compression
	// profiles are the readers of the storage profiles tickets name.
	profiles map[string]*reader.Reader
	signer   *Signer
	mem      memory.Allocator
	log      *slog.Logger

	role      Role
	workers   *Workers
	advertise string
	streams   *limiter
	plans     *limiter
	auth      *Authenticator
	metrics   *Metrics
	// maxInfoBytes is the FlightInfo budget; see planInfo.
	maxInfoBytes int
	// storage builds the FileIO of tickets with sealed storage properties;
	// see WithStorage.
	storage StorageFunc
	// frontEnd serves Flight SQL on the same port; see FrontEnd.
	frontEnd FrontEnd
	writeConfig
}

// Option configures a Service.
type Option func(*Service)

// WithAllocator sets the allocator used for schemas and streams.
func WithAllocator(mem memory.Allocator) Option { return func(s *Service) { s.mem = mem } }

// WithLogger sets the logger for per-request diagnostics.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// WithPlanner replaces the default planner.
func WithPlanner(p *planner.Planner) Option { return func(s *Service) { s.planner = p } }

// WithRole sets what the service does; the default is RoleAll.
func WithRole(r Role) Option { return func(s *Service) { s.role = r } }

// WithWorkers places endpoints on w's workers instead of this process.
func WithWorkers(w *Workers) Option { return func(s *Service) { s.workers = w } }

// WithAdvertise sets the location URI (grpc://host:port) written into
// endpoints when there are no workers, instead of the reuse-connection
// location.
func WithAdvertise(uri string) Option { return func(s *Service) { s.advertise = uri } }

// WithAuthenticator makes every table access check the caller's
// namespaces and serves Handshake. The same Authenticator's interceptors
// must run on the server; without them every table call is refused.
func WithAuthenticator(a *Authenticator) Option { return func(s *Service) { s.auth = a } }

// WithMetrics records rows, bytes, streams, plan latency and refusals.
func WithMetrics(m *Metrics) Option { return func(s *Service) { s.metrics = m } }

// WithLimits bounds the concurrent DoGet streams and planning calls
// (GetFlightInfo, PollFlightInfo, GetSchema, ListFlights, DoAction); 0
// means unbounded.
func WithLimits(maxStreams, maxPlans int) Option {
	return func(s *Service) {
		s.streams, s.plans = newLimiter("DoGet", maxStreams), newLimiter("planning", maxPlans)
	}
}

// WithProfileReaders sets the reader of each storage profile, by the name
// of the mounted catalog (catalog.Registry) whose storage it reads: a
// ticket of a mounted catalog's table reads its files with that catalog's
// reader, and one naming a profile this service lacks is refused. The
// readers of a coordinator and its workers must come from one
// configuration.
func WithProfileReaders(readers map[string]*reader.Reader) Option {
	return func(s *Service) { s.profiles = readers }
}

// NewService returns a Service that serves cat's tables, reads files with
// rd (and those of mounted catalogs with their profiles' readers, see
// WithProfileReaders) and signs tickets with signer.
func NewService(cat catalog.Catalog, rd *reader.Reader, signer *Signer, opts ...Option) *Service {
	s := &Service{catalog: cat, reader: rd, signer: signer, planner: planner.New(),
		mem: memory.DefaultAllocator, log: slog.Default(),
		streams: newLimiter("DoGet", DefaultMaxStreams), plans: newLimiter("planning", DefaultMaxPlans),
		maxInfoBytes: DefaultMaxFlightInfoBytes}
	s.puts = newLimiter("DoPut", DefaultMaxPuts)
	for _, o := range opts {
		o(s)
	}
	return s
}

// loadTable resolves a command's table name through the catalog once the
// caller is known to be allowed to read it, so a refusal does not tell
// whether the table exists.
func (s *Service) loadTable(ctx context.Context, name string) (*catalog.Table, error) {
	id, err := catalog.ParseIdentifier(name)
	if err != nil {
		return nil, err
	}
	if err := s.auth.authorize(ctx, id); err != nil {
		return nil, err
	}
	tbl, err := s.catalog.LoadTable(ctx, id)
	if err != nil {
		return nil, s.tableHint(ctx, id, err)
	}
	// The caller's view: no file of a table it may not read is opened.
	// A mounted catalog names its tables without its own name, which the
	// caller's grants start with.
	access := s.auth.access(ctx)
	if access != nil && tbl.Catalog != "" {
		grants := access
		access = func(id catalog.Identifier) bool { return grants(append(catalog.Identifier{tbl.Catalog}, id...)) }
	}
	return tbl.ForCaller(access), nil
}

// authorizeTicket checks that the caller may read a ticket's table.
func (s *Service) authorizeTicket(ctx context.Context, t *iceflightv1.Ticket) error {
	if s.auth == nil {
		return nil
	}
	id, err := catalog.ParseIdentifier(t.Table)
	if err != nil {
		return fmt.Errorf("%w: table %q: %v", errTicketInvalid, t.Table, err)
	}
	return s.auth.authorize(ctx, id)
}

// Handshake logs a Basic user in and returns a session bearer token (see
// Authenticator.Handshake).
func (s *Service) Handshake(stream flight.FlightService_HandshakeServer) (err error) {
	defer s.endCall(stream.Context(), &err)
	defer panics.Recover(&err, "Handshake")
	return s.auth.Handshake(stream)
}

func plannerTable(t *catalog.Table) planner.Table {
	return planner.Table{Name: t.Identifier.String(), MetadataLocation: t.MetadataLocation, Metadata: t.Metadata, IO: t.IO, Check: t.CheckFile}
}

func request(cmd *iceflightv1.Command) (planner.Request, error) {
	req := planner.Request{
		Selection:        planner.Selection{SnapshotID: cmd.SnapshotId, AsOfTimestamp: cmd.AsOfTimestampMs, Ref: cmd.Ref},
		Columns:          cmd.Columns,
		CaseSensitive:    cmd.CaseSensitive == nil || *cmd.CaseSensitive,
		MaxEndpoints:     int(cmd.MaxEndpoints),
		TargetSplitBytes: cmd.TargetSplitBytes,
		Limit:            cmd.GetLimit(),
		Dictionary:       planner.Dictionary{All: cmd.DictionaryAll, Columns: cmd.DictionaryColumns},
	}
	if cmd.NoColumns {
		req.Columns = []string{}
	}
	if cmd.Filter != "" {
		f, err := planner.ParseFilter(cmd.Filter)
		if err != nil {
			return req, fmt.Errorf("table %s: filter: %w", cmd.Table, err)
		}
		req.Filter = f
	}
	return req, nil
}

// GetFlightInfo plans a scan and returns one signed ticket per endpoint.
func (s *Service) GetFlightInfo(ctx context.Context, desc *flight.FlightDescriptor) (_ *flight.FlightInfo, err error) {
	// The call log interceptor traces and logs the call; errors only
	// need their status here.
	defer s.endCall(ctx, &err)
	defer panics.Recover(&err, "GetFlightInfo")
	return s.flightInfo(ctx, desc)
}

func (s *Service) flightInfo(ctx context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if s.frontEnd != nil && s.frontEnd.ClaimsDescriptor(desc) {
		return s.frontEnd.GetFlightInfo(ctx, desc)
	}
	if err := s.needPlanner("GetFlightInfo"); err != nil {
		return nil, err
	}
	cmd, err := ParseDescriptor(desc)
	if err != nil {
		return nil, err
	}
	return s.PlanCommand(ctx, cmd, desc)
}

// planSource is what a plan's tickets take from the table it was planned
// on.
type planSource struct {
	// recorded names a file as the table's metadata records it.
	recorded func(string) string
	// profile is the storage profile that reads the table's files.
	profile string
	// storage is the table's vended storage, sealed for its tickets.
	storage ticketStorage
}

// buildInfo builds the FlightInfo of a plan on head (its schema and
// descriptor) and measures it for planInfo.
func (s *Service) buildInfo(head *flight.FlightInfo, plan *planner.Plan, schemas ticketSchemas, src planSource) (*flight.FlightInfo, infoSize, error) {
	info := &flight.FlightInfo{
		Schema:           head.Schema,
		FlightDescriptor: head.FlightDescriptor,
		TotalRecords:     plan.Stats.Records,
		TotalBytes:       plan.Stats.Bytes,
	}
	var err error
	if info.AppMetadata, err = json.Marshal(plan.Stats); err != nil {
		return nil, infoSize{}, err
	}
	// Endpoints are independent, and a plan of many files spends much of
	// its time encoding and signing their tickets: build them in parallel.
	// A plan of few tasks takes microseconds an endpoint, less than
	// starting and waking goroutines costs, so it builds them in turn.
	info.Endpoint = make([]*flight.FlightEndpoint, len(plan.Endpoints))
	sizes := make([]endpointSize, len(plan.Endpoints))
	if plan.Stats.Tasks < parallelEndpointTasks {
		for i, ep := range plan.Endpoints {
			if info.Endpoint[i], sizes[i], err = s.endpoint(plan, schemas, ep, src); err != nil {
				return nil, infoSize{}, err
			}
		}
		return info, measure(info, sizes), nil
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, ep := range plan.Endpoints {
		g.Go(panics.Func("table "+plan.Table+": build endpoint", func() error {
			fe, size, err := s.endpoint(plan, schemas, ep, src)
			info.Endpoint[i], sizes[i] = fe, size
			return err
		}))
	}
	if err := g.Wait(); err != nil {
		return nil, infoSize{}, err
	}
	return info, measure(info, sizes), nil
}

// endpointMetadata is each endpoint's app_metadata. The file list stops at
// maxListedFiles: a plan of 100,000 files would otherwise spend a large
// share of its FlightInfo repeating every path already in the tickets.
type endpointMetadata struct {
	Files     []string `json:"files"`
	FileCount int      `json:"file_count"`
	Tasks     int      `json:"tasks"`
	Bytes     int64    `json:"bytes"`
	Records   int64    `json:"records"`
}

// parallelEndpointTasks is the plan size, in tasks, from which endpoints
// are built in parallel.
const parallelEndpointTasks = 1024

// maxListedFiles caps the files an endpoint's app_metadata names.
const maxListedFiles = 100

// ticketSchemas are what every ticket of a plan carries, encoded once for
// all of them: the schemas, the name mapping and the table's sealed
// storage.
type ticketSchemas struct {
	read, equality, filter *iceflightv1.Schema
	mapping                *iceflightv1.NameMapping
	storage                ticketStorage
}

func encodeTicketSchemas(plan *planner.Plan) (ticketSchemas, error) {
	out := ticketSchemas{read: encodeSchema(plan.Schema), equality: encodeSchema(plan.EqualitySchema), filter: encodeSchema(plan.FilterSchema)}
	if plan.NameMappingJSON != "" {
		m, err := iceberg.ParseNameMapping([]byte(plan.NameMappingJSON))
		if err != nil {
			return out, fmt.Errorf("table %s: %w", plan.Table, err)
		}
		out.mapping = encodeNameMapping(m)
	}
	return out, nil
}

// endpoint builds the signed endpoint of ep and measures it. Its
// app_metadata names files as the table's metadata does, never by the
// server's paths.
func (s *Service) endpoint(plan *planner.Plan, schemas ticketSchemas, ep planner.Endpoint, src planSource) (*flight.FlightEndpoint, endpointSize, error) {
	t := &iceflightv1.Ticket{
		Table:            plan.Table,
		MetadataLocation: plan.MetadataLocation,
		SnapshotId:       plan.Snapshot.SnapshotID,
		Schema:           schemas.read,
		EqualitySchema:   schemas.equality,
		FilterSchema:     schemas.filter,
		NameMapping:      schemas.mapping,
		Tasks:            ep.Tasks,
		Limit:            plan.Limit,
		StorageProfile:   src.profile,

		SealedStorage:             schemas.storage.sealed,
		CredentialsExpireAtUnixMs: schemas.storage.expiresMs,
	}
	for _, id := range plan.Dictionary {
		t.DictionaryFieldIds = append(t.DictionaryFieldIds, int32(id))
	}
	md := endpointMetadata{Bytes: ep.Bytes, Records: ep.Records, Tasks: len(ep.Tasks)}
	seen := make(map[string]bool, len(ep.Tasks))
	for _, task := range ep.Tasks {
		if seen[task.Path] {
			continue // splits of one file
		}
		seen[task.Path] = true
		md.FileCount++
		if len(md.Files) < maxListedFiles {
			md.Files = append(md.Files, src.recorded(task.Path))
		}
	}
	appMD, err := json.Marshal(md)
	if err != nil {
		return nil, endpointSize{}, err
	}
	locs, err := s.locations(ep.Tasks)
	if err != nil {
		return nil, endpointSize{}, fmt.Errorf("table %s: %w", plan.Table, err)
	}
	defer compactTicket(t)()
	ticket, err := s.signer.Sign(t)
	if err != nil {
		return nil, endpointSize{}, fmt.Errorf("table %s: %w", plan.Table, err)
	}
	fe := &flight.FlightEndpoint{
		Ticket:         &flight.Ticket{Ticket: ticket},
		Location:       locs,
		ExpirationTime: timestamppb.New(time.UnixMilli(t.ExpiresAtUnixMs)),
		AppMetadata:    appMD,
	}
	return fe, sizeEndpoint(fe, t, s.signer.KeyID()), nil
}

// GetSchema returns the schema a GetFlightInfo for desc would stream,
// without reading manifests.
func (s *Service) GetSchema(ctx context.Context, desc *flight.FlightDescriptor) (_ *flight.SchemaResult, err error) {
	defer s.endCall(ctx, &err)
	defer panics.Recover(&err, "GetSchema")
	if s.frontEnd != nil && s.frontEnd.ClaimsDescriptor(desc) {
		return s.frontEnd.GetSchema(ctx, desc)
	}
	schema, err := s.schema(ctx, desc)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, s.mem)}, nil
}

func (s *Service) schema(ctx context.Context, desc *flight.FlightDescriptor) (*arrow.Schema, error) {
	if err := s.needPlanner("GetSchema"); err != nil {
		return nil, err
	}
	cmd, err := ParseDescriptor(desc)
	if err != nil {
		return nil, err
	}
	return s.CommandSchema(ctx, cmd)
}

// ListFlights lists every table with its schema and estimated rows. A table
// whose metadata cannot be read is logged and left out rather than failing
// the whole listing, and so are the tables of a mounted catalog that cannot
// list them (down, a 500): the stream's trailer says which catalogs failed
// and why (see listFailures). It loads every table's metadata, so it takes
// a planning slot like GetFlightInfo.
func (s *Service) ListFlights(_ *flight.Criteria, stream flight.FlightService_ListFlightsServer) (err error) {
	ctx := stream.Context()
	defer s.endCall(ctx, &err)
	defer panics.Recover(&err, "ListFlights")
	if err := s.needPlanner("ListFlights"); err != nil {
		return err
	}
	release, err := s.plans.acquire(ctx)
	if err != nil {
		s.metrics.Rejected(ctx, RejectPlanLimit)
		return err
	}
	defer release()
	ids, failed, err := s.listTables(ctx)
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		stream.SetTrailer(failedCatalogs(failed))
	}
	if ids, err = s.auth.readable(ctx, ids); err != nil {
		return err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		tbl, err := s.catalog.LoadTable(ctx, id)
		if err != nil {
			s.log.WarnContext(ctx, "ListFlights: skipping table", "table", id.String(), "err", truncateMessage(err.Error()))
			continue
		}
		schema, err := iceberg.ArrowSchema(tbl.Metadata.CurrentSchema())
		if err != nil {
			s.log.WarnContext(ctx, "ListFlights: skipping table", "table", id.String(), "err", truncateMessage(err.Error()))
			continue
		}
		info := &flight.FlightInfo{
			Schema:           flight.SerializeSchema(schema, s.mem),
			FlightDescriptor: &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: id},
			TotalRecords:     -1,
			TotalBytes:       -1,
		}
		if snap := tbl.Metadata.CurrentSnapshot(); snap != nil {
			info.TotalRecords = summaryInt(snap.Summary, "total-records")
			info.TotalBytes = summaryInt(snap.Summary, "total-files-size")
		} else {
			info.TotalRecords, info.TotalBytes = 0, 0
		}
		if err := stream.Send(info); err != nil {
			return err
		}
	}
	return nil
}

func summaryInt(summary iceberg.Summary, key string) int64 {
	var n int64
	if _, err := fmt.Sscan(summary.Value(key), &n); err != nil {
		return -1
	}
	return n
}

// DoGet verifies a ticket and streams its tasks' rows. No file is opened
// before the ticket's signature and expiry check out.
func (s *Service) DoGet(tkt *flight.Ticket, stream flight.FlightService_DoGetServer) (err error) {
	defer s.endCall(stream.Context(), &err)
	defer panics.Recover(&err, "DoGet")
	if s.frontEnd != nil && s.frontEnd.ClaimsTicket(tkt) {
		return s.frontEnd.DoGet(tkt, stream)
	}
	return s.doGet(stream.Context(), tkt, stream)
}

func (s *Service) doGet(ctx context.Context, tkt *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	var sent int64
	var w *ipc.Writer
	begin := func(schema *arrow.Schema) error {
		w = newStreamWriter(stream, &sent, ipcOptions(schema, s.mem, s.compression)...)
		return nil
	}
	write := func(rec arrow.RecordBatch) (int64, error) {
		before := sent
		err := w.Write(rec)
		return sent - before, err
	}
	err := s.streamTicket(ctx, tkt.GetTicket(), begin, write)
	if w == nil {
		return err
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// profileReader returns the reader of the storage profile ticket t names.
func (s *Service) profileReader(t *iceflightv1.Ticket) (*reader.Reader, error) {
	if t.StorageProfile == "" {
		return s.reader, nil
	}
	if rd, ok := s.profiles[t.StorageProfile]; ok {
		return rd, nil
	}
	return nil, fmt.Errorf("%w: table %s: its ticket reads with the storage of catalog %q, which this server is not configured with; "+
		"start every process with the coordinator's --config", errNoProfile, t.Table, t.StorageProfile)
}

// errNoProfile is a ticket whose storage profile this server lacks: a
// deployment whose processes disagree on their configuration.
var errNoProfile = errors.New("unknown storage profile")

// errLimitReached stops a read once a ticket's row limit is served.
var errLimitReached = errors.New("row limit reached")

// limitRows wraps write so that at most limit rows pass (all when limit is
// 0); past the limit it returns errLimitReached to stop the reader.
func limitRows(limit int64, write func(arrow.RecordBatch) error) func(arrow.RecordBatch) error {
	if limit <= 0 {
		return write
	}
	remaining := limit
	return func(rec arrow.RecordBatch) error {
		if remaining <= 0 {
			return errLimitReached
		}
		if n := rec.NumRows(); n > remaining {
			part := rec.NewSlice(0, remaining)
			defer part.Release()
			remaining = 0
			if err := write(part); err != nil {
				return err
			}
			return errLimitReached
		}
		remaining -= rec.NumRows()
		if err := write(rec); err != nil {
			return err
		}
		if remaining == 0 {
			return errLimitReached
		}
		return nil
	}
}
