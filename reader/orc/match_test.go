package orc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// match checks row i of arr against an expected JSON value (decoded with
// UseNumber), spelled as in testdata/pyarrow/rows.jsonl.gz (see gen.py).
func match(arr arrow.Array, i int, want any) error {
	if want == nil || arr.IsNull(i) {
		if want == nil && arr.IsNull(i) {
			return nil
		}
		return fmt.Errorf("null mismatch: got null=%v, want %v", arr.IsNull(i), want)
	}
	mismatch := func(got any) error { return fmt.Errorf("got %v, want %v", got, want) }
	switch a := arr.(type) {
	case *array.Boolean:
		if want != a.Value(i) {
			return mismatch(a.Value(i))
		}
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64:
		got := intValue(a, i)
		n, ok := want.(json.Number)
		if w, err := strconv.ParseInt(string(n), 10, 64); !ok || err != nil || w != got {
			return mismatch(got)
		}
	case *array.Float32:
		return matchFloat(float64(a.Value(i)), want, 32)
	case *array.Float64:
		return matchFloat(a.Value(i), want, 64)
	case *array.String:
		if want != a.Value(i) {
			return mismatch(a.Value(i))
		}
	case *array.Binary:
		if got := hex.EncodeToString(a.Value(i)); want != got {
			return mismatch(got)
		}
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		got := new(big.Rat).SetFrac(a.Value(i).BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
		w, ok := new(big.Rat).SetString(fmt.Sprint(want))
		if !ok || got.Cmp(w) != 0 {
			return mismatch(got.FloatString(int(scale)))
		}
	case *array.Date32:
		if got := json.Number(strconv.Itoa(int(a.Value(i)))); want != got {
			return mismatch(got)
		}
	case *array.Timestamp:
		if got := json.Number(strconv.FormatInt(int64(a.Value(i)), 10)); want != got {
			return mismatch(got)
		}
	case *array.Struct:
		w, ok := want.(map[string]any)
		st := a.DataType().(*arrow.StructType)
		if !ok || len(w) != st.NumFields() {
			return mismatch("a struct")
		}
		for k, f := range st.Fields() {
			if err := match(a.Field(k), i, w[f.Name]); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	case *array.Map:
		start, end := a.ValueOffsets(i)
		w, ok := want.([]any)
		if !ok || int64(len(w)) != end-start {
			return mismatch(fmt.Sprintf("%d entries", end-start))
		}
		for k, e := range w {
			var key, value any
			if pair, ok := e.([]any); ok && len(pair) == 2 {
				key, value = pair[0], pair[1]
			}
			if err := match(a.Keys(), int(start)+k, key); err != nil {
				return fmt.Errorf("key %d: %w", k, err)
			}
			if err := match(a.Items(), int(start)+k, value); err != nil {
				return fmt.Errorf("value %d: %w", k, err)
			}
		}
	case *array.List:
		start, end := a.ValueOffsets(i)
		w, ok := want.([]any)
		if !ok || int64(len(w)) != end-start {
			return mismatch(fmt.Sprintf("%d items", end-start))
		}
		for k, e := range w {
			if err := match(a.ListValues(), int(start)+k, e); err != nil {
				return fmt.Errorf("item %d: %w", k, err)
			}
		}
	default:
		return fmt.Errorf("no matcher for %T", arr)
	}
	return nil
}

func intValue(arr arrow.Array, i int) int64 {
	switch a := arr.(type) {
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	}
	return arr.(*array.Int64).Value(i)
}

// matchFloat compares a float with a JSON number, or with "NaN",
// "Infinity" and "-Infinity", at the column's width.
func matchFloat(got float64, want any, bits int) error {
	var w float64
	switch v := want.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), bits)
		if err != nil {
			return err
		}
		w = f
	case string:
		switch v {
		case "NaN":
			w = math.NaN()
		case "Infinity":
			w = math.Inf(1)
		case "-Infinity":
			w = math.Inf(-1)
		}
	}
	if got == w || math.IsNaN(got) && math.IsNaN(w) {
		return nil
	}
	return fmt.Errorf("got %v, want %v", got, want)
}
