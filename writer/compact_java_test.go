package writer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// After every maintenance action (alter, compaction with deletes applied,
// manifest rewrite, snapshot expiry), Iceberg Java parses every metadata
// file and manifest entry the table reaches, recomputes the snapshot
// summaries (the replace snapshots' totals included) and reads the same
// rows we read.
func TestIcebergJavaReadsMaintainedTables(t *testing.T) {
	t.Parallel()
	for _, v := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			clock := newTestClock()
			f, _ := newCatalogFixture(t, newMemCatalog(osIO{}, root), v, true, nil, WithClock(clock.now))
			dir := filepath.Join(root, f.id.String())
			for i := int64(0); i < 6; i++ {
				f.write(Append, "", span(i*10, i*10+6)...)
				clock.advance(24 * time.Hour)
			}
			cow := v == 1
			f.delete(DeleteRequest{Filter: "id = 4 or id = 23", CopyOnWrite: cow})
			clock.advance(24 * time.Hour)
			ctx := context.Background()
			if _, err := f.w.Alter(ctx, f.id, AlterRequest{
				Schema:        []SchemaChange{{Op: "add_column", Path: "note", Type: json.RawMessage(`"string"`)}},
				SetProperties: map[string]string{"owner": "maint"},
				Refs:          []RefChange{{Op: "create_tag", Name: "before-compaction"}},
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := f.w.RewriteDataFiles(ctx, f.id, CompactRequest{MinInputFiles: 2}); err != nil {
				t.Fatal(err)
			}
			f.write(Append, "", 70, 71)
			f.write(Append, "", 72)
			if _, err := f.w.RewriteManifests(ctx, f.id, RewriteManifestsRequest{}); err != nil {
				t.Fatal(err)
			}
			clock.advance(10 * 24 * time.Hour)
			if _, err := f.w.ExpireSnapshots(ctx, f.id, ExpireRequest{RetainLast: 2}); err != nil {
				t.Fatal(err)
			}
			want := f.ids()
			if len(want) != 36-2+3 {
				t.Fatalf("we read %d rows, want 37", len(want))
			}
			f.wantNoOrphans()
			rows := javaCheck(t, f, dir)
			var got []int64
			for _, r := range rows {
				var row struct {
					ID   int64  `json:"id"`
					Name string `json:"name"`
				}
				if err := json.Unmarshal([]byte(r), &row); err != nil {
					t.Fatalf("Java row %s: %v", r, err)
				}
				if row.Name != fmt.Sprintf("name-%d", row.ID) {
					t.Fatalf("Java reads row %s", r)
				}
				got = append(got, row.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("Iceberg Java reads ids %v, we read %v", got, want)
			}
		})
	}
}
