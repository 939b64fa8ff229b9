package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/planner"
)

// parseInterspersed parses flags that may come before or after positional
// arguments ("plan TABLE --snapshot-id N" and "plan --snapshot-id N TABLE").
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// optionalInt64 is an int64 flag that remembers whether it was set.
type optionalInt64 struct{ v *int64 }

func (o *optionalInt64) String() string {
	if o.v == nil {
		return ""
	}
	return fmt.Sprint(*o.v)
}

func (o *optionalInt64) Set(s string) error {
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		return fmt.Errorf("not an integer: %q", s)
	}
	o.v = &n
	return nil
}

func planCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	warehouse := fs.String("warehouse", ".", "directory warehouse holding the table")
	columns := fs.String("columns", "", "comma-separated columns to project (default: all)")
	ref := fs.String("ref", "", "branch or tag to read")
	maxEndpoints := fs.Int("max-endpoints", 0, "cap on endpoints (default: planner's)")
	var allowRoots folderList
	fs.Var(&allowRoots, "allow-root", "a folder beyond the warehouse that the table may read files from; repeatable")
	var snapshotID, asOf optionalInt64
	fs.Var(&snapshotID, "snapshot-id", "snapshot to read (default: current)")
	fs.Var(&asOf, "as-of-timestamp-ms", "read the snapshot current at this time (ms since epoch)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: flightd plan [flags] TABLE")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError{"want exactly one TABLE"}
	}
	id, err := catalog.ParseIdentifier(pos[0])
	if err != nil {
		return err
	}
	cat, err := catalog.NewDirectory(*warehouse, catalog.WithAllowedRoots(allowRoots...))
	if err != nil {
		return err
	}
	tbl, err := cat.LoadTable(ctx, id)
	if err != nil {
		return err
	}
	req := planner.Request{
		Selection:     planner.Selection{SnapshotID: snapshotID.v, AsOfTimestamp: asOf.v, Ref: *ref},
		CaseSensitive: true,
		MaxEndpoints:  *maxEndpoints,
	}
	if *columns != "" {
		req.Columns = strings.Split(*columns, ",")
	}
	plan, err := planner.New().Plan(ctx, planner.Table{Name: tbl.Identifier.String(), MetadataLocation: tbl.MetadataLocation, Metadata: tbl.Metadata, IO: tbl.IO}, req)
	if err != nil {
		return err
	}
	out, err := planJSON(plan)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// planJSON renders a plan for people and scripts.
func planJSON(plan *planner.Plan) ([]byte, error) {
	type endpoint struct {
		Bytes   int64             `json:"bytes"`
		Records int64             `json:"records"`
		Tasks   []json.RawMessage `json:"tasks"`
	}
	out := struct {
		Table            string        `json:"table"`
		MetadataLocation string        `json:"metadata_location"`
		SnapshotID       *int64        `json:"snapshot_id"`
		Schema           any           `json:"schema"`
		Stats            planner.Stats `json:"stats"`
		Endpoints        []endpoint    `json:"endpoints"`
	}{Table: plan.Table, MetadataLocation: plan.MetadataLocation, Schema: plan.Schema, Stats: plan.Stats, Endpoints: []endpoint{}}
	if plan.Snapshot != nil {
		out.SnapshotID = &plan.Snapshot.SnapshotID
	}
	for _, ep := range plan.Endpoints {
		e := endpoint{Bytes: ep.Bytes, Records: ep.Records}
		for _, t := range ep.Tasks {
			w, err := engine.WireTask(t)
			if err != nil {
				return nil, err
			}
			b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(w)
			if err != nil {
				return nil, err
			}
			e.Tasks = append(e.Tasks, b)
		}
		out.Endpoints = append(out.Endpoints, e)
	}
	return json.MarshalIndent(out, "", "  ")
}
