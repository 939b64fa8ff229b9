// Package reader turns one scan task (a slice of one data file) into a stream
// of Arrow record batches in the projected Iceberg schema: columns are chosen
// by field id, evolved types are promoted, and missing columns are filled
// from identity-partition constants, initial-defaults or nulls.
package reader

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

var tracer = otel.Tracer("github.com/iceflight/iceflight/reader")

// DefaultBatchSize is the number of rows per record batch when WithBatchSize
// is not given.
const DefaultBatchSize = 64 * 1024

// Reader reads scan tasks. It is safe for concurrent use; each Read call
// keeps its own state.
type Reader struct {
	fio       fileio.FileIO
	mem       memory.Allocator
	batchSize int
}

// Option configures a Reader.
type Option func(*Reader)

// WithAllocator makes the reader allocate every Arrow buffer it hands out
// from mem.
func WithAllocator(mem memory.Allocator) Option {
	return func(r *Reader) {
		if mem != nil {
			r.mem = mem
		}
	}
}

// WithBatchSize caps the rows of each record batch; values below 1 keep the
// default.
func WithBatchSize(rows int) Option {
	return func(r *Reader) {
		if rows > 0 {
			r.batchSize = rows
		}
	}
}

// New returns a Reader that opens data files through fio.
func New(fio fileio.FileIO, opts ...Option) *Reader {
	r := &Reader{fio: fio, mem: memory.DefaultAllocator, batchSize: DefaultBatchSize}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Scan is what every task of one scan shares: the projected schema and the
// table's name mapping for data files written without field ids.
type Scan struct {
	// Schema is the projected schema; batches have the Arrow schema
	// iceberg.ArrowSchema(Schema).
	Schema *iceberg.Schema
	// NameMapping is the table's schema.name-mapping.default, or nil.
	NameMapping iceberg.NameMapping
}

// Read streams the task's rows as batches whose schema is
// iceberg.ArrowSchema(scan.Schema). emit owns each batch only for the call:
// the reader releases it after emit returns, so emit must Retain a batch it
// keeps. An error from emit stops the read and is returned as is. Read stops
// with ctx's error when ctx is cancelled.
func (r *Reader) Read(ctx context.Context, scan Scan, task *iceflightv1.Task, emit func(arrow.RecordBatch) error) error {
	if task == nil {
		return fmt.Errorf("%w: nil task", ErrInvalidTask)
	}
	ctx, span := tracer.Start(ctx, "reader.Read", trace.WithAttributes(
		attribute.String("iceflight.file", task.GetPath()),
		attribute.Int64("iceflight.file_bytes", task.GetFileSize())))
	defer span.End()
	if scan.Schema == nil {
		return fmt.Errorf("%w: read %s: no projected schema", ErrInvalidTask, task.GetPath())
	}
	if err := checkSupported(task); err != nil {
		return err
	}
	outSchema, err := iceberg.ArrowSchema(scan.Schema)
	if err != nil {
		return fmt.Errorf("read %s: %w", task.GetPath(), err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := r.fio.Open(ctx, task.GetPath())
	if err != nil {
		return fmt.Errorf("open data file %s: %w", task.GetPath(), err)
	}
	defer f.Close()

	pr := &parquetRead{
		mem:       r.mem,
		batchSize: r.batchSize,
		scan:      scan,
		task:      task,
		outSchema: outSchema,
	}
	return pr.run(ctx, f, emit)
}

// checkSupported rejects what a later issue implements: delete files and
// data files that are not Parquet.
func checkSupported(task *iceflightv1.Task) error {
	if len(task.GetDeletes()) > 0 {
		seen := make(map[iceflightv1.DeleteKind]bool)
		var kinds []string
		for _, d := range task.GetDeletes() {
			if seen[d.GetKind()] {
				continue
			}
			seen[d.GetKind()] = true
			kinds = append(kinds, deleteKindName(d.GetKind()))
		}
		return fmt.Errorf("%w: %s for data file %s", ErrUnsupported, strings.Join(kinds, ", "), task.GetPath())
	}
	switch task.GetFormat() {
	case iceflightv1.FileFormat_FILE_FORMAT_PARQUET:
		return nil
	case iceflightv1.FileFormat_FILE_FORMAT_ORC:
		return fmt.Errorf("%w: ORC data file %s", ErrUnsupported, task.GetPath())
	case iceflightv1.FileFormat_FILE_FORMAT_AVRO:
		return fmt.Errorf("%w: Avro data file %s", ErrUnsupported, task.GetPath())
	default:
		return fmt.Errorf("%w: data file %s has format %v", ErrInvalidTask, task.GetPath(), task.GetFormat())
	}
}

func deleteKindName(k iceflightv1.DeleteKind) string {
	switch k {
	case iceflightv1.DeleteKind_DELETE_KIND_POSITION:
		return "position deletes"
	case iceflightv1.DeleteKind_DELETE_KIND_EQUALITY:
		return "equality deletes"
	case iceflightv1.DeleteKind_DELETE_KIND_DELETION_VECTOR:
		return "deletion vectors"
	}
	return "delete files of kind " + k.String()
}
