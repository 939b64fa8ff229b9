package reader

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// memIO is a FileIO over in-memory files.
type memIO map[string][]byte

type memFile struct{ *bytes.Reader }

func (memFile) Close() error { return nil }

func (m memIO) Open(_ context.Context, loc string) (fileio.File, error) {
	b, ok := m[loc]
	if !ok {
		return nil, fmt.Errorf("%w: %s", fileio.ErrNotFound, loc)
	}
	return memFile{bytes.NewReader(b)}, nil
}

// dirIO is a FileIO over local paths.
type dirIO struct{}

type osFile struct {
	*os.File
	size int64
}

func (f osFile) Size() int64 { return f.size }

func (dirIO) Open(_ context.Context, loc string) (fileio.File, error) {
	f, err := os.Open(loc)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return osFile{f, st.Size()}, nil
}

// fid returns field metadata carrying a Parquet field id.
func fid(id int) arrow.Metadata {
	return arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(id)})
}

// writeParquet writes rows (JSON objects, one array) of the Arrow schema sc
// to Parquet, with at most rowGroup rows per row group.
func writeParquet(t *testing.T, sc *arrow.Schema, rowsJSON string, rowGroup int64, opts ...pqarrow.WriterOption) []byte {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(rowsJSON))
	if err != nil {
		t.Fatalf("build record: %v", err)
	}
	defer rec.Release()
	return writeRecord(t, rec, rowGroup, opts...)
}

func writeRecord(t *testing.T, rec arrow.RecordBatch, rowGroup int64, opts ...pqarrow.WriterOption) []byte {
	t.Helper()
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup), parquet.WithStoreDecimalAsInteger(true))
	return testutil.WriteParquet(t, rec, props, opts...)
}

func parquetTask(path string) *scantask.Task {
	return &scantask.Task{Path: path, Format: scantask.Parquet}
}

// schemaOf parses an Iceberg schema from its JSON fields.
func schemaOf(t *testing.T, fieldsJSON string) *iceberg.Schema {
	t.Helper()
	var s iceberg.Schema
	if err := json.Unmarshal([]byte(`{"type":"struct","schema-id":0,"fields":`+fieldsJSON+`}`), &s); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return &s
}

// readResult is what a read produced.
type readResult struct {
	rows    []map[string]any // batches as JSON objects
	batches []int            // rows per batch
	err     error
}

// readAll reads a task and checks every batch has exactly the projected
// schema (field ids and nullability included).
func readAll(t *testing.T, r *Reader, scan Scan, task *scantask.Task) readResult {
	t.Helper()
	want, err := OutputSchema(scan)
	if err != nil {
		t.Fatalf("arrow schema: %v", err)
	}
	var res readResult
	res.err = r.Read(context.Background(), scan, task, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(want) || !reflect.DeepEqual(rec.Schema().Fields(), want.Fields()) {
			return fmt.Errorf("batch schema\n%s\nwant\n%s", rec.Schema(), want)
		}
		for i, col := range rec.Columns() {
			wt := want.Field(i).Type
			if !arrow.TypeEqual(col.DataType(), wt, arrow.CheckMetadata()) || col.DataType().String() != wt.String() {
				return fmt.Errorf("column %d has type %s, want %s", i, col.DataType(), wt)
			}
		}
		if err := array.ValidateRecordFull(rec); err != nil {
			return fmt.Errorf("invalid batch: %v", err)
		}
		res.batches = append(res.batches, int(rec.NumRows()))
		sa := array.RecordToStructArray(rec)
		b, err := json.Marshal(sa)
		sa.Release()
		if err != nil {
			return err
		}
		var rows []map[string]any
		if err := json.Unmarshal(b, &rows); err != nil {
			return err
		}
		res.rows = append(res.rows, rows...)
		return nil
	})
	return res
}

// jsonRows parses expected rows.
func jsonRows(t *testing.T, s string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(s), &rows); err != nil {
		t.Fatalf("expected rows: %v", err)
	}
	return rows
}

// checkedAlloc returns the allocator of a test's reader: a CheckedAllocator,
// to assert that every buffer is released, over a poisoning PoolAllocator,
// the reader's default, so that a buffer used after its release reads
// garbage and fails the test's expected values.
func checkedAlloc(t *testing.T) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(poisonPool{NewPoolAllocator()})
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// poisonPool is a PoolAllocator that overwrites every buffer it takes back.
type poisonPool struct{ *PoolAllocator }

func (p poisonPool) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return p.PoolAllocator.Reallocate(size, b)
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p poisonPool) Free(b []byte) {
	b = b[:cap(b)]
	for i := range b {
		b[i] = 0xa5
	}
	p.PoolAllocator.Free(b)
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// residualOf is the residual a task carries for the Iceberg REST
// expression JSON js; nil for "".
func residualOf(t testing.TB, js string) *scantask.Residual {
	t.Helper()
	if js == "" {
		return nil
	}
	e, err := expr.ParseJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return &scantask.Residual{Expr: e}
}
