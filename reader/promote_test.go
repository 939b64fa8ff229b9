package reader

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
)

// Spec (v3 Schema Evolution): date may be promoted to timestamp and
// timestamp_ns; a day reads as its midnight.
func TestDatePromotesToTimestamp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		typ    iceberg.Type
		perDay int64
	}{
		{"date to timestamp in microseconds", iceberg.TimestampType{}, 86_400_000_000},
		{"date to timestamp_ns in nanoseconds", iceberg.TimestampNsType{}, 86_400_000_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			if !canConvert(arrow.FixedWidthTypes.Date32, tc.typ) {
				t.Fatalf("date cannot be read as %v", tc.typ)
			}
			b := array.NewDate32Builder(mem)
			b.AppendValues([]arrow.Date32{0, 1, -1}, nil)
			b.AppendNull()
			dates := b.NewArray()
			b.Release()
			defer dates.Release()
			target, _ := iceberg.ArrowType(tc.typ)
			c := &converter{ctx: context.Background(), mem: mem, path: "f"}
			got, err := c.asType(dates, target)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			ts := got.(*array.Timestamp)
			for i, want := range []int64{0, tc.perDay, -tc.perDay} {
				if int64(ts.Value(i)) != want {
					t.Errorf("day %d read as %d, want %d", i, ts.Value(i), want)
				}
			}
			if !ts.IsNull(3) {
				t.Error("a null date did not read as null")
			}
		})
	}
	if canConvert(arrow.FixedWidthTypes.Date32, iceberg.TimestampTzType{}) {
		t.Error("date must not promote to timestamptz")
	}
}
