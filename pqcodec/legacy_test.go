package pqcodec

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Layouts arrow-go's Arrow writer does not write, written column by column
// from levels: the legacy list encodings of the Parquet format's
// backward-compatibility rules (two-level lists, repeated fields without
// LIST, a repeated group named array or NAME_tuple) and one-child maps.

// legacySchemas are the schemas of the legacy layouts, by rule.
var legacySchemas = []struct {
	name   string
	fields func(t testing.TB) schema.FieldList
}{
	{"a repeated primitive is a required list of required values", func(t testing.TB) schema.FieldList {
		return schema.FieldList{prim(t, "x", parquet.Repetitions.Repeated, parquet.Types.Int32)}
	}},
	{"a two-level list's repeated primitive is its element", func(t testing.TB) schema.FieldList {
		return schema.FieldList{list(t, "a", parquet.Repetitions.Optional, prim(t, "element", parquet.Repetitions.Repeated, parquet.Types.Int64))}
	}},
	{"a repeated group named array is a list of structs", func(t testing.TB) schema.FieldList {
		return schema.FieldList{list(t, "a", parquet.Repetitions.Optional,
			group(t, "array", parquet.Repetitions.Repeated, str(t, "s", parquet.Repetitions.Optional)))}
	}},
	{"a repeated group named NAME_tuple is a list of structs", func(t testing.TB) schema.FieldList {
		return schema.FieldList{list(t, "b", parquet.Repetitions.Required,
			group(t, "b_tuple", parquet.Repetitions.Repeated, prim(t, "v", parquet.Repetitions.Required, parquet.Types.Int64)))}
	}},
	{"a required list of optional elements", func(t testing.TB) schema.FieldList {
		return schema.FieldList{list(t, "l", parquet.Repetitions.Required,
			group(t, "list", parquet.Repetitions.Repeated, prim(t, "element", parquet.Repetitions.Optional, parquet.Types.Int32)))}
	}},
	{"a repeated group without LIST is a list of structs", func(t testing.TB) schema.FieldList {
		return schema.FieldList{group(t, "g", parquet.Repetitions.Repeated,
			prim(t, "a", parquet.Repetitions.Optional, parquet.Types.Int32), str(t, "b", parquet.Repetitions.Required))}
	}},
	{"a struct of a repeated primitive and an optional one", func(t testing.TB) schema.FieldList {
		return schema.FieldList{group(t, "s", parquet.Repetitions.Optional,
			prim(t, "r", parquet.Repetitions.Repeated, parquet.Types.Int32), prim(t, "o", parquet.Repetitions.Optional, parquet.Types.Double))}
	}},
	{"a one-child map is a list of its keys", func(t testing.TB) schema.FieldList {
		m, err := schema.NewGroupNodeLogical("m", parquet.Repetitions.Optional, schema.FieldList{
			group(t, "key_value", parquet.Repetitions.Repeated, prim(t, "key", parquet.Repetitions.Required, parquet.Types.Int32))},
			schema.MapLogicalType{}, -1)
		must(t, err)
		return schema.FieldList{m}
	}},
	{"lists of lists of structs of lists", func(t testing.TB) schema.FieldList {
		inner := list(t, "inner", parquet.Repetitions.Optional,
			group(t, "list", parquet.Repetitions.Repeated, group(t, "element", parquet.Repetitions.Optional,
				list(t, "leaf", parquet.Repetitions.Optional, group(t, "list", parquet.Repetitions.Repeated, str(t, "element", parquet.Repetitions.Optional))),
				prim(t, "n", parquet.Repetitions.Optional, parquet.Types.Int32))))
		return schema.FieldList{list(t, "outer", parquet.Repetitions.Optional, group(t, "list", parquet.Repetitions.Repeated, inner))}
	}},
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func prim(t testing.TB, name string, rep parquet.Repetition, typ parquet.Type) schema.Node {
	n, err := schema.NewPrimitiveNode(name, rep, typ, -1, -1)
	must(t, err)
	return n
}

func str(t testing.TB, name string, rep parquet.Repetition) schema.Node {
	n, err := schema.NewPrimitiveNodeLogical(name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
	must(t, err)
	return n
}

func group(t testing.TB, name string, rep parquet.Repetition, fields ...schema.Node) schema.Node {
	n, err := schema.NewGroupNode(name, rep, fields, -1)
	must(t, err)
	return n
}

func list(t testing.TB, name string, rep parquet.Repetition, repeated schema.Node) schema.Node {
	n, err := schema.NewGroupNodeLogical(name, rep, schema.FieldList{repeated}, schema.ListLogicalType{}, -1)
	must(t, err)
	return n
}

// shred returns random levels of column col for rows records. Each node's
// choices (null or not, how many repetitions) are drawn from a hash of the
// record, the node and the repetitions above it, so that the columns under
// a node agree on it.
func shred(col *schema.Column, rows int, seed uint64) (def, rep []int16) {
	var path []schema.Node
	for n := col.SchemaNode(); n.Parent() != nil; n = n.Parent() {
		path = append([]schema.Node{n}, path...)
	}
	choice := func(record int, depth int, inst []int, k int) int {
		h := fnv.New64a()
		fmt.Fprint(h, seed, record, path[depth].Path(), inst)
		return int(h.Sum64() % uint64(k))
	}
	var walk func(record, depth int, d, r, repDepth int16, inst []int)
	walk = func(record, depth int, d, r, repDepth int16, inst []int) {
		if depth == len(path) {
			def, rep = append(def, d), append(rep, r)
			return
		}
		switch path[depth].RepetitionType() {
		case parquet.Repetitions.Required:
			walk(record, depth+1, d, r, repDepth, inst)
		case parquet.Repetitions.Optional:
			if choice(record, depth, inst, 5) == 0 {
				def, rep = append(def, d), append(rep, r)
				return
			}
			walk(record, depth+1, d+1, r, repDepth, inst)
		default:
			k := choice(record, depth, inst, 5)
			if k == 0 {
				def, rep = append(def, d), append(rep, r)
				return
			}
			for j := range k {
				rj := r
				if j > 0 {
					rj = repDepth + 1
				}
				walk(record, depth+1, d+1, rj, repDepth+1, append(inst, j))
			}
		}
	}
	for i := range rows {
		walk(i, 0, 0, 0, 0, nil)
	}
	return def, rep
}

// legacyFile writes rows random records of the schema's fields.
func legacyFile(t *testing.T, fields schema.FieldList, rows int, rng *rand.Rand, props *parquet.WriterProperties) []byte {
	t.Helper()
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	must(t, err)
	sc := schema.NewSchema(root)
	var buf bytes.Buffer
	w := file.NewParquetWriter(&buf, root, file.WithWriterProps(props))
	rg, err := w.AppendRowGroupChecked()
	if err != nil {
		t.Fatal(err)
	}
	seed := rng.Uint64()
	for c := 0; c < sc.NumColumns(); c++ {
		col := sc.Column(c)
		def, rep := shred(col, rows, seed)
		present := 0
		for _, d := range def {
			if d == col.MaxDefinitionLevel() {
				present++
			}
		}
		cw, err := rg.NextColumn()
		if err != nil {
			t.Fatal(err)
		}
		switch cw := cw.(type) {
		case *file.Int32ColumnChunkWriter:
			vals := make([]int32, present)
			for i := range vals {
				vals[i] = rng.Int32N(50)
			}
			_, err = cw.WriteBatch(vals, def, rep)
		case *file.Int64ColumnChunkWriter:
			vals := make([]int64, present)
			for i := range vals {
				vals[i] = rng.Int64()
			}
			_, err = cw.WriteBatch(vals, def, rep)
		case *file.Float64ColumnChunkWriter:
			vals := make([]float64, present)
			for i := range vals {
				vals[i] = rng.Float64()
			}
			_, err = cw.WriteBatch(vals, def, rep)
		case *file.ByteArrayColumnChunkWriter:
			vals := make([]parquet.ByteArray, present)
			for i := range vals {
				vals[i] = parquet.ByteArray(fmt.Sprint("s", rng.IntN(40)))
			}
			_, err = cw.WriteBatch(vals, def, rep)
		default:
			t.Fatalf("no values for %T", cw)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := cw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLegacyLayoutsMatchPqarrow(t *testing.T) {
	t.Parallel()
	for i, tc := range legacySchemas {
		t.Run(tc.name, func(t *testing.T) {
			for v, version := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
				rng := rand.New(rand.NewPCG(uint64(i), uint64(v)))
				props := parquet.NewWriterProperties(parquet.WithDataPageVersion(version), parquet.WithDataPageSize(128),
					parquet.WithBatchSize(37), parquet.WithDictionaryDefault(v == 0), parquet.WithCompression(codecs[i%len(codecs)]))
				raw := legacyFile(t, tc.fields(t), 1+rng.IntN(2000), rng, props)
				got := compareFields(t, rng, raw, fmt.Sprintf("%s, pages %v", tc.name, version), true)
				if got.fields == 0 {
					t.Errorf("no field compared")
				}
			}
		})
	}
}
