package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// loadTable resolves a command's table name through the catalog once the
// caller is known to be allowed to read it, so a refusal does not tell
// whether the table exists.
func (e *Engine) loadTable(ctx context.Context, name string) (*catalog.Table, error) {
	id, err := catalog.ParseIdentifier(name)
	if err != nil {
		return nil, err
	}
	return e.loadTableID(ctx, id)
}

// loadTableID is loadTable of a parsed identifier.
func (e *Engine) loadTableID(ctx context.Context, id catalog.Identifier) (*catalog.Table, error) {
	if err := e.auth.Authorize(ctx, id); err != nil {
		return nil, err
	}
	tbl, err := e.catalog.LoadTable(ctx, id)
	if err != nil {
		return nil, e.tableHint(ctx, id, err)
	}
	// The caller's view: no file of a table it may not read is opened.
	// A mounted catalog names its tables without its own name, which the
	// caller's grants start with.
	access := e.auth.access(ctx)
	if access != nil && tbl.Catalog != "" {
		grants := access
		access = func(id catalog.Identifier) bool { return grants(append(catalog.Identifier{tbl.Catalog}, id...)) }
	}
	return tbl.ForCaller(access), nil
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
func (e *Engine) buildInfo(head *flight.FlightInfo, plan *planner.Plan, schemas ticketSchemas, src planSource) (*flight.FlightInfo, infoSize, error) {
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
			if info.Endpoint[i], sizes[i], err = e.endpoint(plan, schemas, ep, src); err != nil {
				return nil, infoSize{}, err
			}
		}
		return info, measure(info, sizes), nil
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, ep := range plan.Endpoints {
		g.Go(panics.Func("table "+plan.Table+": build endpoint", func() error {
			fe, size, err := e.endpoint(plan, schemas, ep, src)
			info.Endpoint[i], sizes[i] = fe, size
			return err
		}))
	}
	if err := g.Wait(); err != nil {
		return nil, infoSize{}, err
	}
	return info, measure(info, sizes), nil
}

// EndpointMetadata is each endpoint's app_metadata. The file list stops at
// maxListedFiles: a plan of 100,000 files would otherwise spend a large
// share of its FlightInfo repeating every path already in the tickets.
type EndpointMetadata struct {
	Files     []string `json:"files"`
	FileCount int      `json:"file_count"`
	// Manifests is how many manifests the endpoint's ticket names when the
	// scan was planned at the manifest level; its files, bytes and records
	// are then the manifest list's counts, or -1.
	Manifests int   `json:"manifests,omitempty"`
	Tasks     int   `json:"tasks"`
	Bytes     int64 `json:"bytes"`
	Records   int64 `json:"records"`
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
func (e *Engine) endpoint(plan *planner.Plan, schemas ticketSchemas, ep planner.Endpoint, src planSource) (*flight.FlightEndpoint, endpointSize, error) {
	t := &iceflightv1.Ticket{
		Table:            plan.Table,
		MetadataLocation: plan.MetadataLocation,
		SnapshotId:       plan.Snapshot.SnapshotID,
		Schema:           schemas.read,
		EqualitySchema:   schemas.equality,
		FilterSchema:     schemas.filter,
		NameMapping:      schemas.mapping,
		Limit:            plan.Limit,
		StorageProfile:   src.profile,

		SealedStorage:             schemas.storage.sealed,
		CredentialsExpireAtUnixMs: schemas.storage.expiresMs,
	}
	for _, id := range plan.Dictionary {
		t.DictionaryFieldIds = append(t.DictionaryFieldIds, int32(id))
	}
	md := EndpointMetadata{Bytes: ep.Bytes, Records: ep.Records, Tasks: len(ep.Tasks)}
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
	locs, err := e.locations(ep.Tasks)
	if err != nil {
		return nil, endpointSize{}, fmt.Errorf("table %s: %w", plan.Table, err)
	}
	if err := encodeTasks(t, ep.Tasks); err != nil {
		return nil, endpointSize{}, fmt.Errorf("table %s: %w", plan.Table, err)
	}
	ticket, err := e.signer.Sign(t)
	if err != nil {
		return nil, endpointSize{}, fmt.Errorf("table %s: %w", plan.Table, err)
	}
	fe := &flight.FlightEndpoint{
		Ticket:         &flight.Ticket{Ticket: ticket},
		Location:       locs,
		ExpirationTime: timestamppb.New(time.UnixMilli(t.ExpiresAtUnixMs)),
		AppMetadata:    appMD,
	}
	return fe, sizeEndpoint(fe, t, e.signer.KeyID()), nil
}

// resolve is what every planning call does first: it refuses call on a
// process that does not plan and an invalid cmd, takes a planning slot
// (the func it returns gives it back), and loads the caller's view of cmd's table and
// the planner's request.
func (e *Engine) resolve(ctx context.Context, call string, cmd *iceflightv1.Command) (*catalog.Table, planner.Request, func(), error) {
	if err := e.NeedPlanner(call); err != nil {
		return nil, planner.Request{}, nil, err
	}
	if err := validateCommand(cmd); err != nil {
		return nil, planner.Request{}, nil, err
	}
	release, err := e.PlanSlot(ctx)
	if err != nil {
		return nil, planner.Request{}, nil, err
	}
	// The slot goes back unless the caller gets it, on a panic too (a
	// catalog's, say): a leaked slot would refuse every later call.
	handedOver := false
	defer func() {
		if !handedOver {
			release()
		}
	}()
	CallInfoFrom(ctx).SetTable(cmd.Table)
	tbl, err := e.loadTable(ctx, cmd.Table)
	if err != nil {
		return nil, planner.Request{}, nil, err
	}
	req, err := request(cmd)
	if err != nil {
		return nil, planner.Request{}, nil, err
	}
	handedOver = true
	return tbl, req, release, nil
}

// PlanCommand plans cmd for the caller of ctx into a FlightInfo whose
// endpoints carry signed tickets; desc is the descriptor the FlightInfo
// echoes. It takes a planning slot.
func (e *Engine) PlanCommand(ctx context.Context, cmd *iceflightv1.Command, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	start := time.Now()
	tbl, req, release, err := e.resolve(ctx, "GetFlightInfo", cmd)
	if err != nil {
		return nil, err
	}
	defer release()
	switch {
	case cmd.MetadataTable != "":
		return e.planMetadataTable(ctx, cmd, desc, tbl, req)
	case cmd.Changes != nil:
		return e.planChanges(ctx, cmd, desc, tbl, req)
	}
	call := CallInfoFrom(ctx)
	if info, err := e.planLarge(ctx, cmd, desc, tbl, req); info != nil || err != nil {
		if err != nil {
			return nil, err
		}
		e.metrics.Planned(ctx, time.Since(start))
		call.SetEndpoints(len(info.Endpoint))
		return info, nil
	}
	plan, err := e.planner.Plan(ctx, plannerTable(tbl), req)
	if err != nil {
		return nil, err
	}
	e.metrics.Planned(ctx, time.Since(start))
	if plan.Snapshot != nil {
		call.SetSnapshotID(plan.Snapshot.SnapshotID)
	}
	call.SetFiles(plan.Stats.DataFiles)
	storage, err := e.storageForTickets(plan.Table, tbl.StorageProperties, tbl.CredentialsExpire)
	if err != nil {
		return nil, err
	}
	info, err := e.planInfo(desc, plan, planSource{recorded: tbl.Recorded, profile: tbl.Catalog, storage: storage})
	if err != nil {
		return nil, err
	}
	call.SetEndpoints(len(info.Endpoint))
	return info, nil
}

// CommandSchema returns the Arrow schema a plan of cmd would stream,
// without reading manifests. It takes a planning slot.
func (e *Engine) CommandSchema(ctx context.Context, cmd *iceflightv1.Command) (*arrow.Schema, error) {
	tbl, req, release, err := e.resolve(ctx, "GetSchema", cmd)
	if err != nil {
		return nil, err
	}
	defer release()
	switch {
	case cmd.MetadataTable != "":
		return metadataTableSchema(cmd, tbl, req)
	case cmd.Changes != nil:
		return changesSchema(cmd, tbl, req)
	}
	schema, err := planner.ProjectedSchema(tbl.Metadata, req)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", tbl.Identifier, err)
	}
	dict, err := planner.DictionaryFields(schema, req.Dictionary, req.CaseSensitive)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", tbl.Identifier, err)
	}
	return reader.OutputSchema(reader.Scan{Schema: schema, Dictionary: dict})
}

// LoadTable returns the named table as the caller of ctx may see it; a
// table it may not read is refused without telling whether it exists.
func (e *Engine) LoadTable(ctx context.Context, name string) (*catalog.Table, error) {
	return e.loadTable(ctx, name)
}

// ReadableTables lists the tables the caller of ctx may read, and the
// mounted catalogs that could not list theirs (see ListFlights).
func (e *Engine) ReadableTables(ctx context.Context) (ids []catalog.Identifier, failedCatalogs []string, err error) {
	ids, failed, err := e.listTables(ctx)
	if err != nil {
		return nil, nil, err
	}
	ids, err = e.auth.Readable(ctx, ids)
	return ids, failed, err
}

// PlanDescriptor plans a plain Flight descriptor (a table's path, or an
// iceflight command) for the caller of ctx; see PlanCommand.
func (e *Engine) PlanDescriptor(ctx context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if err := e.NeedPlanner("GetFlightInfo"); err != nil {
		return nil, err
	}
	cmd, err := ParseDescriptor(desc)
	if err != nil {
		return nil, err
	}
	return e.PlanCommand(ctx, cmd, desc)
}

// DescriptorSchema is the Arrow schema a plan of a plain Flight
// descriptor would stream; see CommandSchema.
func (e *Engine) DescriptorSchema(ctx context.Context, desc *flight.FlightDescriptor) (*arrow.Schema, error) {
	if err := e.NeedPlanner("GetSchema"); err != nil {
		return nil, err
	}
	cmd, err := ParseDescriptor(desc)
	if err != nil {
		return nil, err
	}
	return e.CommandSchema(ctx, cmd)
}

// PlanTasks plans a scan of table id for the caller of ctx and returns
// the plan itself rather than tickets, with the table as the caller may
// see it: for front ends whose clients read the files themselves (the
// REST catalog's server-side planning). Like PlanCommand it takes a
// planning slot, counts the plan and confines it to the caller's grants.
func (e *Engine) PlanTasks(ctx context.Context, id catalog.Identifier, req planner.Request) (*planner.Plan, *catalog.Table, error) {
	if err := e.NeedPlanner("planTableScan"); err != nil {
		return nil, nil, err
	}
	start := time.Now()
	release, err := e.PlanSlot(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	call := CallInfoFrom(ctx)
	call.SetTable(id.String())
	tbl, err := e.loadTableID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	plan, err := e.planner.Plan(ctx, plannerTable(tbl), req)
	if err != nil {
		return nil, nil, err
	}
	e.metrics.Planned(ctx, time.Since(start))
	if plan.Snapshot != nil {
		call.SetSnapshotID(plan.Snapshot.SnapshotID)
	}
	call.SetFiles(plan.Stats.DataFiles)
	return plan, tbl, nil
}

// PlanSlot takes one of the concurrent planning slots, or refuses the
// call with ResourceExhausted and counts the refusal; release gives the
// slot back. Every call that loads table metadata takes one.
func (e *Engine) PlanSlot(ctx context.Context) (release func(), err error) {
	release, err = e.plans.Acquire(ctx)
	if err != nil {
		e.metrics.Rejected(ctx, RejectPlanLimit)
		return nil, err
	}
	return release, nil
}
