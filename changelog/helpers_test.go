package changelog

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// multiset counts rows by their canonical text.
type multiset map[string]int

// rowText spells row r of the first n columns of b.
func rowText(b arrow.RecordBatch, n, r int) string {
	parts := make([]string, n)
	for c := range n {
		col := b.Column(c)
		if col.IsNull(r) {
			parts[c] = "null"
		} else {
			parts[c] = col.ValueStr(r)
		}
	}
	return strings.Join(parts, "|")
}

// snapshotRows reads the rows of t at snapshot id through the planner and
// the reader.
func snapshotRows(t *testing.T, tb Table, id int64, mem memory.Allocator) multiset {
	t.Helper()
	ctx := context.Background()
	p, err := planner.New().Plan(ctx, tb, planner.Request{Selection: planner.Selection{SnapshotID: &id}})
	if err != nil {
		t.Fatalf("plan snapshot %d: %v", id, err)
	}
	rd := reader.New(tb.IO, reader.WithAllocator(mem))
	scan := reader.Scan{Schema: p.Schema, EqualitySchema: p.EqualitySchema, FilterSchema: p.FilterSchema}
	rows := multiset{}
	for _, e := range p.Endpoints {
		for _, task := range e.Tasks {
			err := rd.Read(ctx, scan, task, func(b arrow.RecordBatch) error {
				for r := range int(b.NumRows()) {
					rows[rowText(b, int(b.NumCols()), r)]++
				}
				return nil
			})
			if err != nil {
				t.Fatalf("read snapshot %d: %v", id, err)
			}
		}
	}
	return rows
}

// change is one row of a change stream.
type change struct {
	row      string
	kind     string
	ordinal  int32
	snapshot int64
}

func (c change) String() string {
	return fmt.Sprintf("%s %s #%d @%d", c.kind, c.row, c.ordinal, c.snapshot)
}

// readChanges plans and reads a change stream, checking the allocator is
// left empty.
func readChanges(t *testing.T, tb Table, r Request, opts ...Option) ([]change, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	scan, err := Plan(ctx, tb, r, opts...)
	if err != nil {
		return nil, err
	}
	var out []change
	for _, u := range scan.Units {
		err := Read(ctx, tb, viaJSON(t, u), func(b arrow.RecordBatch) error {
			defer b.Release()
			n := int(b.NumCols()) - 3
			for i := range int(b.NumRows()) {
				out = append(out, change{
					row:      rowText(b, n, i),
					kind:     b.Column(n).ValueStr(i),
					ordinal:  b.Column(n + 1).(interface{ Value(int) int32 }).Value(i),
					snapshot: b.Column(n + 2).(interface{ Value(int) int64 }).Value(i),
				})
			}
			return nil
		}, append(opts, WithAllocator(mem))...)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// viaJSON returns u after a trip through JSON, as a ticket carries it.
func viaJSON(t *testing.T, u Unit) Unit {
	t.Helper()
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatalf("marshal unit: %v", err)
	}
	var back Unit
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("unmarshal unit: %v", err)
	}
	return back
}

// apply applies changes to rows: deletes and update_befores remove one
// row each, inserts and update_afters add one. It reports a delete of a
// row that is not there.
func apply(rows multiset, changes []change) (multiset, error) {
	out := multiset{}
	for k, v := range rows {
		out[k] = v
	}
	for _, c := range changes {
		switch c.kind {
		case Delete, UpdateBefore:
			if out[c.row] == 0 {
				return nil, fmt.Errorf("%v deletes a row that is not there", c)
			}
			out[c.row]--
			if out[c.row] == 0 {
				delete(out, c.row)
			}
		default:
			out[c.row]++
		}
	}
	return out, nil
}

// diffSets describes how two multisets differ, a few rows at most.
func diffSets(got, want multiset) string {
	var lines []string
	for k, v := range want {
		if got[k] != v {
			lines = append(lines, fmt.Sprintf("%s: got %d want %d", k, got[k], v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			lines = append(lines, fmt.Sprintf("%s: got %d want 0", k, v))
		}
	}
	sort.Strings(lines)
	if len(lines) > 8 {
		lines = append(lines[:8], fmt.Sprintf("... %d more", len(lines)-8))
	}
	return strings.Join(lines, "\n")
}
