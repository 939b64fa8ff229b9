package reader

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// flatFile is a data file with ids 1..6, three rows.
func flatFile(t *testing.T) []byte {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32, Metadata: fid(1)},
		{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(2)},
		{Name: "c", Type: arrow.PrimitiveTypes.Float32, Nullable: true, Metadata: fid(3)},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 5, Scale: 2}, Nullable: true, Metadata: fid(4)},
		{Name: "e", Type: arrow.BinaryTypes.Binary, Nullable: true, Metadata: fid(5)},
		{Name: "u", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}, Nullable: true, Metadata: fid(6)},
	}, nil)
	return writeParquet(t, sc, `[
		{"a": 1, "b": "x", "c": 1.5, "d": "1.25", "e": "aGk=", "u": "AAECAwQFBgcICQoLDA0ODw=="},
		{"a": 2, "b": null, "c": null, "d": null, "e": null, "u": null},
		{"a": 3, "b": "z", "c": -2.5, "d": "-3.10", "e": "", "u": "AAECAwQFBgcICQoLDA0ODw=="}
	]`, 1000)
}

func encode(t *testing.T, typ iceberg.Type, v any) []byte {
	t.Helper()
	b, err := iceberg.EncodeValue(typ, v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

func TestReadProjection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		schema    string
		constants func(t *testing.T) []*scantask.PartitionConstant
		want      string
		wantErr   error
		errHas    string
	}{
		{
			name:   "columns are chosen by id, in schema order, under their new names",
			schema: `[{"id":3,"name":"c_renamed","required":false,"type":"float"},{"id":1,"name":"a","required":true,"type":"int"}]`,
			want:   `[{"c_renamed":1.5,"a":1},{"c_renamed":null,"a":2},{"c_renamed":-2.5,"a":3}]`,
		},
		{
			name:   "int promotes to long, float to double, decimal widens",
			schema: `[{"id":1,"name":"a","required":true,"type":"long"},{"id":3,"name":"c","required":false,"type":"double"},{"id":4,"name":"d","required":false,"type":"decimal(12, 2)"}]`,
			want:   `[{"a":1,"c":1.5,"d":"1.25"},{"a":2,"c":null,"d":null},{"a":3,"c":-2.5,"d":"-3.1"}]`,
		},
		{
			name:   "string and binary read as each other; fixed[16] reads as uuid",
			schema: `[{"id":2,"name":"b","required":false,"type":"binary"},{"id":5,"name":"e","required":false,"type":"string"},{"id":6,"name":"u","required":false,"type":"uuid"}]`,
			want:   `[{"b":"eA==","e":"hi","u":"AAECAwQFBgcICQoLDA0ODw=="},{"b":null,"e":null,"u":null},{"b":"eg==","e":"","u":"AAECAwQFBgcICQoLDA0ODw=="}]`,
		},
		{
			name:   "a column missing from the file reads as null",
			schema: `[{"id":1,"name":"a","required":true,"type":"int"},{"id":9,"name":"new","required":false,"type":"string"}]`,
			want:   `[{"a":1,"new":null},{"a":2,"new":null},{"a":3,"new":null}]`,
		},
		{
			name: "a column missing from the file reads as its initial-default",
			schema: `[{"id":1,"name":"a","required":true,"type":"int"},
				{"id":9,"name":"n","required":true,"type":"long","initial-default":42},
				{"id":10,"name":"s","required":false,"type":"string","initial-default":"dflt"},
				{"id":11,"name":"st","required":false,"type":{"type":"struct","fields":[
					{"id":12,"name":"x","required":false,"type":"int","initial-default":-1},
					{"id":13,"name":"y","required":false,"type":"string"}]},"initial-default":{}}]`,
			want: `[{"a":1,"n":42,"s":"dflt","st":{"x":-1,"y":null}},{"a":2,"n":42,"s":"dflt","st":{"x":-1,"y":null}},{"a":3,"n":42,"s":"dflt","st":{"x":-1,"y":null}}]`,
		},
		{
			name:   "a missing struct without initial-default is null",
			schema: `[{"id":11,"name":"st","required":false,"type":{"type":"struct","fields":[{"id":12,"name":"x","required":true,"type":"int"}]}}]`,
			want:   `[{"st":null},{"st":null},{"st":null}]`,
		},
		{
			name:    "a required column missing without initial-default is an error",
			schema:  `[{"id":9,"name":"must","required":true,"type":"int"}]`,
			wantErr: ErrSchemaMismatch,
			errHas:  `"must" (id 9) is missing from data file flat.parquet`,
		},
		{
			name:    "a column whose type does not promote is an error",
			schema:  `[{"id":2,"name":"b","required":false,"type":"int"}]`,
			wantErr: ErrSchemaMismatch,
			errHas:  "flat.parquet",
		},
		{
			name:    "decimal scale change is an error",
			schema:  `[{"id":4,"name":"d","required":false,"type":"decimal(12, 3)"}]`,
			wantErr: ErrSchemaMismatch,
		},
		{
			name:   "identity-partition constants fill their column, even where the file has it",
			schema: `[{"id":1,"name":"a","required":true,"type":"int"},{"id":2,"name":"b","required":false,"type":"string"},{"id":20,"name":"p","required":false,"type":"decimal(9, 3)"},{"id":21,"name":"q","required":false,"type":"date"}]`,
			constants: func(t *testing.T) []*scantask.PartitionConstant {
				return []*scantask.PartitionConstant{
					{FieldID: 2, Value: encode(t, iceberg.StringType{}, "part")},
					{FieldID: 20, Value: encode(t, iceberg.DecimalType{Precision: 9, Scale: 3}, decimal128.FromI64(123321))},
					{FieldID: 21}, // null partition value
				}
			},
			want: `[{"a":1,"b":"part","p":"123.321","q":null},{"a":2,"b":"part","p":"123.321","q":null},{"a":3,"b":"part","p":"123.321","q":null}]`,
		},
		{
			name:   "an empty projection still counts rows",
			schema: `[]`,
			want:   `[{},{},{}]`,
		},
	}
	data := flatFile(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(memIO{"flat.parquet": data}, WithAllocator(mem))
			task := parquetTask("flat.parquet")
			if tc.constants != nil {
				task.Constants = tc.constants(t)
			}
			res := readAll(t, r, Scan{Schema: schemaOf(t, tc.schema)}, task)
			if tc.wantErr != nil || tc.errHas != "" {
				if res.err == nil || (tc.wantErr != nil && !errors.Is(res.err, tc.wantErr)) || !strings.Contains(res.err.Error(), tc.errHas) {
					t.Fatalf("err = %v, want %v containing %q", res.err, tc.wantErr, tc.errHas)
				}
				return
			}
			if res.err != nil {
				t.Fatal(res.err)
			}
			if want := jsonRows(t, tc.want); !reflect.DeepEqual(res.rows, want) {
				t.Errorf("rows\n%v\nwant\n%v", res.rows, want)
			}
		})
	}
}

// seqFile has one column "i" (id 1) of n rows 0..n-1 in row groups of rg.
func seqFile(t *testing.T, n, rg int) []byte {
	sc := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(1)}}, nil)
	var sb strings.Builder
	sb.WriteString("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"i":` + strconv.Itoa(i) + `}`)
	}
	sb.WriteString("]")
	return writeParquet(t, sc, sb.String(), int64(rg))
}

func TestReadRowGroupsAndBatches(t *testing.T) {
	t.Parallel()
	data := seqFile(t, 1000, 100) // row groups of 100 rows: 0..9
	tests := []struct {
		name      string
		rowGroups []int32
		batchSize int
		schema    string
		wantRows  int
		wantFirst float64
		wantLast  float64
	}{
		{name: "all row groups when the task names none", batchSize: 128, wantRows: 1000, wantFirst: 0, wantLast: 999},
		{name: "only the task's row groups", rowGroups: []int32{2, 7}, batchSize: 64, wantRows: 200, wantFirst: 200, wantLast: 799},
		{name: "batches never exceed the batch size", batchSize: 7, wantRows: 1000, wantFirst: 0, wantLast: 999},
		{name: "rows are counted when no column is read from the file", rowGroups: []int32{3}, batchSize: 30,
			schema: `[{"id":5,"name":"gone","required":false,"type":"int"}]`, wantRows: 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(memIO{"seq.parquet": data}, WithAllocator(mem), WithBatchSize(tc.batchSize))
			task := parquetTask("seq.parquet")
			task.RowGroups = tc.rowGroups
			schema := tc.schema
			if schema == "" {
				schema = `[{"id":1,"name":"i","required":true,"type":"long"}]`
			}
			res := readAll(t, r, Scan{Schema: schemaOf(t, schema)}, task)
			if res.err != nil {
				t.Fatal(res.err)
			}
			if len(res.rows) != tc.wantRows {
				t.Fatalf("rows = %d, want %d", len(res.rows), tc.wantRows)
			}
			for _, b := range res.batches {
				if b > tc.batchSize || b == 0 {
					t.Fatalf("batch of %d rows, batch size %d", b, tc.batchSize)
				}
			}
			if tc.schema == "" {
				if got := res.rows[0]["i"]; got != tc.wantFirst {
					t.Errorf("first = %v, want %v", got, tc.wantFirst)
				}
				if got := res.rows[len(res.rows)-1]["i"]; got != tc.wantLast {
					t.Errorf("last = %v, want %v", got, tc.wantLast)
				}
			}
		})
	}
}

func TestReadByteRangeSplits(t *testing.T) {
	t.Parallel()
	data := seqFile(t, 1000, 100)
	schema := schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)
	size := int64(len(data))
	for _, cut := range []int64{4, size / 3, size / 2, size - 100} {
		mem := checkedAlloc(t)
		r := New(memIO{"seq.parquet": data}, WithAllocator(mem))
		seen := make(map[float64]int)
		for _, split := range [][2]int64{{0, cut}, {cut, size - cut}} {
			task := parquetTask("seq.parquet")
			task.Start, task.Length = split[0], split[1]
			res := readAll(t, r, Scan{Schema: schema}, task)
			if res.err != nil {
				t.Fatal(res.err)
			}
			for _, row := range res.rows {
				seen[row["i"].(float64)]++
			}
		}
		if len(seen) != 1000 {
			t.Errorf("split at %d: %d distinct rows, want 1000", cut, len(seen))
		}
		for v, n := range seen {
			if n != 1 {
				t.Errorf("split at %d: row %v read %d times", cut, v, n)
			}
		}
	}
}

func TestReadInvalidRowGroup(t *testing.T) {
	t.Parallel()
	mem := checkedAlloc(t)
	r := New(memIO{"seq.parquet": seqFile(t, 10, 5)}, WithAllocator(mem))
	task := parquetTask("seq.parquet")
	task.RowGroups = []int32{0, 2}
	err := r.Read(context.Background(), Scan{Schema: schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)}, task,
		func(arrow.RecordBatch) error { return nil })
	if !errors.Is(err, ErrInvalidTask) || !strings.Contains(err.Error(), "seq.parquet") {
		t.Fatalf("err = %v, want ErrInvalidTask naming the file", err)
	}
}

func TestReadStops(t *testing.T) {
	t.Parallel()
	data := seqFile(t, 1000, 1000)
	schema := schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)
	errStop := errors.New("client went away")
	tests := []struct {
		name    string
		cancel  bool // cancel the context in the first emit
		emitErr error
		wantErr error
	}{
		{name: "a cancelled context stops the read after the current batch", cancel: true, wantErr: context.Canceled},
		{name: "an emit error stops the read and is returned", emitErr: errStop, wantErr: errStop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(memIO{"seq.parquet": data}, WithAllocator(mem), WithBatchSize(10))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			err := r.Read(ctx, Scan{Schema: schema}, parquetTask("seq.parquet"), func(arrow.RecordBatch) error {
				calls++
				if tc.cancel {
					cancel()
				}
				return tc.emitErr
			})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if calls != 1 {
				t.Errorf("emit called %d times, want 1", calls)
			}
		})
	}
}

func TestReadCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	mem := checkedAlloc(t)
	r := New(memIO{"seq.parquet": seqFile(t, 10, 10)}, WithAllocator(mem))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := r.Read(ctx, Scan{Schema: schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)}, parquetTask("seq.parquet"),
		func(arrow.RecordBatch) error { t.Error("emit called"); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestReadInvalidFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		task    *scantask.Task
		wantErr error
		errHas  []string
	}{
		{"a file that is not ORC", &scantask.Task{Path: "junk", Format: scantask.ORC}, ErrInvalidTask, []string{"junk", "ORC"}},
		{"a file that is not Avro", &scantask.Task{Path: "junk", Format: scantask.Avro}, ErrInvalidTask, []string{"junk", "avro"}},
		{"an unspecified format", &scantask.Task{Path: "d"}, ErrInvalidTask, []string{"d"}},
		{"a file that is not parquet", parquetTask("junk"), ErrInvalidTask, []string{"junk", "not a parquet file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(memIO{"junk": []byte("this is not a parquet file at all")}, WithAllocator(mem))
			err := r.Read(context.Background(), Scan{Schema: schemaOf(t, `[]`)}, tc.task, func(arrow.RecordBatch) error { return nil })
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			for _, s := range tc.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err %q does not name %q", err, s)
				}
			}
		})
	}
}

func TestReadTrustsFileSizeNotTask(t *testing.T) {
	t.Parallel()
	mem := checkedAlloc(t)
	r := New(memIO{"seq.parquet": seqFile(t, 10, 10)}, WithAllocator(mem))
	task := parquetTask("seq.parquet")
	task.FileSize = 3 // wrong, as in some corpus metadata
	res := readAll(t, r, Scan{Schema: schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)}, task)
	if res.err != nil || len(res.rows) != 10 {
		t.Fatalf("rows %d, err %v", len(res.rows), res.err)
	}
}
