package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/metatable"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// metaRequest turns a command naming a metadata table into the scan of it:
// a snapshot selection (snapshot, time or ref) is resolved to a snapshot
// of tbl, which only the tables of one snapshot accept; dictionaries are
// refused.
func metaRequest(cmd *iceflightv1.Command, tbl *catalog.Table, req planner.Request) (metatable.Request, error) {
	kind, err := metatable.ParseKind(cmd.MetadataTable)
	if err != nil {
		return metatable.Request{}, fmt.Errorf("table %s: %w", cmd.Table, err)
	}
	if cmd.DictionaryAll || len(cmd.DictionaryColumns) > 0 {
		return metatable.Request{}, fmt.Errorf("%w: table %s: the %s metadata table has no dictionary columns", ErrBadCommand, cmd.Table, kind)
	}
	mr := metatable.Request{Kind: kind, Columns: req.Columns, Filter: req.Filter, CaseSensitive: req.CaseSensitive}
	if sel := req.Selection; sel.SnapshotID != nil || sel.AsOfTimestamp != nil || sel.Ref != "" {
		if !kind.TimeTravel() {
			return metatable.Request{}, fmt.Errorf("table %s: %w: the %s table describes every snapshot", cmd.Table, metatable.ErrNoTimeTravel, kind)
		}
		snap, _, err := sel.Resolve(tbl.Metadata)
		if err != nil {
			return metatable.Request{}, fmt.Errorf("table %s: %w", cmd.Table, err)
		}
		id := snap.SnapshotID
		mr.SnapshotID = &id
	}
	return mr, nil
}

// metaTable is tbl as metatable reads it.
func metaTable(tbl *catalog.Table) metatable.Table {
	return metatable.Table{Name: tbl.Identifier.String(), MetadataLocation: tbl.MetadataLocation, Metadata: tbl.Metadata, IO: tbl.IO}
}

// planMetadataTable plans a command naming a metadata table into a
// FlightInfo: an endpoint per unit, each ticket carrying its unit, the
// metadata file it reads beside and the mapping of the table's recorded
// locations, so that any worker streams it as the coordinator would. Every
// manifest list and manifest a unit reads is checked here, as a data
// scan's files are: the worker opens them unchecked.
func (e *Engine) planMetadataTable(ctx context.Context, cmd *iceflightv1.Command, desc *flight.FlightDescriptor, tbl *catalog.Table, req planner.Request) (*flight.FlightInfo, error) {
	mr, err := metaRequest(cmd, tbl, req)
	if err != nil {
		return nil, err
	}
	mt := metaTable(tbl)
	scan, err := metatable.Plan(ctx, mt, mr)
	if err != nil {
		return nil, err
	}
	if scan.SnapshotID != nil {
		CallInfoFrom(ctx).SetSnapshotID(*scan.SnapshotID)
	}
	ordered := inAskedOrder(scan.Schema, mr.Columns, mr.CaseSensitive)
	remap, base := remapRules(tbl.IO)
	storage, err := e.storageForTickets(mt.Name, tbl.StorageProperties, tbl.CredentialsExpire)
	if err != nil {
		return nil, err
	}
	schema, err := iceberg.ArrowSchema(ordered)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", mt.Name, err)
	}
	info := &flight.FlightInfo{
		Schema:           flight.SerializeSchema(schema, e.mem),
		FlightDescriptor: desc,
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
	// Every ticket of the scan carries the same schema, encoded once.
	ticketSchema := encodeSchema(ordered)
	for _, u := range scan.Units {
		if err := checkUnitFiles(ctx, tbl, mt, u); err != nil {
			return nil, err
		}
		unit, err := json.Marshal(u)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", mt.Name, err)
		}
		t := &iceflightv1.Ticket{
			Table:                     mt.Name,
			MetadataLocation:          tbl.MetadataLocation,
			Schema:                    ticketSchema,
			Limit:                     req.Limit,
			StorageProfile:            tbl.Catalog,
			SealedStorage:             storage.sealed,
			CredentialsExpireAtUnixMs: storage.expiresMs,
			MetadataUnit:              unit,
			Remap:                     remap,
			RemapBase:                 base,
		}
		if u.SnapshotID != nil {
			t.SnapshotId = *u.SnapshotID
		}
		ep, err := e.unitEndpoint(t, placementKeys(tbl.MetadataLocation, u))
		if err != nil {
			return nil, err
		}
		info.Endpoint = append(info.Endpoint, ep)
	}
	CallInfoFrom(ctx).SetEndpoints(len(info.Endpoint))
	return info, nil
}

// unitEndpoint signs the ticket of a unit (of a metadata table or a change
// stream) and places it on the workers that keys (its files) rank first.
func (e *Engine) unitEndpoint(t *iceflightv1.Ticket, keys []*scantask.Task) (*flight.FlightEndpoint, error) {
	signed, err := e.signer.Sign(t)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Table, err)
	}
	locs, err := e.locations(keys)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Table, err)
	}
	return &flight.FlightEndpoint{
		Ticket:         &flight.Ticket{Ticket: signed},
		Location:       locs,
		ExpirationTime: timestamppb.New(time.UnixMilli(t.ExpiresAtUnixMs)),
	}, nil
}

// placementKeys are what places a unit on a worker: its manifests, as a
// scan's files place its tasks, or the metadata file it reads alone.
func placementKeys(metadataLocation string, u metatable.Unit) []*scantask.Task {
	if len(u.Manifests) == 0 {
		return []*scantask.Task{{Path: metadataLocation}}
	}
	keys := make([]*scantask.Task, len(u.Manifests))
	for i, m := range u.Manifests {
		keys[i] = &scantask.Task{Path: m.Path, FileSize: m.Length}
	}
	return keys
}

// checkUnitFiles refuses a unit that would read a file the caller may not
// read (outside the warehouse, in another table's folder).
func checkUnitFiles(ctx context.Context, tbl *catalog.Table, mt metatable.Table, u metatable.Unit) error {
	locs, err := metatable.Locations(ctx, mt, u)
	if err != nil {
		return fmt.Errorf("table %s: %w", mt.Name, err)
	}
	r, _ := tbl.IO.(*fileio.Remapper)
	for _, loc := range locs {
		mapped := loc
		if r != nil {
			mapped = r.Map(loc)
		}
		if err := tbl.CheckFile(mapped); err != nil {
			return fmt.Errorf("table %s: %s: %w", mt.Name, loc, err)
		}
	}
	return nil
}

// ticketIO is the FileIO through which a unit's ticket reads the table's
// manifests: the reader's, mapping the table's recorded locations as the
// coordinator's catalog maps them.
func ticketIO(rd *reader.Reader, t *iceflightv1.Ticket) fileio.FileIO {
	io := rd.FileIO()
	if len(t.Remap) == 0 && t.RemapBase == "" {
		return io
	}
	rules := make([]fileio.Rule, len(t.Remap))
	for i, r := range t.Remap {
		rules[i] = fileio.Rule{From: r.From, To: r.To}
	}
	return fileio.Remap(io, rules...).WithBase(t.RemapBase)
}

// remapRules returns how io maps the table's recorded locations, for a
// worker to map them the same way.
func remapRules(io fileio.FileIO) ([]*iceflightv1.RemapRule, string) {
	r, ok := io.(*fileio.Remapper)
	if !ok {
		return nil, ""
	}
	var rules []*iceflightv1.RemapRule
	for _, rule := range r.Rules() {
		rules = append(rules, &iceflightv1.RemapRule{From: rule.From, To: rule.To})
	}
	return rules, r.Base()
}

// metadataTableSchema returns the Arrow schema a command naming a metadata
// table would stream, reading nothing but the table's metadata.
func metadataTableSchema(cmd *iceflightv1.Command, tbl *catalog.Table, req planner.Request) (*arrow.Schema, error) {
	mr, err := metaRequest(cmd, tbl, req)
	if err != nil {
		return nil, err
	}
	schema, err := metatable.ProjectedSchema(metaTable(tbl), mr)
	if err != nil {
		return nil, err
	}
	return iceberg.ArrowSchema(inAskedOrder(schema, mr.Columns, mr.CaseSensitive))
}

// inAskedOrder returns schema with its top-level columns in the order
// columns first name them, as a scan of data streams its columns: a
// metadata table's projection keeps the table's order, as Java's does,
// but a client (a SQL statement's select list above all) expects the order
// it asked for. Nested fields keep theirs.
func inAskedOrder(schema *iceberg.Schema, columns []string, caseSensitive bool) *iceberg.Schema {
	if len(columns) == 0 {
		return schema
	}
	fields := schema.Fields
	out := make([]iceberg.NestedField, 0, len(fields))
	taken := make([]bool, len(fields))
	for _, c := range columns {
		top, _, _ := strings.Cut(c, ".")
		for i, f := range fields {
			if !taken[i] && (f.Name == top || !caseSensitive && strings.EqualFold(f.Name, top)) {
				taken[i] = true
				out = append(out, f)
				break
			}
		}
	}
	for i, f := range fields {
		if !taken[i] {
			out = append(out, f)
		}
	}
	return iceberg.NewSchema(schema.ID, out...)
}

// reorderColumns returns emit fed with each batch's top-level columns in
// out's order (matched by name): a metadata table's reader yields them in
// the table's order.
func reorderColumns(out *arrow.Schema, emit func(arrow.RecordBatch) error) func(arrow.RecordBatch) error {
	var order []int
	return func(rec arrow.RecordBatch) error {
		if order == nil {
			order = make([]int, out.NumFields())
			for i, f := range out.Fields() {
				idx := rec.Schema().FieldIndices(f.Name)
				if len(idx) == 0 {
					return fmt.Errorf("%w: metadata table batch lacks column %s", ErrTicketInvalid, f.Name)
				}
				order[i] = idx[0]
			}
		}
		cols := make([]arrow.Array, len(order))
		for i, j := range order {
			cols[i] = rec.Column(j)
		}
		reordered := array.NewRecordBatch(out, cols, rec.NumRows())
		defer reordered.Release()
		return emit(reordered)
	}
}

// streamMetadataTicket streams the unit of a metadata table's ticket t,
// verified and authorized already: the table's metadata file is read
// through the ticket's storage, mapped as the coordinator mapped it, and
// the unit read from it.
func (e *Engine) streamMetadataTicket(ctx context.Context, t *iceflightv1.Ticket, begin func(*arrow.Schema) error, emit func(arrow.RecordBatch) error) error {
	var u metatable.Unit
	if err := json.Unmarshal(t.MetadataUnit, &u); err != nil {
		return fmt.Errorf("%w: table %s: metadata table unit: %v", ErrTicketInvalid, t.Table, err)
	}
	schema, err := decodeSchema(t.Schema)
	if err != nil {
		return fmt.Errorf("%w: table %s: %v", ErrTicketInvalid, t.Table, err)
	}
	out, err := iceberg.ArrowSchema(schema)
	if err != nil {
		return fmt.Errorf("%w: table %s: %v", ErrTicketInvalid, t.Table, err)
	}
	rd, err := e.readerFor(ctx, t)
	if err != nil {
		return err
	}
	md, err := e.ticketMetadata(ctx, rd, t)
	if err != nil {
		return err
	}
	if err := begin(out); err != nil {
		return err
	}
	mt := metatable.Table{Name: t.Table, MetadataLocation: t.MetadataLocation, Metadata: md, IO: ticketIO(rd, t)}
	// Read hands each batch over: it is released once sent.
	send := reorderColumns(out, emit)
	owned := func(rec arrow.RecordBatch) error {
		defer rec.Release()
		return send(rec)
	}
	err = metatable.Read(ctx, mt, u, owned, metatable.WithAllocator(e.mem))
	if errors.Is(err, errLimitReached) {
		return nil
	}
	return err
}
