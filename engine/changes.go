package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/changelog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// changeRequest resolves a command's change range against tbl: the end is
// a snapshot, the snapshot current at a time, a branch or tag, or the
// current snapshot; the exclusive start a snapshot, the snapshot current
// at a time (none before the table's first), or none.
func changeRequest(cmd *iceflightv1.Command, tbl *catalog.Table, req planner.Request) (changelog.Request, error) {
	c := cmd.Changes
	if cmd.DictionaryAll || len(cmd.DictionaryColumns) > 0 {
		return changelog.Request{}, fmt.Errorf("%w: table %s: a change stream has no dictionary columns", ErrBadCommand, cmd.Table)
	}
	md := tbl.Metadata
	var to *iceberg.Snapshot
	switch {
	case c.ToSnapshotId != nil || c.ToTimestampMs != nil || c.ToRef != "":
		snap, _, err := planner.Selection{SnapshotID: c.ToSnapshotId, AsOfTimestamp: c.ToTimestampMs, Ref: c.ToRef}.Resolve(md)
		if err != nil {
			return changelog.Request{}, fmt.Errorf("table %s: end of the changes: %w", cmd.Table, err)
		}
		to = snap
	default:
		to = md.CurrentSnapshot()
	}
	if to == nil {
		return changelog.Request{}, fmt.Errorf("table %s: %w: the table has no snapshot to end the changes at", cmd.Table, iceberg.ErrSnapshotNotFound)
	}
	r := changelog.Request{ToSnapshotID: to.SnapshotID, FromSnapshotID: c.FromSnapshotId, Columns: req.Columns, Filter: req.Filter,
		CaseSensitive: req.CaseSensitive, ComputeUpdates: c.ComputeUpdates, IdentifierColumns: c.IdentifierColumns}
	if ts := c.FromTimestampMs; ts != nil {
		// The changes committed after the time: those after the snapshot
		// then current, or all of them before the first.
		if snap, _, err := (planner.Selection{AsOfTimestamp: ts}).Resolve(md); err == nil {
			id := snap.SnapshotID
			r.FromSnapshotID = &id
		}
	}
	return r, nil
}

// planChanges plans a change stream into a FlightInfo: an endpoint per
// unit of the stream (a snapshot's changes, or part of them), each ticket
// carrying its unit, whose data and delete files the planner checked as a
// scan's are.
func (e *Engine) planChanges(ctx context.Context, cmd *iceflightv1.Command, desc *flight.FlightDescriptor, tbl *catalog.Table, req planner.Request) (*flight.FlightInfo, error) {
	cr, err := changeRequest(cmd, tbl, req)
	if err != nil {
		return nil, err
	}
	pt := plannerTable(tbl)
	scan, err := changelog.Plan(ctx, pt, cr, changelog.WithPlanner(e.planner))
	if err != nil {
		return nil, err
	}
	CallInfoFrom(ctx).SetSnapshotID(cr.ToSnapshotID)
	storage, err := e.storageForTickets(pt.Name, tbl.StorageProperties, tbl.CredentialsExpire)
	if err != nil {
		return nil, err
	}
	schema, err := changelog.OutputSchema(scan.Schema)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", pt.Name, err)
	}
	info := &flight.FlightInfo{Schema: flight.SerializeSchema(schema, e.mem), FlightDescriptor: desc, TotalRecords: -1, TotalBytes: -1}
	// Every ticket of the scan carries the same schema, encoded once.
	ticketSchema := encodeSchema(scan.Schema)
	for _, u := range scan.Units {
		unit, err := json.Marshal(u)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", pt.Name, err)
		}
		t := &iceflightv1.Ticket{
			Table:                     pt.Name,
			MetadataLocation:          tbl.MetadataLocation,
			SnapshotId:                u.CommitSnapshotID,
			Schema:                    ticketSchema,
			Limit:                     req.Limit,
			StorageProfile:            tbl.Catalog,
			SealedStorage:             storage.sealed,
			CredentialsExpireAtUnixMs: storage.expiresMs,
			ChangeUnit:                unit,
		}
		tasks := make([]*scantask.Task, len(u.Changes))
		for i, c := range u.Changes {
			tasks[i] = c.Task
		}
		ep, err := e.unitEndpoint(t, tasks)
		if err != nil {
			return nil, err
		}
		info.Endpoint = append(info.Endpoint, ep)
	}
	CallInfoFrom(ctx).SetEndpoints(len(info.Endpoint))
	return info, nil
}

// changesSchema returns the Arrow schema a change stream of cmd would
// have, reading nothing but the table's metadata.
func changesSchema(cmd *iceflightv1.Command, tbl *catalog.Table, req planner.Request) (*arrow.Schema, error) {
	if _, err := changeRequest(cmd, tbl, req); err != nil {
		return nil, err
	}
	schema, err := planner.ProjectedSchema(tbl.Metadata, planner.Request{Columns: req.Columns, CaseSensitive: req.CaseSensitive})
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", tbl.Identifier, err)
	}
	return changelog.OutputSchema(schema)
}

// streamChangeTicket streams the unit of a change stream's ticket t,
// verified and authorized already, through the ticket's storage.
func (e *Engine) streamChangeTicket(ctx context.Context, t *iceflightv1.Ticket, begin func(*arrow.Schema) error, emit func(arrow.RecordBatch) error) error {
	var u changelog.Unit
	if err := json.Unmarshal(t.ChangeUnit, &u); err != nil {
		return fmt.Errorf("%w: table %s: change stream unit: %v", ErrTicketInvalid, t.Table, err)
	}
	out, err := changelog.OutputSchema(u.Schema)
	if err != nil {
		return fmt.Errorf("%w: table %s: %v", ErrTicketInvalid, t.Table, err)
	}
	rd, err := e.readerFor(ctx, t)
	if err != nil {
		return err
	}
	if err := begin(out); err != nil {
		return err
	}
	// Read hands each batch over: it is released once sent.
	owned := func(rec arrow.RecordBatch) error {
		defer rec.Release()
		return emit(rec)
	}
	err = changelog.Read(ctx, changelog.Table{Name: t.Table, IO: rd.FileIO()}, u, owned, changelog.WithAllocator(e.mem))
	if errors.Is(err, errLimitReached) {
		return nil
	}
	return err
}
