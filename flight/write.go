package flight

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/writer"
)

// Writer is what the service needs of a table writer to serve DoPut and
// the write actions; a *writer.Writer is one.
type Writer interface {
	CreateTable(ctx context.Context, id catalog.Identifier, req writer.CreateTable) (*catalog.Table, error)
	// Write consumes rows and commits them; it must check rows.Err()
	// before it commits, so that a stream broken midway commits nothing.
	Write(ctx context.Context, id catalog.Identifier, req writer.WriteRequest, rows array.RecordReader) (*writer.Result, error)
	Delete(ctx context.Context, id catalog.Identifier, req writer.DeleteRequest) (*writer.Result, error)
	Alter(ctx context.Context, id catalog.Identifier, req writer.AlterRequest) (*catalog.Table, error)
	ExpireSnapshots(ctx context.Context, id catalog.Identifier, req writer.ExpireRequest) (*writer.MaintenanceResult, error)
	RemoveOrphanFiles(ctx context.Context, id catalog.Identifier, req writer.OrphanRequest) (*writer.MaintenanceResult, error)
	RewriteDataFiles(ctx context.Context, id catalog.Identifier, req writer.CompactRequest) (*writer.MaintenanceResult, error)
	RewriteManifests(ctx context.Context, id catalog.Identifier, req writer.RewriteManifestsRequest) (*writer.MaintenanceResult, error)
}

// WriteCatalog is what the service needs of a catalog to manage
// namespaces and drop tables; a catalog.Registry that commits is one.
type WriteCatalog interface {
	catalog.Namespaces
	DropTable(ctx context.Context, id catalog.Identifier, purge bool) error
}

// WithWriter lets the service change tables: DoPut and the write actions
// go to w, namespace actions and drop_table to cat (nil: they are
// refused as a read-only catalog's).
func WithWriter(w Writer, cat WriteCatalog) Option {
	return func(s *Service) { s.writer, s.writeCatalog = w, cat }
}

// WithReadOnly refuses every write with FailedPrecondition, saying why
// (a flightd reachable from other hosts without credentials, say).
func WithReadOnly(reason string) Option {
	return func(s *Service) { s.readOnly = reason }
}

// WithPutLimits bounds the concurrent DoPut streams (0: unbounded) and
// the Arrow IPC bytes one DoPut may send (0: unbounded). A stream over
// its byte bound fails InvalidArgument and commits nothing.
func WithPutLimits(maxPuts int, maxPutBytes int64) Option {
	return func(s *Service) {
		s.puts, s.maxPutBytes = engine.NewLimiter("DoPut", maxPuts), maxPutBytes
	}
}

// Default DoPut limits per process: a put holds a data file's worth of
// rows in memory while it writes, so fewer run at once than streams.
const (
	DefaultMaxPuts = 8
)

// checkWritable refuses a write call this process cannot serve, before
// anything of the call's body is looked at: a worker, a read-only server,
// a service built without a writer.
func (s *Service) checkWritable(call string) error {
	switch {
	case s.eng.Role() == engine.RoleWorker:
		return fmt.Errorf("%w: %s: this is a worker; send writes to a coordinator (a process of role all or coordinator)", engine.ErrWorkerWrite, call)
	case s.readOnly != "":
		return fmt.Errorf("%w: %s: %s", engine.ErrReadOnly, call, s.readOnly)
	case s.writer == nil:
		return fmt.Errorf("%w: %s: the catalog of this server cannot commit changes", engine.ErrReadOnly, call)
	}
	return nil
}

// authorizeWrite parses a table name and checks that the caller may
// write its namespace, before the table is looked up, so a refusal does
// not tell whether the table exists.
func (s *Service) authorizeWrite(ctx context.Context, call, table string) (catalog.Identifier, error) {
	if err := s.checkWritable(call); err != nil {
		return nil, err
	}
	if table == "" {
		return nil, fmt.Errorf("%w: %s needs {\"table\": ...}", engine.ErrBadCommand, call)
	}
	id, err := catalog.ParseIdentifier(table)
	if err != nil {
		return nil, err
	}
	engine.CallInfoFrom(ctx).SetTable(id.String())
	if err := s.eng.Authenticator().AuthorizeWrite(ctx, id.Namespace(), "table "+id.String()); err != nil {
		s.eng.Metrics().Rejected(ctx, engine.RejectPermissionDenied)
		return nil, err
	}
	return id, nil
}

// committed makes the next read of table id see a commit at once: a
// caching catalog would otherwise serve the metadata it read before the
// commit until its refresh interval passes.
func (s *Service) committed(id catalog.Identifier) {
	if r, ok := s.eng.Catalog().(refresher); ok {
		r.Refresh(id)
	}
}

// writeConfig is the part of a Service that writes tables.
type writeConfig struct {
	writer       Writer
	writeCatalog WriteCatalog
	// readOnly, when set, is why every write is refused.
	readOnly    string
	puts        *engine.Limiter
	maxPutBytes int64
}
