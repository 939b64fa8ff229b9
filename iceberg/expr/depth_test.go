package expr

import (
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/internal/strictjson"
)

// nested wraps inner in n levels of open and close.
func nested(n int, open, inner, close string) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

func TestParseBoundsNesting(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		deep     bool
	}{
		{"MaxDepth parentheses parse", nested(MaxDepth, "(", "id = 1", ")"), false},
		{"MaxDepth NOTs parse", strings.Repeat("NOT ", MaxDepth) + "id = 1", false},
		{"one parenthesis more is too deep", nested(MaxDepth+1, "(", "id = 1", ")"), true},
		{"parentheses and NOTs count together", nested(MaxDepth/2+1, "NOT (", "id = 1", ")"), true},
		{"1.6 million open parentheses are refused", strings.Repeat("(", 1_600_000), true},
		{"a million NOTs are refused", strings.Repeat("NOT ", 1_000_000) + "id = 1", true},
		{"a deep IN list is no nesting", "id IN (" + strings.Repeat("1, ", 100_000) + "2)", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tc.in)
			switch {
			case !tc.deep && err != nil:
				t.Fatalf("Parse: %v", err)
			case tc.deep && !errors.Is(err, ErrTooDeep):
				t.Fatalf("Parse error = %v, want ErrTooDeep", err)
			case tc.deep && (!errors.Is(err, ErrInvalidFilter) || len(err.Error()) > 200):
				t.Fatalf("Parse error %q: want a short ErrInvalidFilter", err)
			}
		})
	}
}

// TestParseRefusesDeepNestingEarly parses 2 MB of parentheses and checks
// the parser gave up before allocating for them (it allocated 950 MB).
// It measures the process's allocations, so it does not run in parallel.
func TestParseRefusesDeepNestingEarly(t *testing.T) {
	in := strings.Repeat("(", 2<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse(in)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooDeep) {
		t.Fatalf("Parse error = %v, want ErrTooDeep", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("refusing 2 MB of parentheses allocated %d bytes", n)
	}
}

func TestParseJSONBoundsNesting(t *testing.T) {
	t.Parallel()
	pred := `{"type":"eq","term":"id","value":1}`
	nots := func(n int) string { return nested(n, `{"type":"not","child":`, pred, `}`) }
	// alternate nests and inside or inside and ..., each a new level.
	alternate := func(n int) string {
		var b strings.Builder
		for i := range n {
			typ := "and"
			if i%2 == 1 {
				typ = "or"
			}
			b.WriteString(`{"type":"` + typ + `","left":` + pred + `,"right":`)
		}
		b.WriteString(pred + strings.Repeat("}", n))
		return b.String()
	}
	cases := []struct {
		name, in string
		deep     bool
	}{
		{"MaxDepth NOTs parse", nots(MaxDepth), false},
		{"NOTs past the tree bound are too deep", nots(maxTreeDepth + 1), true},
		{"alternating AND and OR past the bound are too deep", alternate(maxTreeDepth + 1), true},
		{"text past the JSON decoder's limit is refused", strings.Repeat("[", 2<<20), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseJSON([]byte(tc.in))
			if tc.deep && !errors.Is(err, ErrTooDeep) {
				t.Fatalf("ParseJSON error = %v, want ErrTooDeep", err)
			}
			if err != nil && (!errors.Is(err, ErrInvalidFilter) || len(err.Error()) > 200) {
				t.Fatalf("ParseJSON error %q: want a short ErrInvalidFilter", err)
			}
			if !tc.deep && strings.HasPrefix(tc.in, "[") && err == nil {
				t.Fatal("2 MB of '[' parsed")
			}
		})
	}
}

// TestJavaChainsAreFlat reads a left-deep JSON chain of 5,000 ORs, as
// Iceberg Java writes a OR b OR c, into one OrExpr, and a chain nested on
// the right too: a chain of one operator is one level however it nests.
func TestJavaChainsAreFlat(t *testing.T) {
	t.Parallel()
	const n = 5000
	lt := func(i int) string { return `{"type":"lt","term":"id","value":` + strconv.Itoa(i) + `}` }
	// or(or(or(t0, t1), t2), ...) and and(t1, and(t2, ... t0)).
	var l, r strings.Builder
	l.WriteString(strings.Repeat(`{"type":"or","left":`, n-1) + lt(0))
	for i := 1; i < n; i++ {
		l.WriteString(`,"right":` + lt(i) + `}`)
		r.WriteString(`{"type":"and","left":` + lt(i) + `,"right":`)
	}
	r.WriteString(lt(0) + strings.Repeat("}", n-1))
	left, right := l.String(), r.String()
	for name, in := range map[string]string{"left-deep or": left, "right-deep and": right} {
		e, err := ParseJSON([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var terms []Expr
		switch e := e.(type) {
		case OrExpr:
			terms = e.Terms
		case AndExpr:
			terms = e.Terms
		}
		if len(terms) != n {
			t.Fatalf("%s: %T with %d terms, want one chain of %d", name, e, len(terms), n)
		}
		// Terms keep their order: left to right as written.
		if got := terms[n-1].String(); name == "left-deep or" && got != "id < "+strconv.Itoa(n-1) {
			t.Fatalf("%s: last term %q", name, got)
		}
	}
}

// TestLongChainsStayFlat binds, writes and reads back chains of 20,000
// terms: parsing is a loop, binding keeps one level, and the JSON form a
// ticket carries nests log2(n) levels, so the reader's decoder takes it.
func TestLongChainsStayFlat(t *testing.T) {
	t.Parallel()
	const n = 20_000
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(" OR ")
		}
		// Ranges on two columns: nothing folds into a set.
		b.WriteString("(id > " + strconv.Itoa(2*i) + " AND l < " + strconv.Itoa(i) + ")")
	}
	bound := mustBind(t, b.String())
	or, ok := bound.(OrExpr)
	if !ok || len(or.Terms) != n {
		t.Fatalf("bound to %T, want an OR of %d terms", bound, n)
	}
	raw, err := json.Marshal(bound)
	if err != nil {
		t.Fatal(err)
	}
	if d := strictjson.Depth(raw); d > 64 {
		t.Fatalf("JSON of a %d-term chain nests %d levels", n, d)
	}
	back, err := ParseJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	rebound, err := Bind(back, testSchema, true)
	if err != nil {
		t.Fatal(err)
	}
	if rebound.String() != bound.String() {
		t.Fatal("the chain changed through JSON")
	}
}
