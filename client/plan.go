package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
)

// Stats is what planning did: the FlightInfo's app_metadata JSON.
type Stats struct {
	SnapshotID                  int64   `json:"snapshot_id"`
	ManifestsRead               int     `json:"manifests_read"`
	ManifestsSkipped            int     `json:"manifests_skipped"`
	ManifestCacheHits           int     `json:"manifest_cache_hits"`
	DataFiles                   int     `json:"data_files"`
	DataFilesSkippedByPartition int     `json:"data_files_skipped_by_partition"`
	DataFilesSkippedByMetrics   int     `json:"data_files_skipped_by_metrics"`
	DeleteFiles                 int     `json:"delete_files"`
	DeleteFilesSkipped          int     `json:"delete_files_skipped"`
	Records                     int64   `json:"records"`
	Bytes                       int64   `json:"bytes"`
	Tasks                       int     `json:"tasks"`
	Endpoints                   int     `json:"endpoints"`
	PlanningMillis              float64 `json:"planning_ms"`
	// ManifestTickets says the endpoints name manifest groups: the files
	// and records above are the manifest list's counts.
	ManifestTickets bool `json:"manifest_tickets"`
}

// EndpointMetadata is an endpoint's app_metadata: the files it reads.
type EndpointMetadata struct {
	Files     []string `json:"files"`
	FileCount int      `json:"file_count"`
	Bytes     int64    `json:"bytes"`
	Records   int64    `json:"records"`
	// Manifests is how many manifests the endpoint's ticket names when the
	// plan has manifest tickets; Files is then empty, FileCount the
	// manifest list's count and Bytes and Records -1.
	Manifests int `json:"manifests"`
}

// Plan is a planned scan of one table. Its tickets expire (one hour by
// default): plan again for a later read. Endpoints may be replaced (a
// subset, other locations) before reading it with ReadPlan or ScanPlan.
type Plan struct {
	Table     string
	Info      *flight.FlightInfo
	Schema    *arrow.Schema
	Endpoints []*flight.FlightEndpoint
	Stats     Stats
}

// EndpointMetadata decodes endpoint i's app_metadata.
func (p *Plan) EndpointMetadata(i int) (EndpointMetadata, error) {
	var md EndpointMetadata
	if raw := p.Endpoints[i].GetAppMetadata(); len(raw) > 0 {
		if err := json.Unmarshal(raw, &md); err != nil {
			return md, fmt.Errorf("table %s: endpoint %d metadata: %w", p.Table, i, err)
		}
	}
	return md, nil
}

// Plan asks the server to plan cmd and returns the endpoints to read. A
// missing table or snapshot is codes.NotFound, a bad column or filter
// codes.InvalidArgument (status.Code reads them through the wrapping).
func (c *Client) Plan(ctx context.Context, cmd Command) (*Plan, error) {
	desc, err := cmd.Descriptor()
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", cmd.Table, err)
	}
	fc, err := c.origin()
	if err != nil {
		return nil, err
	}
	info, err := fc.GetFlightInfo(c.outgoing(ctx), desc)
	if err != nil {
		return nil, withTable(cmd.Table, err)
	}
	return c.planOf(cmd.Table, info)
}

// planOf is the Plan of info, a FlightInfo of table.
func (c *Client) planOf(table string, info *flight.FlightInfo) (*Plan, error) {
	schema, err := flight.DeserializeSchema(info.GetSchema(), c.opts.mem)
	if err != nil {
		return nil, fmt.Errorf("table %s: plan schema: %w", table, err)
	}
	p := &Plan{Table: table, Info: info, Schema: schema, Endpoints: info.GetEndpoint()}
	if md := info.GetAppMetadata(); len(md) > 0 {
		if err := json.Unmarshal(md, &p.Stats); err != nil {
			return nil, fmt.Errorf("table %s: plan statistics: %w", table, err)
		}
	}
	return p, nil
}
