package flight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// trip is what the filtered reads below check of one row of samples.trips.
type trip struct {
	fare       float64
	note       string
	vendor     string
	hasNote    bool
	fareIsNull bool
}

// tripsByID plans and reads a command through the service and returns its
// rows by id, with the columns the command projects (others stay zero).
func tripsByID(ctx context.Context, t *testing.T, h *harness, cmd string) map[int64]trip {
	t.Helper()
	info, err := h.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(cmd)})
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	rows := map[int64]trip{}
	h.each(ctx, t, info, func(rec arrow.RecordBatch) {
		col := func(name string) arrow.Array {
			if idx := rec.Schema().FieldIndices(name); len(idx) == 1 {
				return rec.Column(idx[0])
			}
			return nil
		}
		ids := col("id").(*array.Int64)
		for i := range int(rec.NumRows()) {
			var r trip
			if c, ok := col("note").(*array.String); ok && c.IsValid(i) {
				r.note, r.hasNote = c.Value(i), true
			}
			if c, ok := col("vendor").(*array.String); ok && c.IsValid(i) {
				r.vendor = c.Value(i)
			}
			if c, ok := col("fare").(*array.Float64); ok {
				r.fare, r.fareIsNull = c.Value(i), c.IsNull(i)
			}
			if _, dup := rows[ids.Value(i)]; dup {
				t.Fatalf("%s: id %d read twice", cmd, ids.Value(i))
			}
			rows[ids.Value(i)] = r
		}
	})
	return rows
}

// The two reads of issue 15, item 1: a residual filter drops rows while
// string columns are projected. They killed flightd in arrow-go's Take,
// which wrote past buffers from the reader's pool; through the service (its
// reader on the pool, validating every batch) each must return exactly the
// rows the filter keeps, their strings whole, at the default batch size and
// at small batches.
func TestFilteredStringReadsOfTheIssue(t *testing.T) {
	for _, batchRows := range []int{0, 1000} {
		t.Run(fmt.Sprintf("batches of %d rows", batchRows), func(t *testing.T) {
			h := serve(t, batchRows)
			ctx := context.Background()
			all := tripsByID(ctx, t, h, `{"table": "samples.trips", "columns": ["id", "fare", "note", "vendor"]}`)
			if len(all) == 0 {
				t.Fatal("samples.trips read no rows")
			}
			cases := []struct {
				name, cmd string
				keep      func(id int64, r trip) bool
				strip     func(r trip) trip // the columns the command does not project
			}{
				{"DoGet of id and note with id > 100", `{"table": "samples.trips", "columns": ["id", "note"], "filter": "id > 100"}`,
					func(id int64, _ trip) bool { return id > 100 },
					func(r trip) trip { return trip{note: r.note, hasNote: r.hasNote} }},
				{"read of every column with fare > 10", `{"table": "samples.trips", "filter": "fare > 10"}`,
					func(_ int64, r trip) bool { return !r.fareIsNull && r.fare > 10 },
					func(r trip) trip { return r }},
			}
			for _, tc := range cases {
				got := tripsByID(ctx, t, h, tc.cmd)
				want := 0
				for id, r := range all {
					if !tc.keep(id, r) {
						if _, ok := got[id]; ok {
							t.Errorf("%s: id %d read, the filter drops it", tc.name, id)
						}
						continue
					}
					want++
					if g, ok := got[id]; !ok {
						t.Errorf("%s: id %d missing", tc.name, id)
					} else if g != tc.strip(r) {
						t.Errorf("%s: id %d read as %+v, want %+v", tc.name, id, g, tc.strip(r))
					}
				}
				if want == 0 || want == len(all) || len(got) != want {
					t.Errorf("%s: %d rows of %d, want %d (the filter must drop some and keep some)", tc.name, len(got), len(all), want)
				}
			}
		})
	}
}

// renderedRead is a read's rows, each value rendered by Arrow's ValueStr,
// by column name.
type renderedRead struct {
	names []string
	cols  map[string][]string
	ints  map[string][]*int64 // integer columns' values, nil for null
}

func readRendered(ctx context.Context, t *testing.T, h *harness, cmd map[string]any) renderedRead {
	t.Helper()
	info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, cmd))
	if err != nil {
		t.Fatalf("%v: %v", cmd, err)
	}
	r := renderedRead{cols: map[string][]string{}, ints: map[string][]*int64{}}
	h.each(ctx, t, info, func(rec arrow.RecordBatch) {
		if r.names == nil {
			for _, f := range rec.Schema().Fields() {
				r.names = append(r.names, f.Name)
			}
		}
		for i, col := range rec.Columns() {
			name := rec.ColumnName(i)
			for row := range col.Len() {
				r.cols[name] = append(r.cols[name], col.ValueStr(row))
				var v *int64
				switch c := col.(type) {
				case *array.Int64:
					if c.IsValid(row) {
						v = new(c.Value(row))
					}
				case *array.Int32:
					if c.IsValid(row) {
						v = new(int64(c.Value(row)))
					}
				default:
					continue
				}
				r.ints[name] = append(r.ints[name], v)
			}
		}
	})
	return r
}

// rows renders rows (all when keep is nil) of the named columns as sorted
// tuples.
func (r renderedRead) rows(names []string, keep []int) []string {
	if keep == nil {
		for i := range len(r.cols[names[0]]) {
			keep = append(keep, i)
		}
	}
	out := make([]string, 0, len(keep))
	for _, i := range keep {
		var b strings.Builder
		for _, n := range names {
			b.WriteString(r.cols[n][i])
			b.WriteByte('|')
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// Every sample table, filtered on its first integer column at its median so
// that the residual drops rows, with all columns and with each other column
// (strings, binaries, nested, dictionary-encoded ones) projected beside the
// filter column, returns exactly the rows of its unfiltered read that pass,
// with the same values; the harness's reader validates every batch on the
// way.
func TestFilteredProjectionsOfEverySampleTable(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	var tables []string
	for _, info := range h.listFlights(ctx, t) {
		tables = append(tables, strings.Join(info.FlightDescriptor.Path, "."))
	}
	filtered, withFilter := 0, 0
	for _, table := range tables {
		full := readRendered(ctx, t, h, map[string]any{"table": table})
		col, median, ok := medianColumn(full)
		if !ok {
			continue
		}
		var keep []int
		for i, v := range full.ints[col] {
			if v != nil && *v > median {
				keep = append(keep, i)
			}
		}
		withFilter++
		filter := fmt.Sprintf("%s > %d", col, median)
		projections := [][]string{full.names}
		for _, n := range full.names {
			if n != col {
				projections = append(projections, []string{col, n})
			}
		}
		for _, proj := range projections {
			got := readRendered(ctx, t, h, map[string]any{"table": table, "columns": proj, "filter": filter})
			if want, have := full.rows(proj, keep), got.rows(proj, nil); !slices.Equal(want, have) {
				t.Errorf("%s %v where %s: %d rows differ from the %d of the unfiltered read that pass", table, proj, filter, len(have), len(want))
			}
			filtered++
		}
	}
	t.Logf("%d filtered reads of %d of the %d tables", filtered, withFilter, len(tables))
	if withFilter < len(tables)/2 {
		t.Fatalf("only %d of %d tables have an integer column to filter on", withFilter, len(tables))
	}
}

// medianColumn picks a read's first integer column whose median lies below
// its largest value, so that "col > median" keeps some rows and drops
// others.
func medianColumn(r renderedRead) (string, int64, bool) {
	for _, n := range r.names {
		vals, ok := r.ints[n]
		if !ok || strings.HasPrefix(n, "_") {
			continue
		}
		var vs []int64
		for _, v := range vals {
			if v != nil {
				vs = append(vs, *v)
			}
		}
		slices.Sort(vs)
		if len(vs) >= 2 && vs[len(vs)/2] < vs[len(vs)-1] {
			return n, vs[len(vs)/2], true
		}
	}
	return "", 0, false
}

// listFlights returns every FlightInfo ListFlights sends.
func (h *harness) listFlights(ctx context.Context, t *testing.T) []*flight.FlightInfo {
	t.Helper()
	stream, err := h.client.ListFlights(ctx, &flight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*flight.FlightInfo
	for {
		info, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, info)
	}
}
