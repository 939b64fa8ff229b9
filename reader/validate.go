package reader

import (
	"errors"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ErrInvalidBatch marks a batch that fails Arrow's full validation where it
// leaves a stage of the read: a fault of the reader (or of arrow-go), never
// of the caller, found before a kernel or the IPC writer trips on it.
var ErrInvalidBatch = errors.New("invalid arrow batch")

// ValidateEnv names the environment variable that turns batch validation on
// ("1") for every Reader made without WithValidation.
const ValidateEnv = "ICEFLIGHT_VALIDATE_BATCHES"

// WithValidation makes the reader check every batch with Arrow's full
// validation as it leaves each stage (decode, deletes, residual,
// projection, constants) and fail the read with ErrInvalidBatch, naming the
// file and the stage, rather than pass on offsets that point past their
// data. It costs a pass over every value: it is for tests and for
// `flightd serve --validate-batches`.
func WithValidation(on bool) Option { return func(r *Reader) { r.validate = on } }

// validationFromEnv is the default of WithValidation.
func validationFromEnv() bool { return os.Getenv(ValidateEnv) == "1" }

// stage names a boundary of the read pipeline (see pipeline.go).
type stage string

const (
	stageDecode     stage = "decode"     // a source's batch, in the read schema
	stageDeletes    stage = "deletes"    // the rows deletes keep
	stageResidual   stage = "residual"   // the rows the residual filter keeps
	stageProjection stage = "projection" // the kept rows of each read column
	stageConstants  stage = "constants"  // the output batch, constants and metadata columns added
)

// validator checks what leaves each stage of one task's read; the zero
// value (validation off) checks nothing.
type validator struct {
	on   bool
	path string
}

// batch checks every column of rec against rec's schema and row count.
func (v validator) batch(s stage, rec arrow.RecordBatch) error {
	if !v.on {
		return nil
	}
	if int(rec.NumCols()) != rec.Schema().NumFields() {
		return v.fail(s, fmt.Errorf("%d columns for %d fields", rec.NumCols(), rec.Schema().NumFields()))
	}
	for i, col := range rec.Columns() {
		f := rec.Schema().Field(i)
		if int64(col.Len()) != rec.NumRows() {
			return v.fail(s, fmt.Errorf("column %s has %d rows, the batch %d", f.Name, col.Len(), rec.NumRows()))
		}
		if !arrow.TypeEqual(col.DataType(), f.Type) {
			return v.fail(s, fmt.Errorf("column %s is %s, its field %s", f.Name, col.DataType(), f.Type))
		}
		if err := validateFull(col); err != nil {
			return v.fail(s, fmt.Errorf("column %s: %w", f.Name, err))
		}
	}
	return nil
}

// array checks one column.
func (v validator) array(s stage, name string, col arrow.Array) error {
	if !v.on {
		return nil
	}
	if err := validateFull(col); err != nil {
		return v.fail(s, fmt.Errorf("column %s: %w", name, err))
	}
	return nil
}

// selection checks that the kept row indices of a batch of n rows rise
// strictly and lie in the batch: take runs without bounds checks.
func (v validator) selection(s stage, keep []int32, n int64) error {
	if !v.on || keep == nil {
		return nil
	}
	prev := int32(-1)
	for _, k := range keep {
		if k <= prev || int64(k) >= n {
			return v.fail(s, fmt.Errorf("kept row %d after %d in a batch of %d rows", k, prev, n))
		}
		prev = k
	}
	return nil
}

func (v validator) fail(s stage, err error) error {
	return fmt.Errorf("%w: %s, after %s: %v", ErrInvalidBatch, v.path, s, err)
}

// validateFull is array.ValidateFull; a panic inside it, on an array broken
// in a way it does not expect, is that array's failure too.
func validateFull(col arrow.Array) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("validation panicked: %v", p)
		}
	}()
	return array.ValidateFull(col)
}
