package iceberg

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func specString(s PartitionSpec) string {
	parts := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		parts[i] = fmt.Sprintf("%d:%s=%s(%d)", f.FieldID, f.Name, f.Transform, f.SourceID)
	}
	return strings.Join(parts, " ")
}

func TestSpecUpdate(t *testing.T) {
	t.Parallel()
	type op func(u *SpecUpdate) error
	// history: spec 1 once added bucket[16](id) as 1001; the table went
	// back to spec 0 (a rollback of the default).
	withHistory := func(md *TableMetadata) {
		md.Specs = append(md.Specs, PartitionSpec{ID: 1, Fields: []PartitionField{
			{SourceID: 3, FieldID: 1000, Name: "ts_day", Transform: DayTransform{}},
			{SourceID: 1, FieldID: 1001, Name: "id_bucket_16", Transform: BucketTransform{N: 16}},
		}})
		md.LastPartitionID = 1001
	}
	tests := []struct {
		name     string
		v        int
		setup    func(md *TableMetadata)
		ops      []op
		want     string // the new spec; "" with wantLast 0: unchanged
		wantID   int
		wantLast int
		err      string
	}{
		{name: "bucket takes Java's default name and the next id", v: 2,
			ops:  []op{func(u *SpecUpdate) error { return u.AddField("id", "bucket[16]", "") }},
			want: "1000:ts_day=day(3) 1001:id_bucket_16=bucket[16](1)", wantID: 1, wantLast: 1001},
		{name: "truncate, identity and a nested source", v: 2,
			ops: []op{
				func(u *SpecUpdate) error { return u.AddField("data", "truncate[4]", "") },
				func(u *SpecUpdate) error { return u.AddField("n", "", "") },
				func(u *SpecUpdate) error { return u.AddField("loc.lat", "identity", "") },
			},
			want: "1000:ts_day=day(3) 1001:data_trunc_4=truncate[4](2) 1002:n=identity(16) 1003:loc.lat=identity(8)", wantID: 1, wantLast: 1003},
		{name: "explicit name", v: 2, ops: []op{func(u *SpecUpdate) error { return u.AddField("id", "bucket[8]", "shard") }},
			want: "1000:ts_day=day(3) 1001:shard=bucket[8](1)", wantID: 1, wantLast: 1001},
		{name: "duplicate of a current field", v: 2, ops: []op{func(u *SpecUpdate) error { return u.AddField("ts", "day", "") }}, err: "conflicts with ts_day"},
		{name: "duplicate add", v: 2, ops: []op{
			func(u *SpecUpdate) error { return u.AddField("id", "bucket[4]", "") },
			func(u *SpecUpdate) error { return u.AddField("id", "bucket[4]", "b2") },
		}, err: "already added"},
		// Java checks redundancy among the fields one change adds only.
		{name: "a time partition beside the current one", v: 2, ops: []op{func(u *SpecUpdate) error { return u.AddField("ts", "hour", "") }},
			want: "1000:ts_day=day(3) 1001:ts_hour=hour(3)", wantID: 1, wantLast: 1001},
		{name: "redundant time partitions added", v: 2, ops: []op{
			func(u *SpecUpdate) error { return u.RemoveField("ts_day") },
			func(u *SpecUpdate) error { return u.AddField("ts", "hour", "") },
			func(u *SpecUpdate) error { return u.AddField("ts", "month", "") },
		}, err: "redundant"},
		{name: "v2 removal drops the field", v: 2, ops: []op{func(u *SpecUpdate) error { return u.RemoveField("ts_day") }},
			want: "", wantID: 1, wantLast: 1000},
		{name: "v1 removal leaves a void field with the same id", v: 1, ops: []op{func(u *SpecUpdate) error { return u.RemoveFieldByTransform("ts", "day") }},
			want: "1000:ts_day=void(3)", wantID: 1, wantLast: 1000},
		{name: "v1 re-adding beside a void field renames the void one", v: 1,
			setup: func(md *TableMetadata) {
				md.Specs[0].Fields[0].Transform = VoidTransform{}
			},
			ops:  []op{func(u *SpecUpdate) error { return u.AddField("ts", "day", "") }},
			want: "1000:ts_day_1000=void(3) 1001:ts_day=day(3)", wantID: 1, wantLast: 1001},
		{name: "removed and added back is no change", v: 2, ops: []op{
			func(u *SpecUpdate) error { return u.RemoveField("ts_day") },
			func(u *SpecUpdate) error { return u.AddField("ts", "day", "") },
		}},
		{name: "v2 recycles an earlier spec's field id", v: 2, setup: withHistory,
			ops:  []op{func(u *SpecUpdate) error { return u.AddField("id", "bucket[16]", "") }},
			want: "1000:ts_day=day(3) 1001:id_bucket_16=bucket[16](1)", wantID: 2, wantLast: 1001},
		{name: "v1 never recycles", v: 1, setup: withHistory,
			ops:  []op{func(u *SpecUpdate) error { return u.AddField("id", "bucket[16]", "") }},
			want: "1000:ts_day=day(3) 1002:id_bucket_16=bucket[16](1)", wantID: 2, wantLast: 1002},
		{name: "rename", v: 2, ops: []op{func(u *SpecUpdate) error { return u.RenameField("ts_day", "day") }},
			want: "1000:day=day(3)", wantID: 1, wantLast: 1000},
		{name: "rename a removed field", v: 2, ops: []op{
			func(u *SpecUpdate) error { return u.RemoveField("ts_day") },
			func(u *SpecUpdate) error { return u.RenameField("ts_day", "x") },
		}, err: "removed"},
		{name: "remove a missing field", v: 2, ops: []op{func(u *SpecUpdate) error { return u.RemoveField("nope") }}, err: "not found"},
		{name: "hour does not apply to a date", v: 2, ops: []op{func(u *SpecUpdate) error { return u.AddField("d", "hour", "") }}, err: "does not apply"},
		{name: "bucket does not apply to a float", v: 2, ops: []op{func(u *SpecUpdate) error { return u.AddField("loc.lat", "bucket[2]", "") }}, err: "does not apply"},
		{name: "sources in lists cannot partition", v: 2, ops: []op{func(u *SpecUpdate) error { return u.AddField("points.x", "identity", "") }}, err: "not found"},
		{name: "a partition name may not shadow another column", v: 2, ops: []op{func(u *SpecUpdate) error { return u.AddField("id", "bucket[2]", "data") }}, err: "column of that name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			md := evolveBase(tc.v)
			if tc.setup != nil {
				tc.setup(md)
			}
			before := specString(md.Specs[0])
			u := NewSpecUpdate(md, nil)
			var err error
			for _, o := range tc.ops {
				if err = o(u); err != nil {
					break
				}
			}
			var spec PartitionSpec
			var last int
			var changed bool
			if err == nil {
				spec, last, changed, err = u.Apply()
			}
			if got := specString(md.Specs[0]); got != before {
				t.Fatalf("the table's spec changed: %s", got)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if !errors.Is(err, ErrInvalidChange) && !errors.Is(err, ErrFieldNotFound) {
					t.Errorf("err %v wraps neither ErrInvalidChange nor ErrFieldNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantLast == 0 {
				if changed {
					t.Fatalf("changed to %s, want no change", specString(spec))
				}
				return
			}
			if !changed || specString(spec) != tc.want || spec.ID != tc.wantID || last != tc.wantLast {
				t.Errorf("spec %d %q last %d changed=%v, want %d %q last %d", spec.ID, specString(spec), last, changed, tc.wantID, tc.want, tc.wantLast)
			}
		})
	}
}
