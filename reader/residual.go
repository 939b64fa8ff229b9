package reader

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// rowFilter applies a task's residual filter: the part of the scan filter
// that the file's partition and metrics could not settle.
//
// Semantics follow Iceberg Java's, as its strict and inclusive metrics
// evaluators and row evaluator agree on them: NOT is pushed down to the
// predicates first; then a null value satisfies only the negative
// predicates (not-eq, not-in, not-starts-with, not-nan) — where Java's row
// evaluator alone would also let null satisfy lt and lt-eq, its metrics
// evaluators prune such rows, so iceflight does not match them; floats
// order as Java's Double.compare does, NaN above every number and -0.0
// below 0.0.
type rowFilter struct {
	expr  expr.Expr
	root  *rowNode
	paths map[int]keyPath // field id -> path in the read batch
}

// newRowFilter binds the task's residual and adds the fields it reads to
// the read fields. It returns nil when every row matches.
func newRowFilter(scan Scan, task *Task, fields []iceberg.NestedField) (*rowFilter, []iceberg.NestedField, error) {
	if task.Residual == nil || task.Residual.Expr == nil {
		return nil, fields, nil
	}
	e := task.Residual.Expr
	schema := scan.FilterSchema
	if schema == nil {
		schema = scan.Schema
	}
	// Names in a residual are the schema's own full names.
	e, err := expr.Bind(e, schema, true)
	if err != nil {
		return nil, fields, fmt.Errorf("%w: residual filter of %s: %v", ErrInvalidTask, task.Path, err)
	}
	f := &rowFilter{expr: expr.RewriteNot(e), paths: map[int]keyPath{}}
	if f.root, err = compileRows(f.expr); err != nil {
		return nil, fields, fmt.Errorf("%w: residual filter of %s: %v", ErrInvalidTask, task.Path, err)
	}
	var walkErr error
	expr.Walk(f.expr, func(p expr.Predicate) {
		if _, done := f.paths[p.Ref.ID]; done || walkErr != nil {
			return
		}
		var path keyPath
		fields, path, walkErr = addKeyField(fields, p.Ref.ID, scan)
		f.paths[p.Ref.ID] = path
	})
	if walkErr != nil {
		return nil, fields, fmt.Errorf("residual filter of %s: %w", task.Path, walkErr)
	}
	return f, fields, nil
}

// keep narrows a selection of rows (nil: all rows of the batch) to those
// the filter accepts, returning nil when it accepts all of them.
func (f *rowFilter) keep(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch, sel []int32) ([]int32, error) {
	mask, err := f.eval(withComputeAllocator(ctx, mem), f.root, batch)
	if err != nil {
		return nil, err
	}
	if sel == nil {
		all := true
		for _, ok := range mask {
			all = all && ok
		}
		if all {
			return nil, nil
		}
		out := make([]int32, 0, len(mask))
		for i, ok := range mask {
			if ok {
				out = append(out, int32(i))
			}
		}
		return out, nil
	}
	out := sel[:0:0]
	for _, i := range sel {
		if mask[i] {
			out = append(out, i)
		}
	}
	return out, nil
}

// eval returns which rows of batch satisfy the node.
func (f *rowFilter) eval(ctx context.Context, n *rowNode, batch arrow.RecordBatch) ([]bool, error) {
	switch n.kind {
	case rowConst:
		out := make([]bool, batch.NumRows())
		for i := range out {
			out[i] = n.value
		}
		return out, nil
	case rowAnd, rowOr:
		// The terms of a chain are combined in a loop: a chain of
		// thousands of terms costs one mask per term, not stack.
		acc, err := f.eval(ctx, n.terms[0], batch)
		if err != nil {
			return nil, err
		}
		for _, t := range n.terms[1:] {
			m, err := f.eval(ctx, t, batch)
			if err != nil {
				return nil, err
			}
			for i := range acc {
				if n.kind == rowAnd {
					acc[i] = acc[i] && m[i]
				} else {
					acc[i] = acc[i] || m[i]
				}
			}
		}
		return acc, nil
	case rowNot:
		// RewriteNot leaves NOT only where no predicate can absorb it.
		inner, err := f.eval(ctx, n.terms[0], batch)
		if err != nil {
			return nil, err
		}
		for i := range inner {
			inner[i] = !inner[i]
		}
		return inner, nil
	}
	col, valid := column(batch, f.paths[n.pred.Ref.ID])
	if d, ok := col.(*array.Dictionary); ok {
		return evalDictionary(ctx, n, d)
	}
	return evalColumn(ctx, n, col, valid)
}

// evalColumn returns which values of col satisfy the predicate of n; valid,
// when set, says which rows' enclosing structs are present.
func evalColumn(ctx context.Context, n *rowNode, col arrow.Array, valid []bool) ([]bool, error) {
	if n.set != nil {
		return inSet(n.pred.Op, n.set, col, valid)
	}
	return predicate(ctx, n.pred, col, valid)
}

// evalDictionary tests each distinct value of a dictionary column (a
// top-level column, see Scan.Dictionary) once and looks every row's answer
// up by its index; a null index is a null value.
func evalDictionary(ctx context.Context, n *rowNode, d *array.Dictionary) ([]bool, error) {
	byValue, err := evalColumn(ctx, n, d.Dictionary(), nil)
	if err != nil {
		return nil, err
	}
	onNull := n.pred.Op == expr.OpIsNull || nullMatches(n.pred.Op)
	out := make([]bool, d.Len())
	for i := range out {
		if d.IsNull(i) {
			out[i] = onNull
			continue
		}
		k := d.GetValueIndex(i)
		if k < 0 || k >= len(byValue) {
			return nil, fmt.Errorf("%w: dictionary index %d out of range of %d values", ErrInvalidTask, k, len(byValue))
		}
		out[i] = byValue[k]
	}
	return out, nil
}

// column returns the array a path leads to and, for nested paths, whether
// each row's enclosing structs are present (nil when all are).
func column(batch arrow.RecordBatch, path keyPath) (arrow.Array, []bool) {
	col := batch.Column(path[0])
	var valid []bool
	for _, i := range path[1:] {
		st := col.(*array.Struct)
		if st.NullN() > 0 {
			if valid == nil {
				valid = make([]bool, st.Len())
				for r := range valid {
					valid[r] = true
				}
			}
			for r := range valid {
				valid[r] = valid[r] && st.IsValid(r)
			}
		}
		col = st.Field(i)
	}
	return col, valid
}

func predicate(ctx context.Context, p expr.Predicate, col arrow.Array, parents []bool) ([]bool, error) {
	n := col.Len()
	out := make([]bool, n)
	present := func(i int) bool { return col.IsValid(i) && (parents == nil || parents[i]) }
	onNull := nullMatches(p.Op)
	switch p.Op {
	case expr.OpIsNull, expr.OpNotNull:
		for i := range out {
			out[i] = present(i) == (p.Op == expr.OpNotNull)
		}
		return out, nil
	case expr.OpIsNaN, expr.OpNotNaN:
		for i := range out {
			out[i] = onNull
			if present(i) {
				out[i] = isNaN(col, i) == (p.Op == expr.OpIsNaN)
			}
		}
		return out, nil
	case expr.OpStartsWith, expr.OpNotStartsWith:
		prefix, _ := p.Values[0].(string)
		s, ok := col.(*array.String)
		if !ok {
			return nil, fmt.Errorf("%w: starts-with on %s", ErrInvalidTask, col.DataType())
		}
		for i := range out {
			out[i] = onNull
			if present(i) {
				out[i] = strings.HasPrefix(s.Value(i), prefix) == (p.Op == expr.OpStartsWith)
			}
		}
		return out, nil
	}
	if kernelType(col.DataType()) {
		if mask, err := kernel(ctx, p, col); err == nil {
			for i := range out {
				out[i] = onNull
				if present(i) {
					out[i] = mask.IsValid(i) && mask.Value(i)
				}
			}
			mask.Release()
			return out, nil
		}
	}
	// Types the kernels do not order as Iceberg does: a typed loop.
	for i := range out {
		if !present(i) {
			out[i] = onNull
			continue
		}
		match, err := compareAt(p, col, i)
		if err != nil {
			return nil, err
		}
		out[i] = match
	}
	return out, nil
}

// nullMatches reports whether a null value satisfies a predicate: only the
// negative ones hold for it.
func nullMatches(op expr.Op) bool {
	switch op {
	case expr.OpNotEq, expr.OpNotIn, expr.OpNotStartsWith, expr.OpNotNaN:
		return true
	}
	return false
}

// kernelType reports whether Arrow's comparison kernels order a type as
// Iceberg does: integers, dates, times, timestamps and strings.
func kernelType(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIME64, arrow.TIMESTAMP, arrow.STRING:
		return true
	}
	return false
}

var kernelNames = map[expr.Op]string{
	expr.OpLt: "less", expr.OpLtEq: "less_equal", expr.OpGt: "greater", expr.OpGtEq: "greater_equal",
	expr.OpEq: "equal", expr.OpNotEq: "not_equal",
}

func kernel(ctx context.Context, p expr.Predicate, col arrow.Array) (*array.Boolean, error) {
	name, ok := kernelNames[p.Op]
	if !ok {
		return nil, fmt.Errorf("no kernel for %v", p.Op)
	}
	s, err := scalar.MakeScalarParam(p.Values[0], col.DataType())
	if err != nil {
		return nil, err
	}
	// NewDatum retains what it wraps: release both after the call.
	left, right := compute.NewDatum(col), compute.NewDatum(s)
	defer left.Release()
	defer right.Release()
	res, err := compute.CallFunction(ctx, name, nil, left, right)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return res.(*compute.ArrayDatum).MakeArray().(*array.Boolean), nil
}

// compareAt evaluates a comparison on one present value; IN and NOT IN
// go through their sets (residual_tree.go).
func compareAt(p expr.Predicate, col arrow.Array, i int) (bool, error) {
	cmp := func(lit any) (int, error) { return compareValue(col, i, lit) }
	c, err := cmp(p.Values[0])
	if err != nil {
		return false, err
	}
	switch p.Op {
	case expr.OpLt:
		return c < 0, nil
	case expr.OpLtEq:
		return c <= 0, nil
	case expr.OpGt:
		return c > 0, nil
	case expr.OpGtEq:
		return c >= 0, nil
	case expr.OpEq:
		return c == 0, nil
	case expr.OpNotEq:
		return c != 0, nil
	}
	return false, fmt.Errorf("%w: operator %v", ErrInvalidTask, p.Op)
}

// compareValue orders value i of col against a literal of the column's
// Iceberg type (iceberg/literal.go representation).
func compareValue(col arrow.Array, i int, lit any) (int, error) {
	bad := func() (int, error) {
		return 0, fmt.Errorf("%w: cannot compare %s with %T", ErrInvalidTask, col.DataType(), lit)
	}
	switch a := col.(type) {
	case *array.Float32:
		l, ok := lit.(float32)
		if !ok {
			return bad()
		}
		return javaCompare(float64(a.Value(i)), float64(l)), nil
	case *array.Float64:
		l, ok := lit.(float64)
		if !ok {
			return bad()
		}
		return javaCompare(a.Value(i), l), nil
	case *array.Boolean:
		l, ok := lit.(bool)
		if !ok {
			return bad()
		}
		return boolCompare(a.Value(i), l), nil
	case *array.Decimal128:
		l, ok := lit.(decimal128.Num)
		if !ok {
			return bad()
		}
		return a.Value(i).Cmp(l), nil
	case *array.Binary:
		l, ok := lit.([]byte)
		if !ok {
			return bad()
		}
		return bytes.Compare(a.Value(i), l), nil
	case *array.FixedSizeBinary:
		switch l := lit.(type) {
		case []byte:
			return bytes.Compare(a.Value(i), l), nil
		case [16]byte:
			return bytes.Compare(a.Value(i), l[:]), nil
		}
		return bad()
	case *array.Int32:
		l, ok := lit.(int32)
		if !ok {
			return bad()
		}
		return cmpOrdered(a.Value(i), l), nil
	case *array.Int64:
		l, ok := lit.(int64)
		if !ok {
			return bad()
		}
		return cmpOrdered(a.Value(i), l), nil
	case *array.Date32:
		l, ok := lit.(int32)
		if !ok {
			return bad()
		}
		return cmpOrdered(int32(a.Value(i)), l), nil
	case *array.Time64:
		l, ok := lit.(int64)
		if !ok {
			return bad()
		}
		return cmpOrdered(int64(a.Value(i)), l), nil
	case *array.Timestamp:
		l, ok := lit.(int64)
		if !ok {
			return bad()
		}
		return cmpOrdered(int64(a.Value(i)), l), nil
	case *array.String:
		l, ok := lit.(string)
		if !ok {
			return bad()
		}
		return strings.Compare(a.Value(i), l), nil
	}
	return bad()
}

func cmpOrdered[T int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// javaCompare orders floats as Java's Double.compare: -0.0 below 0.0 and
// NaN above every other value, equal to itself.
func javaCompare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	// Equal by value: tell -0.0 from 0.0 by sign.
	return boolCompare(!math.Signbit(a), !math.Signbit(b))
}

func isNaN(col arrow.Array, i int) bool {
	switch a := col.(type) {
	case *array.Float32:
		return math.IsNaN(float64(a.Value(i)))
	case *array.Float64:
		return math.IsNaN(a.Value(i))
	}
	return false
}
