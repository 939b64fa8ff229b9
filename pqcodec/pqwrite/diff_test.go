package pqwrite

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// writeOurs writes c with this package's FileWriter, cutting row groups at
// c.groupAt rows as the data file writer does.
func writeOurs(t testing.TB, mem memory.Allocator, c *diffCase) []byte {
	t.Helper()
	var buf bytes.Buffer
	props := c.props(mem)
	sc, err := pqarrow.ToParquet(c.schema, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	types := make([]arrow.DataType, len(c.schema.Fields()))
	for i, f := range c.schema.Fields() {
		types[i] = f.Type
	}
	fw, err := NewFileWriter(&buf, sc, props, metadata.KeyValueMetadata{}, types)
	if err != nil {
		t.Fatal(err)
	}
	var g *RowGroupWriter
	var rows int64
	for _, rec := range c.batches {
		if g == nil {
			// The first batch opens a group even when empty, as pqarrow's
			// WriteBuffered does.
			if g, err = fw.AppendRowGroup(); err != nil {
				t.Fatal(err)
			}
		}
		for off := int64(0); off < rec.NumRows(); {
			if rows >= c.groupAt {
				if g, err = fw.AppendRowGroup(); err != nil {
					t.Fatal(err)
				}
				rows = 0
			}
			n := min(rec.NumRows()-off, c.groupAt-rows)
			part := rec.NewSlice(off, off+n)
			for i := range part.NumCols() {
				if err := g.Column(int(i)).Write(part.Column(int(i))); err != nil {
					t.Fatal(err)
				}
			}
			part.Release()
			rows += n
			off += n
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeArrowGo writes c with pqarrow, the reference for the statistics.
func writeArrowGo(t testing.TB, mem memory.Allocator, c *diffCase) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(c.schema, &buf, c.props(mem), pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range c.batches {
		if err := fw.WriteBuffered(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDiffArrowGo writes random files here and with arrow-go, and wants
// pqarrow to read back the data written, and the footers to hold the same
// row groups and chunk statistics. With PYICEBERG_PYTHON set, pyarrow
// (Arrow C++'s reader) reads the same files back too.
func TestDiffArrowGo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := 150
	if testing.Short() {
		cases = 30
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var encs encodingTally
	for i := range cases {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		c := randomCase(rng, mem, i)
		ours := writeOurs(t, mem, c)
		ref := writeArrowGo(t, mem, c)
		readBack(t, mem, c, ours)
		sameStats(t, c, ours, ref)
		encs.add(t, ours)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.parquet", i)), ours, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.txt", i)), []byte(c.name), 0o644); err != nil {
			t.Fatal(err)
		}
		c.release()
		mem.AssertSize(t, 0)
		if t.Failed() {
			t.Fatalf("%s", c.name)
		}
	}
	t.Logf("%d files; column chunks: %d dictionary only, %d dictionary then PLAIN, %d PLAIN only", cases, encs.dict, encs.fallback, encs.plain)
	if encs.dict == 0 || encs.fallback == 0 || encs.plain == 0 {
		t.Errorf("the cases missed an encoding path: %+v", encs)
	}

	python := servers.Program(t, "PYICEBERG_PYTHON", "servers-sql")
	cmd := exec.Command(python, "testdata/parquet_to_ipc.py", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("parquet_to_ipc.py: %v\n%s", err, out)
	}
	rng = rand.New(rand.NewPCG(1, 2))
	for i := range cases {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		c := randomCase(rng, mem, i)
		got := testutil.ReadIPCFile(t, filepath.Join(dir, fmt.Sprintf("%03d.arrow", i)))
		compareColumns(t, mem, c, "pyarrow", func(j int) arrow.Array { return got.Column(j) })
		got.Release()
		c.release()
		mem.AssertSize(t, 0)
		if t.Failed() {
			t.Fatalf("%s", c.name)
		}
	}
	t.Logf("pyarrow read back %d files", cases)
}

// readBack reads b with pqarrow and compares it with c's batches.
func readBack(t *testing.T, mem memory.Allocator, c *diffCase, b []byte) {
	t.Helper()
	tbl := testutil.ReadParquet(t, mem, b)
	defer tbl.Release()
	compareColumns(t, mem, c, "pqarrow", func(j int) arrow.Array {
		got, err := array.Concatenate(tbl.Column(j).Data().Chunks(), mem)
		if err != nil {
			t.Fatal(err)
		}
		return got
	})
}

// compareColumns compares each column of c's batches, concatenated, with
// what reader read; column returns a column the caller releases if it was
// made for the call (Concatenate) or not (IPC).
func compareColumns(t *testing.T, mem memory.Allocator, c *diffCase, reader string, column func(int) arrow.Array) {
	t.Helper()
	for j, f := range c.schema.Fields() {
		var parts []arrow.Array
		for _, b := range c.batches {
			parts = append(parts, b.Column(j))
		}
		want, err := array.Concatenate(parts, mem)
		if err != nil {
			t.Fatal(err)
		}
		got := column(j)
		if reader == "pqarrow" {
			defer got.Release()
		}
		if diff := sameValues(want, got); diff != "" {
			t.Errorf("%s read column %s (%s) back differently: %s", reader, f.Name, f.Type, diff)
		}
		want.Release()
	}
}

// sameValues compares two arrays value by value, floats by their bits
// (NaN equals itself, -0 differs from 0); the types may differ where the
// readers' choices do (pyarrow reads a zoned timestamp's zone as "UTC"
// too, but may choose other Arrow types).
func sameValues(want, got arrow.Array) string {
	if want.Len() != got.Len() {
		return fmt.Sprintf("%d values, want %d", got.Len(), want.Len())
	}
	if !arrow.TypeEqual(want.DataType(), got.DataType()) {
		return fmt.Sprintf("type %s, want %s", got.DataType(), want.DataType())
	}
	for i := range want.Len() {
		if want.IsNull(i) != got.IsNull(i) {
			return fmt.Sprintf("value %d: null %v, want %v", i, got.IsNull(i), want.IsNull(i))
		}
		if want.IsNull(i) {
			continue
		}
		var eq bool
		switch w := want.(type) {
		case *array.Float32:
			eq = math.Float32bits(w.Value(i)) == math.Float32bits(got.(*array.Float32).Value(i))
		case *array.Float64:
			eq = math.Float64bits(w.Value(i)) == math.Float64bits(got.(*array.Float64).Value(i))
		default:
			eq = array.SliceEqual(want, int64(i), int64(i+1), got, int64(i), int64(i+1))
		}
		if !eq {
			return fmt.Sprintf("value %d: %s, want %s", i, got.ValueStr(i), want.ValueStr(i))
		}
	}
	return ""
}

// sameStats wants the footers of ours and ref to hold the same row groups,
// with the same rows, values and statistics in each column chunk.
func sameStats(t *testing.T, c *diffCase, ours, ref []byte) {
	t.Helper()
	a, err := file.NewParquetReader(bytes.NewReader(ours))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := file.NewParquetReader(bytes.NewReader(ref))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ma, mb := a.MetaData(), b.MetaData()
	if ma.NumRows != mb.NumRows || ma.NumRowGroups() != mb.NumRowGroups() {
		t.Fatalf("%d rows in %d groups, arrow-go %d in %d", ma.NumRows, ma.NumRowGroups(), mb.NumRows, mb.NumRowGroups())
	}
	for g := range ma.NumRowGroups() {
		ra, rb := ma.RowGroup(g), mb.RowGroup(g)
		if ra.NumRows() != rb.NumRows() {
			t.Errorf("group %d: %d rows, arrow-go %d", g, ra.NumRows(), rb.NumRows())
		}
		for col := range ra.NumColumns() {
			ca, _ := ra.ColumnChunk(col)
			cb, _ := rb.ColumnChunk(col)
			if da, db := describeStats(ca), describeStats(cb); da != db {
				t.Errorf("group %d column %s: statistics %s, arrow-go %s", g, ca.PathInSchema(), da, db)
			}
			// The thrift fields as stored: an empty bound must be set
			// (empty), not left out.
			if da, db := rawStats(ma, g, col), rawStats(mb, g, col); da != db {
				t.Errorf("group %d column %s: footer statistics %s, arrow-go %s", g, ca.PathInSchema(), da, db)
			}
			if ca.NumValues() != cb.NumValues() {
				t.Errorf("group %d column %s: %d values, arrow-go %d", g, ca.PathInSchema(), ca.NumValues(), cb.NumValues())
			}
		}
	}
}

// rawStats describes the Statistics struct of a column chunk's footer
// metadata field by field, telling an absent field from an empty one.
func rawStats(md *metadata.FileMetaData, g, col int) string {
	st := md.RowGroups[g].Columns[col].MetaData.Statistics
	if st == nil {
		return "none"
	}
	b := func(v []byte) string {
		if v == nil {
			return "unset"
		}
		return fmt.Sprintf("%x", v)
	}
	i := func(v *int64) string {
		if v == nil {
			return "unset"
		}
		return fmt.Sprint(*v)
	}
	return fmt.Sprintf("min %s max %s min_value %s max_value %s nulls %s distinct %s",
		b(st.Min), b(st.Max), b(st.MinValue), b(st.MaxValue), i(st.NullCount), i(st.DistinctCount))
}

func describeStats(cc *metadata.ColumnChunkMetaData) string {
	ok, err := cc.StatsSet()
	if err != nil {
		return err.Error()
	}
	if !ok {
		return "none"
	}
	st, err := cc.Statistics()
	if err != nil {
		return err.Error()
	}
	s := fmt.Sprintf("nulls %v/%d", st.HasNullCount(), st.NullCount())
	if st.HasMinMax() {
		s += fmt.Sprintf(" min %x max %x", st.EncodeMin(), st.EncodeMax())
	}
	return s
}

// encodingTally counts the column chunks by the encodings of their pages.
type encodingTally struct{ dict, fallback, plain int }

func (e *encodingTally) add(t *testing.T, b []byte) {
	r, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	md := r.MetaData()
	for g := range md.NumRowGroups() {
		for col := range md.RowGroup(g).NumColumns() {
			cc, _ := md.RowGroup(g).ColumnChunk(col)
			dict, plain := false, false
			for _, s := range cc.EncodingStats() {
				if s.PageType == 0 { // DATA_PAGE
					switch s.Encoding {
					case parquet.Encodings.RLEDict:
						dict = true
					case parquet.Encodings.Plain:
						plain = true
					}
				}
			}
			switch {
			case dict && plain:
				e.fallback++
			case dict:
				e.dict++
			default:
				e.plain++
			}
		}
	}
}
