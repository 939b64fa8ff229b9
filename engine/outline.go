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

// outlines reports whether the plan of outline o is sent as manifest
// groups: its file count passes the threshold (a count the manifest list
// does not record passes only a threshold of 0).
func (e *Engine) outlines(o *planner.Outline) bool {
	if o.DataFiles < 0 {
		return e.manifestAbove == 0
	}
	return o.DataFiles > e.manifestAbove
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
	name := plan.Table
	schema, err := reader.OutputSchema(reader.Scan{Schema: plan.Schema, Dictionary: plan.Dictionary})
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
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
	info := &flight.FlightInfo{
		Schema:           flight.SerializeSchema(schema, e.mem),
		FlightDescriptor: desc,
		TotalRecords:     o.Records,
		TotalBytes:       -1,
	}
	if info.AppMetadata, err = json.Marshal(plan.Stats); err != nil {
		return nil, err
	}
	for _, g := range o.Groups {
		t := &iceflightv1.Ticket{
			Table:                     name,
			MetadataLocation:          plan.MetadataLocation,
			SnapshotId:                plan.Snapshot.SnapshotID,
			Schema:                    schemas.read,
			NameMapping:               schemas.mapping,
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
		for _, id := range plan.Dictionary {
			t.DictionaryFieldIds = append(t.DictionaryFieldIds, int32(id))
		}
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
// authorized already: the table's metadata file is read through the
// ticket's storage, the group planned with the ticket's filter (its
// manifests and files confined to the ticket's roots and mapped as the
// coordinator maps them), and each run of its tasks read as a file-level
// ticket's tasks are, in the same order on any worker.
func (e *Engine) streamGroupTicket(ctx context.Context, t *iceflightv1.Ticket, begin func(*arrow.Schema) error, emit func(arrow.RecordBatch) error) error {
	scan, err := decodeGroupScan(t)
	if err != nil {
		return err
	}
	out, err := reader.OutputSchema(scan)
	if err != nil {
		return fmt.Errorf("%w: table %s: %v", ErrTicketInvalid, t.Table, err)
	}
	g := planner.GroupScan{SchemaID: int(t.FilterSchemaId), Schema: scan.Schema, CaseSensitive: t.CaseSensitive,
		TargetSplitBytes: t.TargetSplitBytes, Group: decodeGroup(t.ManifestGroup)}
	if t.Filter != "" {
		if g.Filter, err = expr.ParseJSON([]byte(t.Filter)); err != nil {
			return fmt.Errorf("%w: table %s: filter: %v", ErrTicketInvalid, t.Table, err)
		}
	}
	rd, err := e.readerFor(ctx, t)
	if err != nil {
		return err
	}
	md, err := e.ticketMetadata(ctx, rd, t)
	if err != nil {
		return err
	}
	pt := planner.Table{Name: t.Table, MetadataLocation: t.MetadataLocation, Metadata: md, IO: ticketIO(rd, t)}
	if pt.Check, err = e.ticketCheck(ctx, rd, t); err != nil {
		return err
	}
	if err := begin(out); err != nil {
		return err
	}
	err = e.planner.PlanGroup(ctx, pt, g, func(gt planner.GroupTasks) error {
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
	if errors.Is(err, errLimitReached) {
		return nil
	}
	return err
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
