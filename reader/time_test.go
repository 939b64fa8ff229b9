package reader

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/iceflight/iceflight/iceberg"
)

// timeFile has timestamps in three units and times in two.
func timeFile(t *testing.T) []byte {
	mem := memory.DefaultAllocator
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true, Metadata: fid(1)},
		{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true, Metadata: fid(2)},
		{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true, Metadata: fid(3)},
		{Name: "t_ms", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true, Metadata: fid(4)},
		{Name: "t_us", Type: arrow.FixedWidthTypes.Time64us, Nullable: true, Metadata: fid(5)},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true, Metadata: fid(6)},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	valid := []bool{true, true, false}
	b.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{-1500, 1_700_000_000_123, 0}, valid)
	b.Field(1).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{-7, 5, 0}, valid)
	b.Field(2).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{-1500, 2500, 0}, valid)
	b.Field(3).(*array.Time32Builder).AppendValues([]arrow.Time32{1000, 86_399_999, 0}, valid)
	b.Field(4).(*array.Time64Builder).AppendValues([]arrow.Time64{1, 86_399_999_999, 0}, valid)
	b.Field(5).(*array.Date32Builder).AppendValues([]arrow.Date32{-1, 19_000, 0}, valid)
	rec := b.NewRecordBatch()
	defer rec.Release()
	return writeRecord(t, rec, 100)
}

// int64Column reads one column of a task as int64 values (nil for null).
func int64Column(t *testing.T, r *Reader, scan Scan, path string) ([]any, arrow.DataType, error) {
	t.Helper()
	var out []any
	var dt arrow.DataType
	err := r.Read(context.Background(), scan, parquetTask(path), func(rec arrow.RecordBatch) error {
		col := rec.Column(0)
		dt = col.DataType()
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				out = append(out, nil)
				continue
			}
			switch a := col.(type) {
			case *array.Timestamp:
				out = append(out, int64(a.Value(i)))
			case *array.Time64:
				out = append(out, int64(a.Value(i)))
			case *array.Date32:
				out = append(out, int64(a.Value(i)))
			default:
				t.Fatalf("unexpected column type %s", col.DataType())
			}
		}
		return nil
	})
	return out, dt, err
}

func TestReadTimes(t *testing.T) {
	t.Parallel()
	data := timeFile(t)
	tests := []struct {
		name  string
		field string
		want  []any
	}{
		{"timestamp millis to micros", `{"id":1,"name":"c","required":false,"type":"timestamp"}`, []any{int64(-1_500_000), int64(1_700_000_000_123_000), nil}},
		{"timestamp millis to nanos", `{"id":1,"name":"c","required":false,"type":"timestamp_ns"}`, []any{int64(-1_500_000_000), int64(1_700_000_000_123_000_000), nil}},
		{"timestamptz micros as is", `{"id":2,"name":"c","required":false,"type":"timestamptz"}`, []any{int64(-7), int64(5), nil}},
		{"timestamp nanos to micros rounds down", `{"id":3,"name":"c","required":false,"type":"timestamptz"}`, []any{int64(-2), int64(2), nil}},
		{"timestamp nanos as is", `{"id":3,"name":"c","required":false,"type":"timestamp_ns"}`, []any{int64(-1500), int64(2500), nil}},
		{"time millis to micros", `{"id":4,"name":"c","required":false,"type":"time"}`, []any{int64(1_000_000), int64(86_399_999_000), nil}},
		{"time micros as is", `{"id":5,"name":"c","required":false,"type":"time"}`, []any{int64(1), int64(86_399_999_999), nil}},
		{"date", `{"id":6,"name":"c","required":false,"type":"date"}`, []any{int64(-1), int64(19_000), nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(memIO{"times.parquet": data}, WithAllocator(mem))
			sch := schemaOf(t, "["+tc.field+"]")
			got, dt, err := int64Column(t, r, Scan{Schema: sch}, "times.parquet")
			if err != nil {
				t.Fatal(err)
			}
			wantType, _ := iceberg.ArrowType(sch.Fields[0].Type)
			if !arrow.TypeEqual(dt, wantType) {
				t.Errorf("type %s, want %s", dt, wantType)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("values %v, want %v", got, tc.want)
			}
		})
	}
}

// int96Of encodes an instant as Impala writes it: nanoseconds of the day,
// then the Julian day.
func int96Of(ts time.Time) parquet.Int96 {
	var v parquet.Int96
	days := ts.Unix() / 86400
	if ts.Unix() < 0 && ts.Unix()%86400 != 0 {
		days--
	}
	nanos := ts.Sub(time.Unix(days*86400, 0).UTC()).Nanoseconds()
	binary.LittleEndian.PutUint64(v[:8], uint64(nanos))
	binary.LittleEndian.PutUint32(v[8:], uint32(days+2_440_588))
	return v
}

// int96File writes an id column and an INT96 column (no field ids, as Hive
// and Impala write them) in two row groups.
func int96File(t *testing.T, groups [][]*time.Time) []byte {
	t.Helper()
	idNode, _ := schema.NewPrimitiveNode("id", parquet.Repetitions.Required, parquet.Types.Int32, -1, -1)
	tsNode, _ := schema.NewPrimitiveNode("ts", parquet.Repetitions.Optional, parquet.Types.Int96, -1, -1)
	root, err := schema.NewGroupNode("hive_schema", parquet.Repetitions.Required, schema.FieldList{idNode, tsNode}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := file.NewParquetWriterWithError(&buf, root)
	if err != nil {
		t.Fatal(err)
	}
	id := int32(0)
	for _, g := range groups {
		rg, err := w.AppendRowGroupChecked()
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int32, len(g))
		var vals []parquet.Int96
		defs := make([]int16, len(g))
		for i, ts := range g {
			ids[i] = id
			id++
			if ts != nil {
				vals = append(vals, int96Of(*ts))
				defs[i] = 1
			}
		}
		cw, _ := rg.NextColumn()
		if _, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(ids, nil, nil); err != nil {
			t.Fatal(err)
		}
		cw.Close()
		cw, _ = rg.NextColumn()
		if _, err := cw.(*file.Int96ColumnChunkWriter).WriteBatch(vals, defs, nil); err != nil {
			t.Fatal(err)
		}
		cw.Close()
		rg.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadInt96(t *testing.T) {
	t.Parallel()
	at := func(s string) *time.Time {
		ts, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return &ts
	}
	early, late, epoch, before := at("1400-01-01T00:00:00Z"), at("9999-12-31T23:59:59.999999Z"), at("1970-01-01T00:00:00.000001Z"), at("1969-12-31T23:59:59.5Z")
	data := int96File(t, [][]*time.Time{{early, nil, epoch}, {late, before}})
	tests := []struct {
		name      string
		schema    string
		batchSize int
		want      []any
		wantErr   error
	}{
		{
			name:      "INT96 outside the nanosecond range reads as micros, across row groups and batches",
			schema:    `[{"id":2,"name":"ts","required":false,"type":"timestamp"}]`,
			batchSize: 2,
			want:      []any{early.UnixMicro(), nil, int64(1), late.UnixMicro(), int64(-500_000)},
		},
		{
			name:      "INT96 with a column read by pqarrow beside it",
			schema:    `[{"id":1,"name":"id","required":true,"type":"int"},{"id":2,"name":"ts","required":false,"type":"timestamptz"}]`,
			batchSize: 4,
			want:      []any{early.UnixMicro(), nil, int64(1), late.UnixMicro(), int64(-500_000)},
		},
		{
			name:      "INT96 that does not fit nanoseconds is an error for timestamp_ns",
			schema:    `[{"id":2,"name":"ts","required":false,"type":"timestamp_ns"}]`,
			batchSize: 10,
			wantErr:   ErrInvalidTask,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(memIO{"int96.parquet": data}, WithAllocator(mem), WithBatchSize(tc.batchSize))
			sch := schemaOf(t, tc.schema)
			var got []any
			err := r.Read(context.Background(), Scan{Schema: sch}, parquetTask("int96.parquet"), func(rec arrow.RecordBatch) error {
				col := rec.Column(len(sch.Fields) - 1).(*array.Timestamp)
				for i := 0; i < col.Len(); i++ {
					if col.IsNull(i) {
						got = append(got, nil)
					} else {
						got = append(got, int64(col.Value(i)))
					}
				}
				if len(sch.Fields) == 2 {
					ids := rec.Column(0).(*array.Int32)
					for i := 0; i < ids.Len(); i++ {
						if want := int32(len(got) - col.Len() + i); ids.Value(i) != want {
							t.Errorf("id %d at row %d: INT96 column out of step", ids.Value(i), want)
						}
					}
				}
				return nil
			})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("values %v, want %v", got, tc.want)
			}
		})
	}
}
