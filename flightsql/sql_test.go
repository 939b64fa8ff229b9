package flightsql

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/iceberg/expr"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sql  string
		want string // a summary of the parsed Select
	}{
		{"SELECT * FROM samples.trips", "star table=samples.trips"},
		{"select * from samples.trips;", "star table=samples.trips"},
		{`SELECT id, "Fare" AS f, t.vendor FROM samples.trips t`, `cols=[id "Fare"->f t.vendor] table=samples.trips alias=t`},
		{`SELECT "a ""b""" FROM "My NS"."Tbl"`, `cols=["a ""b"""] table="My NS"."Tbl"`},
		{"SELECT `x` FROM ns.t", `cols=["x"] table=ns.t`},
		{"SELECT COUNT(*) FROM ns.t", "count(count(*)) table=ns.t"},
		{"SELECT count(1) AS n FROM ns.t WHERE a > 1", "count(n) table=ns.t where=[a > 1]"},
		{"SELECT * FROM ns.t FOR SYSTEM_VERSION AS OF 42", "star table=ns.t version=42"},
		{"SELECT * FROM ns.t FOR VERSION AS OF 'audit'", "star table=ns.t ref=audit"},
		{"SELECT * FROM ns.t FOR VERSION AS OF 7", "star table=ns.t version=7"},
		{"SELECT * FROM ns.t FOR SYSTEM_TIME AS OF '2024-05-01 12:00:00'", "star table=ns.t asof=2024-05-01 12:00:00"},
		{"SELECT * FROM ns.t FOR TIMESTAMP AS OF TIMESTAMP '2024-05-01'", "star table=ns.t asof=2024-05-01"},
		{"SELECT * FROM ns.t AS x FOR SYSTEM_VERSION AS OF 1", "star table=ns.t alias=x version=1"},
		{"SELECT a FROM ns.t WHERE a = ? AND b IN (?, 'x?') LIMIT 10", "cols=[a] table=ns.t where=[a = ? AND b IN (?, 'x?')] params=[4 16] limit=10"},
		{"SELECT a FROM ns.t WHERE (a = 1 OR b LIKE 'limit%') LIMIT 0", "cols=[a] table=ns.t where=[(a = 1 OR b LIKE 'limit%')] limit=0"},
		{"SELECT a -- the id\nFROM ns.t /* all */ WHERE a /* big */ > 1", "cols=[a] table=ns.t where=[a           > 1]"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			t.Parallel()
			sel, err := Parse(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(tc.sql, sel); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// summary writes a parsed Select as a short line: the WHERE clause is the
// statement's text from its first token to its last with everything but
// its tokens (comments) blanked, and params are offsets in it.
func summary(sql string, s *Select) string {
	var parts []string
	switch {
	case s.Star:
		parts = append(parts, "star")
	case s.Count:
		parts = append(parts, "count("+s.CountAlias+")")
	default:
		var cols []string
		for _, c := range s.Columns {
			col := identPath(c.Path)
			if c.Alias != nil {
				col += "->" + c.Alias.String()
			}
			cols = append(cols, col)
		}
		parts = append(parts, "cols=["+strings.Join(cols, " ")+"]")
	}
	parts = append(parts, "table="+identPath(s.Table))
	if s.TableAlias != nil {
		parts = append(parts, "alias="+s.TableAlias.String())
	}
	if s.VersionID != nil {
		parts = append(parts, fmt.Sprint("version=", *s.VersionID))
	}
	if s.VersionRef != "" {
		parts = append(parts, "ref="+s.VersionRef)
	}
	if s.AsOf != "" {
		parts = append(parts, "asof="+s.AsOf)
	}
	if len(s.Where) > 0 {
		parts = append(parts, "where=["+whereText(sql, s.Where)+"]")
	}
	if len(s.Params) > 0 {
		params := make([]int, len(s.Params))
		for i, p := range s.Params {
			params[i] = p - s.Where[0].Pos
		}
		parts = append(parts, fmt.Sprint("params=", params))
	}
	if s.Limit != nil {
		parts = append(parts, fmt.Sprint("limit=", *s.Limit))
	}
	return strings.Join(parts, " ")
}

// whereText is sql from the first of where's tokens to the end of its
// last, with the bytes between tokens that are not spaces blanked.
func whereText(sql string, where []expr.Token) string {
	from, to := where[0].Pos, where[len(where)-1].End
	text := []byte(sql[from:to])
	covered := make([]bool, len(text))
	for _, t := range where {
		for i := t.Pos; i < t.End; i++ {
			covered[i-from] = true
		}
	}
	for i, c := range text {
		if !covered[i] && !strings.ContainsRune(" \t\n\r", rune(c)) {
			text[i] = ' '
		}
	}
	return string(text)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sql         string
		unsupported bool
		pos         int // 1-based, as the message says it
		says        string
	}{
		{"", false, 1, "empty statement"},
		{"SELEC * FROM t", true, 1, "SELEC statements"},
		{"SELECT * FORM ns.t", false, 10, `expected FROM after the selected columns, found "FORM"`},
		{"SELECT id FROM", false, 15, "expected a table name"},
		{"SELECT id FROM ns.t WHERE", false, 26, "expected a filter after WHERE"},
		{"SELECT id FROM ns.t LIMIT x", false, 27, "LIMIT takes a non-negative whole number"},
		{"SELECT id FROM ns.t WHERE a = 'open", false, 31, "unterminated string"},
		{"SELECT id FROM ns.t extra words", false, 27, "expected the end of the statement"},
		{"SELECT a, count(*) FROM ns.t GROUP BY a", true, 30, "GROUP BY"},
		{"SELECT * FROM ns.t ORDER BY a", true, 20, "ORDER BY"},
		{"SELECT * FROM ns.a JOIN ns.b ON a.id = b.id", true, 20, "JOIN"},
		{"SELECT * FROM ns.a, ns.b", true, 19, "comma join"},
		{"SELECT DISTINCT a FROM ns.t", true, 8, "SELECT DISTINCT"},
		{"SELECT a + 1 FROM ns.t", true, 10, "expressions in the select list"},
		{"SELECT upper(a) FROM ns.t", true, 8, "function UPPER()"},
		{"SELECT * FROM ns.t WHERE a IN (SELECT b FROM ns.u)", true, 32, "subqueries"},
		{"WITH x AS (SELECT 1) SELECT * FROM x", true, 1, "WITH"},
		{"INSERT INTO ns.t VALUES (1)", true, 1, "INSERT statements"},
		{"SELECT * FROM ns.t FOR SYSTEM_VERSION AS OF 'main'", false, 45, "takes a snapshot id"},
		{"SELECT * FROM ns.t FOR SYSTEM_TIME AS OF now", false, 42, "timestamp string"},
		{"SELECT * FROM table_changes(ns.t, 1)", false, 29, "the table's name as a string"},
		{"SELECT * FROM table_changes('ns.t')", false, 35, "expected ',' after the table's name"},
		{"SELECT * FROM table_changes('ns.t', x)", false, 37, "snapshot id or a timestamp string"},
		{"SELECT * FROM table_changes('ns.t', 1, 2", false, 41, "to close table_changes"},
		{"SELECT a FROM table_changes('ns.t', 1)", true, 8, "a select list with table_changes"},
		{"SELECT * FROM table_changes('ns.t', 1) FOR SYSTEM_VERSION AS OF 2", true, 40, "FOR ... AS OF with table_changes"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tc.sql)
			var se *SyntaxError
			var ue *UnsupportedError
			switch {
			case err == nil:
				t.Fatal("parsed")
			case tc.unsupported && !errors.As(err, &ue):
				t.Fatalf("%v: want an UnsupportedError", err)
			case !tc.unsupported && !errors.As(err, &se):
				t.Fatalf("%v: want a SyntaxError", err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("position %d", tc.pos)) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%v: want position %d and %q", err, tc.pos, tc.says)
			}
			if tc.unsupported && !strings.Contains(err.Error(), "supported: SELECT") {
				t.Errorf("%v: want the subset named", err)
			}
		})
	}
}

// FuzzParse checks that no statement panics the parser and that every
// error is one of its two kinds, with a position inside the statement.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM a.b", `SELECT "x", y AS z FROM a.b FOR VERSION AS OF 'x' WHERE y > ? LIMIT 3`,
		"SELECT COUNT(*) FROM t WHERE (a = 1", "select `a` from b /* c", "SELECT a FROM b WHERE a = 'it''s' -- x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		sel, err := Parse(sql)
		var se *SyntaxError
		var ue *UnsupportedError
		switch {
		case err == nil:
			if sel == nil || len(sel.Table) == 0 {
				t.Fatalf("%q: parsed into %+v", sql, sel)
			}
			for _, p := range sel.Params {
				if p < 0 || p >= len(sql) || sql[p] != '?' {
					t.Fatalf("%q: placeholder offset %d is not a ? of the statement", sql, p)
				}
				if len(sel.Where) == 0 || p < sel.Where[0].Pos || p >= sel.Where[len(sel.Where)-1].End {
					t.Fatalf("%q: placeholder offset %d is outside the WHERE clause", sql, p)
				}
			}
		case errors.As(err, &se):
			if se.Pos < 0 || se.Pos > len(sql) {
				t.Fatalf("%q: position %d outside the statement", sql, se.Pos)
			}
		case errors.As(err, &ue):
			if ue.Pos < 0 || ue.Pos > len(sql) {
				t.Fatalf("%q: position %d outside the statement", sql, ue.Pos)
			}
		default:
			t.Fatalf("%q: error %T %v", sql, err, err)
		}
	})
}
