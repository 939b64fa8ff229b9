package engine

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/metadata"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// CatalogErrorsKey is the trailer of a ListFlights stream that names each
// mounted catalog that could not list its tables, one value a catalog:
// "catalog prod: <why>".
const CatalogErrorsKey = "iceflight-catalog-errors"

// listTables lists the tables of the engine's catalog. Mounted catalogs
// that fail while others answer are logged and returned as failed (see
// listFailures), and the tables of the rest are listed; a listing with no
// table at all returns the error.
func (e *Engine) listTables(ctx context.Context) (ids []catalog.Identifier, failed []string, err error) {
	ids, err = e.catalog.ListTables(ctx)
	failed = listFailures(err)
	if err == nil || len(ids) == 0 || len(failed) == 0 {
		return ids, nil, err
	}
	for _, f := range failed {
		e.log.WarnContext(ctx, "listing the tables: a catalog failed; listing the others", "err", f)
	}
	return ids, failed, nil
}

// failedCatalogs is the trailer that names the catalogs a listing missed.
func failedCatalogs(failed []string) metadata.MD {
	md := metadata.MD{}
	for _, f := range failed {
		md.Append(CatalogErrorsKey, f)
	}
	return md
}

// listFailures returns the message of each mounted catalog's failure in
// err (a catalog.MountError, or several joined), bounded as status
// messages are; none for any other error, which fails the whole listing.
func listFailures(err error) []string {
	var out []string
	var visit func(error)
	visit = func(err error) {
		var me *catalog.MountError
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range joined.Unwrap() {
				visit(e)
			}
			return
		}
		if errors.As(err, &me) {
			out = append(out, printable(TruncateMessage(me.Error())))
		}
	}
	if err != nil {
		visit(err)
	}
	return out
}

// printable makes s fit a gRPC metadata value, which is printable ASCII:
// anything else (a line break of a joined error, UTF-8) becomes "?".
func printable(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}

// ListFlights lists every table with its schema and estimated rows. A table
// whose metadata cannot be read is logged and left out rather than failing
// the whole listing, and so are the tables of a mounted catalog that cannot
// list them (down, a 500): the stream's trailer says which catalogs failed
// and why (see listFailures). It loads every table's metadata, so it takes
// a planning slot like GetFlightInfo.
func (e *Engine) ListFlights(stream flight.FlightService_ListFlightsServer) error {
	ctx := stream.Context()
	if err := e.NeedPlanner("ListFlights"); err != nil {
		return err
	}
	release, err := e.PlanSlot(ctx)
	if err != nil {
		return err
	}
	defer release()
	ids, failed, err := e.listTables(ctx)
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		stream.SetTrailer(failedCatalogs(failed))
	}
	if ids, err = e.auth.Readable(ctx, ids); err != nil {
		return err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		tbl, err := e.catalog.LoadTable(ctx, id)
		if err != nil {
			e.log.WarnContext(ctx, "ListFlights: skipping table", "table", id.String(), "err", TruncateMessage(err.Error()))
			continue
		}
		schema, err := iceberg.ArrowSchema(tbl.Metadata.CurrentSchema())
		if err != nil {
			e.log.WarnContext(ctx, "ListFlights: skipping table", "table", id.String(), "err", TruncateMessage(err.Error()))
			continue
		}
		info := &flight.FlightInfo{
			Schema:           flight.SerializeSchema(schema, e.mem),
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
