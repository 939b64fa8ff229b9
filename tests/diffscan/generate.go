package diffscan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/iceflight/iceflight/iceberg/expr"
)

// BatchSizes are the flightd --batch-rows a scan may be served with (0 is
// the default); a test runs one flightd per size.
var BatchSizes = []int{0, 7, 256}

// splitSizes are the target_split_bytes a scan may ask for: from one byte
// (a task per row group) up to the planner's default range.
var splitSizes = []int64{1, 512, 4096, 65536, 1 << 20}

// bigTable is the row count above which a table is drawn less often, so
// that the seed set stays small and quick.
const bigTable = 5000

// Generate returns n scans of tables drawn from seed. Scan i depends only
// on (seed, i) and the tables, so the same inputs give the same scans.
func Generate(tables []*Table, seed uint64, n int) []Scan {
	scans := make([]Scan, 0, n)
	for i := range n {
		g := &gen{r: rand.New(rand.NewPCG(seed, uint64(i)))}
		scans = append(scans, g.scan(tables, fmt.Sprintf("s%d-%05d", seed, i)))
	}
	return scans
}

// gen draws one scan.
type gen struct {
	r *rand.Rand
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

func (g *gen) scan(tables []*Table, name string) Scan {
	t := pick(g, tables)
	for t.Current.Rows > bigTable && !g.chance(0.25) {
		t = pick(g, tables)
	}
	s := Scan{Name: name, Table: t.Name}
	v := g.snapshot(t, &s)
	s.Columns = g.columns(t, v)
	if !g.chance(0.15) {
		if f := g.expr(v, 0); f != nil {
			s.Filter, _ = json.Marshal(f)
			if g.chance(0.3) {
				s.FilterText = filterText(s.Filter, v)
			}
		}
	}
	if g.chance(0.15) {
		limit := int64(1 + g.r.IntN(v.Rows+3))
		s.Limit = &limit
	}
	if g.chance(0.3) {
		s.MaxEndpoints = int32(1 + g.r.IntN(8))
	}
	if g.chance(0.3) {
		s.TargetSplitBytes = pick(g, splitSizes)
	}
	if g.chance(0.4) {
		s.BatchRows = pick(g, BatchSizes[1:])
	}
	return s
}

// snapshot chooses the current snapshot, one by id, a ref or a point in
// time, and returns the view whose schema and values the rest draws from.
func (g *gen) snapshot(t *Table, s *Scan) *View {
	switch p := g.r.Float64(); {
	case p < 0.5 || len(t.Snapshots) == 0:
		return t.Current
	case p < 0.7:
		id := pick(g, t.Snapshots)
		s.SnapshotID = &id
		return t.view(id)
	case p < 0.85:
		if len(t.Refs) == 0 || g.chance(0.05) {
			s.Ref = "no-such-ref"
			return t.Current
		}
		ref := pick(g, t.Refs)
		s.Ref = ref.Name
		if ref.Branch {
			// A branch reads with the table's schema, a tag with its snapshot's.
			return t.Current
		}
		return t.view(ref.SnapshotID)
	default:
		if len(t.Log) == 0 {
			return t.Current
		}
		e := pick(g, t.Log)
		ts := e.TimestampMs + pick(g, []int64{0, 0, 1, -1, 1000})
		s.AsOfTimestampMs = &ts
		return t.view(t.asOf(ts))
	}
}

// view is the view of a snapshot, the current one where the oracle did not
// read it.
func (t *Table) view(id int64) *View {
	if v, ok := t.Views[id]; ok {
		return v
	}
	return t.Current
}

// asOf is the snapshot current at ts by the snapshot log, -1 before it.
func (t *Table) asOf(ts int64) int64 {
	id := int64(-1)
	for _, e := range t.Log {
		if e.TimestampMs <= ts {
			id = e.SnapshotID
		}
	}
	return id
}

// columns draws a selection: every column, none, or a few of the top-level
// columns, struct fields by dotted path and metadata columns, in random
// order, at most one per top-level column.
func (g *gen) columns(t *Table, v *View) []string {
	switch p := g.r.Float64(); {
	case p < 0.2:
		return nil
	case p < 0.25:
		return []string{}
	}
	var candidates []string
	for _, f := range v.Schema.Fields {
		candidates = append(candidates, f.Name)
	}
	for _, l := range v.Leaves {
		if slices.Index(candidates, l.Path) < 0 {
			candidates = append(candidates, l.Path)
		}
	}
	meta := []string{"_pos", "_spec_id"}
	if t.FormatVersion >= 3 {
		meta = append(meta, "_row_id", "_last_updated_sequence_number")
	}
	for _, m := range meta {
		if _, clash := v.Schema.FindColumn(m, true); !clash {
			candidates = append(candidates, m)
		}
	}
	if len(candidates) == 0 {
		return []string{}
	}
	want := 1 + g.r.IntN(min(4, len(candidates)))
	var cols []string
	used := map[string]bool{}
	for _, i := range g.r.Perm(len(candidates)) {
		c := candidates[i]
		top := topLevel(c)
		if used[top] {
			continue
		}
		used[top] = true
		cols = append(cols, c)
		if len(cols) == want {
			break
		}
	}
	return cols
}

func topLevel(path string) string {
	for i := range len(path) {
		if path[i] == '.' {
			return path[:i]
		}
	}
	return path
}

// filterText writes a JSON filter in the string syntax (iceberg/expr's
// printer, which writes what its parser reads back, literals typed by the
// bound column); "" when it does not bind, so that the JSON is sent and the
// refusal compared.
func filterText(filter json.RawMessage, v *View) string {
	e, err := expr.ParseJSON(filter)
	if err != nil {
		return ""
	}
	b, err := expr.Bind(e, v.Schema, true)
	if err != nil {
		return ""
	}
	return b.String()
}
