package flight

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
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
	return iceberg.ArrowSchema(schema)
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
