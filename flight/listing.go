package flight

import (
	"context"
	"errors"

	"google.golang.org/grpc/metadata"

	"github.com/iceflight/iceflight/catalog"
)

// catalogErrorsKey is the trailer of a ListFlights stream that names each
// mounted catalog that could not list its tables, one value a catalog:
// "catalog prod: <why>".
const catalogErrorsKey = "iceflight-catalog-errors"

// listTables lists the tables of the service's catalog. Mounted catalogs
// that fail while others answer are logged and returned as failed (see
// listFailures), and the tables of the rest are listed; a listing with no
// table at all returns the error.
func (s *Service) listTables(ctx context.Context) (ids []catalog.Identifier, failed []string, err error) {
	ids, err = s.catalog.ListTables(ctx)
	failed = listFailures(err)
	if err == nil || len(ids) == 0 || len(failed) == 0 {
		return ids, nil, err
	}
	for _, f := range failed {
		s.log.WarnContext(ctx, "listing the tables: a catalog failed; listing the others", "err", f)
	}
	return ids, failed, nil
}

// failedCatalogs is the trailer that names the catalogs a listing missed.
func failedCatalogs(failed []string) metadata.MD {
	md := metadata.MD{}
	for _, f := range failed {
		md.Append(catalogErrorsKey, f)
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
			out = append(out, printable(truncateMessage(me.Error())))
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
