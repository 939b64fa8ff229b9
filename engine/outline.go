package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// DefaultManifestTicketsAbove is the plan size, in live data files by the
// manifest list's counts, above which a scan is planned at the manifest
// level (see WithManifestTicketsAbove). At 50,000 files a file-level
// FlightInfo is about 7 MB, past the 4 MiB a default gRPC client accepts,
// and its planning reads every manifest on one process.
const DefaultManifestTicketsAbove = 50_000

// WithManifestTicketsAbove sets the plan size, in live data files, above
// which a scan without a row limit is planned at the manifest level: the
// coordinator reads the manifest list only, and each endpoint's ticket
// names a group of manifests that the worker redeeming it plans and reads.
// 0 plans every such scan so; a negative n never does.
func WithManifestTicketsAbove(n int64) Option { return func(e *Engine) { e.manifestAbove = n } }

// WithLargePlanTickets sets what a plan past the threshold becomes when
// its command does not say (its "tickets"): TicketsManifests (the
// default), or TicketsFiles, exact file-level endpoints with the plan's
// manifest groups planned in parallel, on the workers when there are some.
func WithLargePlanTickets(tickets string) Option { return func(e *Engine) { e.largeTickets = tickets } }

// outlines reports whether the plan of outline o is sent as manifest
// groups: its file count passes the threshold (a count the manifest list
// does not record passes only a threshold of 0).
func (e *Engine) outlines(o *planner.Outline) bool {
	if o.DataFiles < 0 {
		return e.manifestAbove == 0
	}
	return o.DataFiles > e.manifestAbove
}

// planLarge plans the scans that are not planned file by file on this
// process alone: at the manifest level when the command asks for it, or
// when the plan passes the threshold and the command does not ask for
// files; file by file with the groups planned in parallel (on the workers
// when there are some) when it passes the threshold and the command asks
// for files. It returns nil and no error for a scan planned as usual.
func (e *Engine) planLarge(ctx context.Context, cmd *iceflightv1.Command, desc *flight.FlightDescriptor, tbl *catalog.Table, req planner.Request) (*flight.FlightInfo, error) {
	o, err := e.outline(ctx, cmd, tbl, req)
	if o == nil || err != nil {
		return nil, err
	}
	call := CallInfoFrom(ctx)
	call.SetSnapshotID(o.Plan.Snapshot.SnapshotID)
	call.SetFiles(int(max(o.DataFiles, 0)))
	if e.ticketsOf(cmd) == TicketsFiles {
		return e.planFiles(ctx, desc, tbl, req, o)
	}
	return e.planOutline(desc, tbl, req, o)
}

// ticketsOf is what a large plan of cmd becomes: what the command asks
// for, else the server's choice (WithLargePlanTickets).
func (e *Engine) ticketsOf(cmd *iceflightv1.Command) string {
	if cmd.Tickets != "" {
		return cmd.Tickets
	}
	return e.largeTickets
}

// outline returns the outline of a scan that is not planned file by file
// on this process alone (see planLarge), or nil.
func (e *Engine) outline(ctx context.Context, cmd *iceflightv1.Command, tbl *catalog.Table, req planner.Request) (*planner.Outline, error) {
	forced := cmd.Tickets == TicketsManifests
	if forced && !req.Outlines() {
		return nil, fmt.Errorf("%w: table %s: a limited scan is planned file by file; it cannot have tickets %q", ErrBadCommand, cmd.Table, TicketsManifests)
	}
	if !req.Outlines() || !forced && e.manifestAbove < 0 {
		return nil, nil
	}
	o, err := e.planner.Outline(ctx, plannerTable(tbl), req)
	if err != nil || o.Plan.Snapshot == nil || !forced && !e.outlines(o) {
		return nil, err
	}
	return o, nil
}

// planOutline builds the FlightInfo of a scan planned at the manifest
// level: an endpoint per manifest group, each ticket carrying the group,
// the scan's filter and projection and what a worker needs to read the
// table's metadata and confine its files, with no file listed. Its
// total_records is the manifest list's row count where that is exact (no
// filter, no deletes), -1 otherwise, as Flight allows.
func (e *Engine) planOutline(desc *flight.FlightDescriptor, tbl *catalog.Table, req planner.Request, o *planner.Outline) (*flight.FlightInfo, error) {
	for {
		info, err := e.buildOutline(desc, tbl, req, o)
		if err != nil {
			return nil, err
		}
		size, n := proto.Size(info), len(info.Endpoint)
		if size <= e.maxInfoBytes {
			return info, ticketsFit(o.Plan.Table, info)
		}
		if n <= 1 {
			return nil, fmt.Errorf("%w: table %s: its FlightInfo would take %d bytes, more than the %d a default gRPC client accepts; "+
				"send a shorter filter", errTooLarge, o.Plan.Table, size, e.maxInfoBytes)
		}
		// Each ticket repeats the filter and the schemas: fewer groups
		// repeat them fewer times.
		o.Regroup(max(1, min(n-1, e.maxInfoBytes/(size/n))))
	}
}

// buildOutline builds the FlightInfo of outline o as it is grouped now.
func (e *Engine) buildOutline(desc *flight.FlightDescriptor, tbl *catalog.Table, req planner.Request, o *planner.Outline) (*flight.FlightInfo, error) {
	plan := o.Plan
	info, err := e.infoHead(desc, plan)
	if err != nil {
		return nil, err
	}
	info.TotalRecords = o.Records
	tickets, err := e.groupTickets(tbl, req, o)
	if err != nil {
		return nil, err
	}
	if info.AppMetadata, err = json.Marshal(plan.Stats); err != nil {
		return nil, err
	}
	for i, t := range tickets {
		g := o.Groups[i]
		ep, err := e.unitEndpoint(t, manifestKeys(g.Data))
		if err != nil {
			return nil, err
		}
		if ep.AppMetadata, err = json.Marshal(EndpointMetadata{Files: []string{}, FileCount: int(g.Files), Manifests: len(g.Data), Records: -1, Bytes: -1}); err != nil {
			return nil, err
		}
		info.Endpoint = append(info.Endpoint, ep)
	}
	return info, nil
}

// groupTickets returns the ticket of each group of outline o, unsigned:
// the group, the scan's filter and projection, and what a worker needs to
// read the table's metadata and confine its files.
func (e *Engine) groupTickets(tbl *catalog.Table, req planner.Request, o *planner.Outline) ([]*iceflightv1.Ticket, error) {
	plan := o.Plan
	name := plan.Table
	schemas, err := encodeTicketSchemas(plan)
	if err != nil {
		return nil, err
	}
	storage, err := e.storageForTickets(name, tbl.StorageProperties, tbl.CredentialsExpire)
	if err != nil {
		return nil, err
	}
	var filter string
	if req.Filter != nil {
		b, err := json.Marshal(req.Filter)
		if err != nil {
			return nil, fmt.Errorf("table %s: encode the filter: %w", name, err)
		}
		filter = string(b)
	}
	var confinement *iceflightv1.Confinement
	if c := tbl.Confinement(); c != nil {
		confinement = &iceflightv1.Confinement{Warehouse: c.Warehouse, Roots: c.Roots, Folder: c.Folder}
	}
	remap, base := remapRules(tbl.IO)
	var dict []int32
	for _, id := range plan.Dictionary {
		dict = append(dict, int32(id))
	}
	tickets := make([]*iceflightv1.Ticket, len(o.Groups))
	for i, g := range o.Groups {
		tickets[i] = &iceflightv1.Ticket{
			Table:                     name,
			MetadataLocation:          plan.MetadataLocation,
			SnapshotId:                plan.Snapshot.SnapshotID,
			Schema:                    schemas.read,
			NameMapping:               schemas.mapping,
			DictionaryFieldIds:        dict,
			StorageProfile:            tbl.Catalog,
			SealedStorage:             storage.sealed,
			CredentialsExpireAtUnixMs: storage.expiresMs,
			ManifestGroup:             wireGroup(g),
			Filter:                    filter,
			FilterSchemaId:            int32(o.SchemaID),
			CaseSensitive:             req.CaseSensitive,
			TargetSplitBytes:          req.TargetSplitBytes,
			Confinement:               confinement,
			Remap:                     remap,
			RemapBase:                 base,
		}
	}
	return tickets, nil
}

// manifestKeys places a group on the workers its manifests rank first, as
// a scan's files place its tasks.
func manifestKeys(mfs []iceberg.ManifestFile) []*scantask.Task {
	keys := make([]*scantask.Task, len(mfs))
	for i, mf := range mfs {
		keys[i] = &scantask.Task{Path: mf.Path, FileSize: mf.Length}
	}
	return keys
}

// wireGroup is the ticket form of a manifest group.
func wireGroup(g planner.ManifestGroup) *iceflightv1.ManifestGroup {
	w := &iceflightv1.ManifestGroup{Files: g.Files}
	for _, mf := range g.Data {
		w.Data = append(w.Data, wireManifest(mf))
	}
	for _, mf := range g.Deletes {
		w.Deletes = append(w.Deletes, wireManifest(mf))
	}
	return w
}

func wireManifest(mf iceberg.ManifestFile) *iceflightv1.ManifestRef {
	return &iceflightv1.ManifestRef{Path: mf.Path, Length: mf.Length, SpecId: int32(mf.SpecID), Content: int32(mf.Content),
		SequenceNumber: mf.SequenceNumber, MinSequenceNumber: mf.MinSequenceNumber, AddedSnapshotId: mf.AddedSnapshotID, FirstRowId: mf.FirstRowID}
}

// decodeGroup takes a manifest group back out of a verified ticket. Only
// what reading entries inherits travels; the counts and partition
// summaries were used up by the coordinator's pruning.
func decodeGroup(w *iceflightv1.ManifestGroup) planner.ManifestGroup {
	g := planner.ManifestGroup{Files: w.Files}
	for _, r := range w.Data {
		g.Data = append(g.Data, manifestOf(r))
	}
	for _, r := range w.Deletes {
		g.Deletes = append(g.Deletes, manifestOf(r))
	}
	return g
}

func manifestOf(r *iceflightv1.ManifestRef) iceberg.ManifestFile {
	return iceberg.ManifestFile{Path: r.Path, Length: r.Length, SpecID: int(r.SpecId), Content: iceberg.ManifestContent(r.Content),
		SequenceNumber: r.SequenceNumber, MinSequenceNumber: r.MinSequenceNumber, AddedSnapshotID: r.AddedSnapshotId, FirstRowID: r.FirstRowId,
		AddedFilesCount: -1, ExistingFilesCount: -1, DeletedFilesCount: -1, AddedRowsCount: -1, ExistingRowsCount: -1, DeletedRowsCount: -1}
}

// streamGroupTicket streams the manifest group of ticket t, verified and
// authorized already: the group is planned (planTicketGroup) and each run
// of its tasks read as a file-level ticket's tasks are, in the same order
// on any worker.
func (e *Engine) streamGroupTicket(ctx context.Context, t *iceflightv1.Ticket, begin func(*arrow.Schema) error, emit func(arrow.RecordBatch) error) error {
	scan, err := decodeGroupScan(t)
	if err != nil {
		return err
	}
	out, err := reader.OutputSchema(scan)
	if err != nil {
		return fmt.Errorf("%w: table %s: %v", ErrTicketInvalid, t.Table, err)
	}
	rd, err := e.readerFor(ctx, t)
	if err != nil {
		return err
	}
	started := false
	err = e.planTicketGroup(ctx, t, rd, scan.Schema, func(gt planner.GroupTasks) error {
		if !started {
			started = true
			if err := begin(out); err != nil {
				return err
			}
		}
		run := scan
		run.EqualitySchema, run.FilterSchema = gt.EqualitySchema, gt.FilterSchema
		for _, task := range gt.Tasks {
			if err := rd.Read(ctx, run, task, emit); err != nil {
				if errors.Is(err, errLimitReached) {
					return err
				}
				return fmt.Errorf("table %s: %w", t.Table, readError(t, task, err))
			}
		}
		return nil
	})
	if err == nil && !started {
		err = begin(out) // a group whose files all were pruned
	}
	if errors.Is(err, errLimitReached) {
		return nil
	}
	return err
}

// planTicketGroup plans the manifest group of ticket t, handing fn its
// tasks a few manifests at a time: the table's metadata file is read
// through rd's storage, and the group planned with the ticket's filter,
// its manifests and files mapped as the coordinator maps them and confined
// as the table's catalog confines them for the caller of ctx.
func (e *Engine) planTicketGroup(ctx context.Context, t *iceflightv1.Ticket, rd *reader.Reader, schema *iceberg.Schema, fn func(planner.GroupTasks) error) error {
	g := planner.GroupScan{SchemaID: int(t.FilterSchemaId), Schema: schema, CaseSensitive: t.CaseSensitive,
		TargetSplitBytes: t.TargetSplitBytes, Group: decodeGroup(t.ManifestGroup)}
	if t.Filter != "" {
		var err error
		if g.Filter, err = expr.ParseJSON([]byte(t.Filter)); err != nil {
			return fmt.Errorf("%w: table %s: filter: %v", ErrTicketInvalid, t.Table, err)
		}
	}
	md, err := e.ticketMetadata(ctx, rd, t)
	if err != nil {
		return err
	}
	pt := planner.Table{Name: t.Table, MetadataLocation: t.MetadataLocation, Metadata: md, IO: ticketIO(rd, t)}
	if pt.Check, err = e.ticketCheck(ctx, rd, t); err != nil {
		return err
	}
	return e.planner.PlanGroup(ctx, pt, g, fn)
}

// ticketCheck returns the check of the files a manifest group's ticket t
// reads: the confinement of its table's catalog for the caller of ctx, as
// the coordinator checks a file-level plan's files; nil when the catalog
// confines nothing.
func (e *Engine) ticketCheck(ctx context.Context, rd *reader.Reader, t *iceflightv1.Ticket) (func(string) error, error) {
	w := t.Confinement
	if w == nil {
		return nil, nil
	}
	access := e.auth.access(ctx)
	if access != nil && t.StorageProfile != "" {
		// A mounted catalog names its tables without its own name, which
		// the caller's grants start with (see loadTableID).
		grants, mount := access, t.StorageProfile
		access = func(id catalog.Identifier) bool { return grants(append(catalog.Identifier{mount}, id...)) }
	}
	c := catalog.Confinement{Warehouse: w.Warehouse, Roots: w.Roots, Folder: w.Folder}
	check, err := c.Checker(rd.FileIO(), access)
	if err != nil {
		return nil, fmt.Errorf("table %s: the warehouse of the ticket: %w", t.Table, err)
	}
	return check, nil
}

// decodeGroupScan decodes what the reads of a manifest group's ticket
// share: the projected schema, the name mapping and the dictionaries.
func decodeGroupScan(t *iceflightv1.Ticket) (reader.Scan, error) {
	var scan reader.Scan
	var err error
	if scan.Schema, err = decodeSchema(t.Schema); err != nil || scan.Schema == nil {
		return scan, fmt.Errorf("%w: table %s: schema: %v", ErrTicketInvalid, t.Table, err)
	}
	if scan.NameMapping, err = decodeNameMapping(t.NameMapping); err != nil {
		return scan, fmt.Errorf("%w: table %s: name mapping: %v", ErrTicketInvalid, t.Table, err)
	}
	for _, id := range t.DictionaryFieldIds {
		scan.Dictionary = append(scan.Dictionary, int(id))
	}
	return scan, nil
}
