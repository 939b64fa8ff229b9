package flight

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// The methods in this file are the transport-neutral core that the plain
// Flight RPCs and the Flight SQL front end (package flightsql) both call:
// the caller's grants, the planning limit, metrics and the call log apply
// inside them, once, whichever protocol the request came in on.

// PlanCommand plans cmd for the caller of ctx into a FlightInfo whose
// endpoints carry signed tickets; desc is the descriptor the FlightInfo
// echoes. It takes a planning slot.
func (s *Service) PlanCommand(ctx context.Context, cmd *iceflightv1.Command, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if err := s.needPlanner("GetFlightInfo"); err != nil {
		return nil, err
	}
	if err := validateCommand(cmd); err != nil {
		return nil, err
	}
	release, err := s.plans.acquire(ctx)
	if err != nil {
		s.metrics.Rejected(ctx, RejectPlanLimit)
		return nil, err
	}
	defer release()
	start := time.Now()
	call := CallInfoFrom(ctx)
	call.SetTable(cmd.Table)
	tbl, err := s.loadTable(ctx, cmd.Table)
	if err != nil {
		return nil, err
	}
	req, err := request(cmd)
	if err != nil {
		return nil, err
	}
	plan, err := s.planner.Plan(ctx, plannerTable(tbl), req)
	if err != nil {
		return nil, err
	}
	s.metrics.Planned(ctx, time.Since(start))
	if plan.Snapshot != nil {
		call.SetSnapshotID(plan.Snapshot.SnapshotID)
	}
	call.SetFiles(plan.Stats.DataFiles)
	storage, err := s.storageForTickets(plan.Table, tbl.StorageProperties, tbl.CredentialsExpire)
	if err != nil {
		return nil, err
	}
	info, err := s.planInfo(desc, plan, planSource{recorded: tbl.Recorded, profile: tbl.Catalog, storage: storage})
	if err != nil {
		return nil, err
	}
	call.SetEndpoints(len(info.Endpoint))
	return info, nil
}

// CommandSchema returns the Arrow schema a plan of cmd would stream,
// without reading manifests. It takes a planning slot.
func (s *Service) CommandSchema(ctx context.Context, cmd *iceflightv1.Command) (*arrow.Schema, error) {
	if err := s.needPlanner("GetSchema"); err != nil {
		return nil, err
	}
	if err := validateCommand(cmd); err != nil {
		return nil, err
	}
	release, err := s.plans.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	tbl, err := s.loadTable(ctx, cmd.Table)
	if err != nil {
		return nil, err
	}
	req, err := request(cmd)
	if err != nil {
		return nil, err
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
func (s *Service) LoadTable(ctx context.Context, name string) (*catalog.Table, error) {
	return s.loadTable(ctx, name)
}

// ReadableTables lists the tables the caller of ctx may read, and the
// mounted catalogs that could not list theirs (see ListFlights).
func (s *Service) ReadableTables(ctx context.Context) (ids []catalog.Identifier, failedCatalogs []string, err error) {
	ids, failed, err := s.listTables(ctx)
	if err != nil {
		return nil, nil, err
	}
	ids, err = s.auth.readable(ctx, ids)
	return ids, failed, err
}

// StreamTicket verifies ticket (its signature, its expiry, the caller's
// read grant on its table) and streams its record batches: begin once with
// the stream's schema, then write for each batch, which is valid only
// during the call (write must Retain a batch it keeps). It takes a stream
// slot and records rows, bytes and the call's table, snapshot and files as
// DoGet does, which calls it too; no file is opened before the ticket
// checks out. The bytes counted are the batches' Arrow buffer bytes (DoGet
// counts the IPC bytes it sends instead).
func (s *Service) StreamTicket(ctx context.Context, ticket []byte, begin func(*arrow.Schema) error, write func(arrow.RecordBatch) error) error {
	return s.streamTicket(ctx, ticket, begin, func(rec arrow.RecordBatch) (int64, error) {
		return recordBytes(rec), write(rec)
	})
}

// streamTicket is StreamTicket with a write that reports the bytes it
// sent, for the metrics and the call log.
func (s *Service) streamTicket(ctx context.Context, ticket []byte, begin func(*arrow.Schema) error, write func(arrow.RecordBatch) (int64, error)) error {
	if err := s.needStreamer(); err != nil {
		return err
	}
	release, err := s.streams.acquire(ctx)
	if err != nil {
		s.metrics.Rejected(ctx, RejectStreamLimit)
		return err
	}
	defer release()
	t, err := s.signer.Verify(ticket)
	if err != nil {
		return err
	}
	if err := s.authorizeTicket(ctx, t); err != nil {
		return err
	}
	defer s.metrics.StreamStarted(ctx)()
	call := CallInfoFrom(ctx)
	call.SetTable(t.Table)
	call.SetSnapshotID(t.SnapshotId)
	call.SetFiles(len(t.Tasks))
	rd, err := s.readerFor(ctx, t)
	if err != nil {
		return err
	}
	scan, err := decodeScan(t)
	if err != nil {
		return err
	}
	arrowSchema, err := reader.OutputSchema(scan)
	if err != nil {
		return fmt.Errorf("%w: table %s: %v", errTicketInvalid, t.Table, err)
	}
	if err := begin(arrowSchema); err != nil {
		return err
	}
	emit := limitRows(t.Limit, boundedWrites(MaxMessageBytes, func(rec arrow.RecordBatch) error {
		n, err := write(rec)
		if err != nil {
			return err
		}
		s.metrics.Served(ctx, rec.NumRows(), n)
		call.AddServed(rec.NumRows(), n)
		return nil
	}))
	for _, task := range t.Tasks {
		err := rd.Read(ctx, scan, task, emit)
		if errors.Is(err, errLimitReached) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("table %s: %w", t.Table, readError(t, task, err))
		}
	}
	return nil
}
