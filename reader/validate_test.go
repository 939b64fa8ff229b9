package reader

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg/scantask"
)

// batchSource is a source that yields the given batches, positions
// consecutive; the read releases them.
type batchSource struct{ batches []arrow.RecordBatch }

func (s *batchSource) next(context.Context) (arrow.RecordBatch, int64, error) {
	if len(s.batches) == 0 {
		return nil, 0, io.EOF
	}
	b := s.batches[0]
	s.batches = s.batches[1:]
	return b, 0, nil
}

func (s *batchSource) close() {
	for _, b := range s.batches {
		b.Release()
	}
}

// stringBatch builds a batch of an id column and a string column whose
// offsets are given, over data.
func stringBatch(mem memory.Allocator, data string, offsets []int32) arrow.RecordBatch {
	ids := array.NewInt64Builder(mem)
	defer ids.Release()
	for i := range len(offsets) - 1 {
		ids.Append(int64(i))
	}
	idCol := ids.NewArray()
	defer idCol.Release()
	off := memory.NewResizableBuffer(mem)
	off.Resize(4 * len(offsets))
	copy(arrow.Int32Traits.CastFromBytes(off.Bytes()), offsets)
	val := memory.NewResizableBuffer(mem)
	val.Resize(len(data))
	copy(val.Bytes(), data)
	d := array.NewData(arrow.BinaryTypes.String, len(offsets)-1, []*memory.Buffer{nil, off, val}, nil, 0, 0)
	off.Release()
	val.Release()
	note := array.MakeFromData(d)
	d.Release()
	defer note.Release()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(1)},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(2)},
	}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{idCol, note}, int64(len(offsets)-1))
}

// With validation on, a batch whose string offsets point past its data
// fails the read where it appears, with ErrInvalidBatch naming the file and
// the stage, instead of reaching a kernel that would panic on it; with
// validation off the pipeline does not look.
func TestValidationNamesFileAndStage(t *testing.T) {
	t.Parallel()
	schema := schemaOf(t, `[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"note","required":false,"type":"string"}]`)
	cases := []struct {
		name     string
		validate bool
		residual string
		offsets  []int32
		want     string // "" for no error
	}{
		{"an offset past the data fails at decode", true, "", []int32{0, 9, 4}, "after decode"},
		{"an offset past the data passes unchecked without validation", false, "", []int32{0, 9, 4}, ""},
		{"falling offsets fail at decode", true, "", []int32{0, 3, 1}, "after decode"},
		{"a valid batch passes every stage", true, `{"type":"gt","term":"id","value":0}`, []int32{0, 2, 4}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(nil, WithAllocator(mem), WithValidation(tc.validate))
			task := &scantask.Task{Path: "data/f.parquet", Format: scantask.Parquet, Residual: residualOf(t, tc.residual)}
			scan := Scan{Schema: schema}
			p, err := newReadPlan(scan, task)
			if err != nil {
				t.Fatal(err)
			}
			defer p.release()
			src := &batchSource{batches: []arrow.RecordBatch{stringBatch(mem, "abcd", tc.offsets)}}
			defer src.close()
			var rows int64
			err = r.run(context.Background(), scan, p, src, nil, func(rec arrow.RecordBatch) error { rows += rec.NumRows(); return nil })
			if tc.want == "" {
				if err != nil {
					t.Fatalf("read failed: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidBatch) || !strings.Contains(err.Error(), "data/f.parquet") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrInvalidBatch naming data/f.parquet and %q", err, tc.want)
			}
			if rows != 0 {
				t.Errorf("%d rows emitted before the invalid batch was caught", rows)
			}
		})
	}
}

// The kept rows of deletes and residuals must rise strictly and stay in the
// batch, since take runs without bounds checks.
func TestValidationOfSelections(t *testing.T) {
	t.Parallel()
	v := validator{on: true, path: "f.parquet"}
	for _, tc := range []struct {
		name string
		keep []int32
		ok   bool
	}{
		{"no selection keeps every row", nil, true},
		{"rising rows in the batch", []int32{0, 3, 9}, true},
		{"a row past the batch", []int32{0, 10}, false},
		{"a negative row", []int32{-1}, false},
		{"a repeated row", []int32{2, 2}, false},
		{"falling rows", []int32{5, 4}, false},
	} {
		err := v.selection(stageDeletes, tc.keep, 10)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidBatch)) {
			t.Errorf("%s: error %v", tc.name, err)
		}
	}
	if err := (validator{}).selection(stageDeletes, []int32{5, 4}, 1); err != nil {
		t.Errorf("validation off checked a selection: %v", err)
	}
}
