package client

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/engine"
)

// TestDictionaryReadEqualsJavaOracle reads tables with their string columns
// as dictionaries, then decodes and unifies them: both equal Iceberg Java's
// rows.
func TestDictionaryReadEqualsJavaOracle(t *testing.T) {
	t.Parallel()
	srv := serve(t, 300, 0)
	c, mem := dial(t, srv.addr)
	ctx := context.Background()
	for _, table := range []string{"samples.trips", "samples.all_types", "samples.eq_deletes_evolved"} {
		cur := readIndex(t, table).Scans[0]
		schema := parseSchema(t, cur.Schema, nil)
		want := oracleRows(t, filepath.Join(expected, table, cur.File), schema)
		tbl, err := c.Read(ctx, Command{Table: table, DictionaryAll: true})
		if err != nil {
			t.Fatal(err)
		}
		dicts := 0
		for _, f := range tbl.Schema().Fields() {
			if f.Type.ID() == arrow.DICTIONARY {
				dicts++
			} else if f.Type.ID() == arrow.STRING || f.Type.ID() == arrow.BINARY {
				t.Errorf("%s: column %s is %s, not a dictionary", table, f.Name, f.Type)
			}
		}
		if dicts == 0 {
			t.Errorf("%s: no dictionary column", table)
		}
		decoded, err := DecodeDictionaries(ctx, mem, tbl)
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, table+" decoded", tableRows(t, decoded, schema), want)
		decoded.Release()
		unified, err := array.UnifyTableDicts(mem, tbl)
		if err != nil {
			t.Fatal(err)
		}
		decoded, err = DecodeDictionaries(ctx, mem, unified)
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, table+" unified", tableRows(t, decoded, schema), want)
		decoded.Release()
		unified.Release()
		tbl.Release()
	}
}

func TestDictionaryCommandIsWhatTheServerDecodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd  Command
		all  bool
		cols string
	}{
		{Command{Table: "db.t", DictionaryAll: true}, true, ""},
		{Command{Table: "db.t", Dictionary: []string{"a", "b"}}, false, "a,b"},
		{Command{Table: "db.t"}, false, ""},
	} {
		desc, err := tc.cmd.Descriptor()
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.ParseDescriptor(desc)
		if err != nil {
			t.Fatalf("server refuses %s: %v", desc.Cmd, err)
		}
		if got.DictionaryAll != tc.all || strings.Join(got.DictionaryColumns, ",") != tc.cols {
			t.Errorf("server decoded %v from %s", got, desc.Cmd)
		}
	}
	if _, err := (Command{Table: "db.t", DictionaryAll: true, Dictionary: []string{"a"}}).Descriptor(); err == nil {
		t.Error("both DictionaryAll and Dictionary: no error")
	}
}
