package reader

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
)

func TestConvertORCForms(t *testing.T) {
	t.Parallel()
	// Spec (ORC, Appendix A): Iceberg writes time as a bigint of
	// microseconds, and uuid and fixed as binary.
	mem := checkedAlloc(t)
	conv := &converter{ctx: context.Background(), mem: mem, path: "f.orc"}
	plan := func(typ iceberg.Type) *fieldPlan {
		af, err := iceberg.ArrowField(iceberg.NestedField{ID: 1, Name: "c", Type: typ})
		if err != nil {
			t.Fatal(err)
		}
		return &fieldPlan{field: iceberg.NestedField{ID: 1, Name: "c", Type: typ}, target: af.Type, src: &fileField{name: "c"}}
	}
	ints := array.NewInt64Builder(mem)
	ints.AppendValues([]int64{3723000001, 0}, nil)
	ints.AppendNull()
	times := ints.NewArray()
	ints.Release()
	defer times.Release()
	bins := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	bins.AppendValues([][]byte{[]byte("0123456789abcdef"), nil}, []bool{true, false})
	uuids := bins.NewArray()
	bins.Append([]byte("short"))
	short := bins.NewArray()
	bins.Release()
	defer uuids.Release()
	defer short.Release()

	got, err := conv.convert(plan(iceberg.TimeType{}), times)
	if err != nil {
		t.Fatal(err)
	}
	if tm := got.(*array.Time64); tm.Value(0) != 3723000001 || !tm.IsNull(2) {
		t.Errorf("time %v", got)
	}
	got.Release()
	got, err = conv.convert(plan(iceberg.UUIDType{}), uuids)
	if err != nil {
		t.Fatal(err)
	}
	if u := got.(*array.FixedSizeBinary); string(u.Value(0)) != "0123456789abcdef" || !u.IsNull(1) {
		t.Errorf("uuid %v", got)
	}
	got.Release()
	if _, err := conv.convert(plan(iceberg.FixedType{Length: 16}), short); !errors.Is(err, ErrSchemaMismatch) {
		t.Errorf("a binary value of the wrong length: err = %v, want ErrSchemaMismatch", err)
	}
}
