package reader

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// ReadDeleted keeps the rows the task's delete files remove and the
// earlier ones do not, for a change stream's deleted rows.
func TestReadDeletedKeepsRowsDeletedNowNotBefore(t *testing.T) {
	t.Parallel()
	files := memIO{
		"data.parquet": eqFile(t, []eqRow{
			{1, str("a"), flt(1)}, {2, nil, flt(2)}, {3, nil, nil}, {4, str("b"), flt(math.NaN())},
			{5, str("c"), flt(math.Copysign(0, -1))}, {6, str("c"), flt(0)}, {7, str("a"), flt(2)}, {8, str("b"), nil},
		}, 1, 2, 3),
		// Deletes ids 1, 2, 3, 4 and 6 (see TestEqualityDeletes).
		"name_score.parquet": eqFile(t, []eqRow{
			{0, str("a"), flt(1)}, {0, nil, flt(2)}, {0, nil, nil}, {0, str("b"), flt(math.NaN())}, {0, str("c"), flt(0)},
		}, 2, 3),
		"id.parquet":  eqFile(t, []eqRow{{id: 7}, {id: 2}}, 1),
		"pos.parquet": posDeleteFile(t, []posEntry{{"data.parquet", 0}, {"data.parquet", 4}}, 10),
	}
	table := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.IntType{}},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 3, Name: "score", Type: iceberg.DoubleType{}},
	)
	onlyID := iceberg.NewSchema(0, table.Fields[0])
	nameScore, byID, pos := eqDelete("name_score.parquet", 2, 3), eqDelete("id.parquet", 1), posDelete("pos.parquet")
	tests := []struct {
		name         string
		now, earlier []*scantask.DeleteFile
		want         []int64
	}{
		{"no earlier deletes: every row the new ones delete", []*scantask.DeleteFile{nameScore}, nil, []int64{1, 2, 3, 4, 6}},
		{"rows deleted before are left out", []*scantask.DeleteFile{byID}, []*scantask.DeleteFile{nameScore}, []int64{7}},
		{"earlier keys are read though not projected", []*scantask.DeleteFile{nameScore}, []*scantask.DeleteFile{byID}, []int64{1, 3, 4, 6}},
		{"the same deletes again delete nothing new", []*scantask.DeleteFile{nameScore}, []*scantask.DeleteFile{nameScore}, nil},
		{"position deletes against equality deletes", []*scantask.DeleteFile{pos}, []*scantask.DeleteFile{byID}, []int64{1, 5}},
		{"no new deletes, no rows", nil, []*scantask.DeleteFile{byID}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			r := New(files, WithAllocator(mem), WithBatchSize(3))
			task := parquetTask("data.parquet")
			task.Deletes = tc.now
			var rows []map[string]any
			err := r.ReadDeleted(context.Background(), Scan{Schema: onlyID, EqualitySchema: table}, task, tc.earlier, func(rec arrow.RecordBatch) error {
				sa := array.RecordToStructArray(rec)
				defer sa.Release()
				b, err := json.Marshal(sa)
				if err != nil {
					return err
				}
				var batch []map[string]any
				if err := json.Unmarshal(b, &batch); err != nil {
					return err
				}
				rows = append(rows, batch...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(rows); !equalInts(got, tc.want) {
				t.Errorf("ids %v, want %v", got, tc.want)
			}
		})
	}
}
