package expr

import (
	"strings"
	"testing"
)

// TestMessagesStayShort feeds filters holding a megabyte in one literal or
// name to every stage that can fail on them: no message may quote more
// than a few hundred bytes (one was a 6.2 MB log line). Numbers of a
// megabyte are refused rather than converted, which took seconds each.
func TestMessagesStayShort(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	digits := strings.Repeat("7", 1<<20)
	cases := []struct{ name, filter, json string }{
		{name: "string after IS", filter: "id IS '" + big + "'"},
		{name: "operator missing after a long name", filter: `"` + big + `" 5`},
		{name: "malformed long number", filter: "id = " + digits + "x"},
		{name: "bad hex", filter: "b = X'" + big + "'"},
		{name: "bad timestamp", filter: "ts = TIMESTAMP '" + big + "'"},
		{name: "unknown long column", filter: `"` + big + `" = 1`},
		{name: "string that is no int", filter: "id = '" + big + "'"},
		{name: "string that is no date", filter: "dt = '" + big + "'"},
		{name: "long string on a uuid", filter: "u IN ('" + big + "')"},
		{name: "STARTS WITH on an int", filter: "id STARTS WITH '" + big + "'"},
		{name: "a megabyte integer on an int", filter: "id = 1" + digits},
		{name: "a megabyte number on a double", filter: "d < 0." + digits},
		{name: "a megabyte number on a decimal", filter: "dec IN (1, -" + digits + ")"},
		{name: "a megabyte number in a string on a long", filter: "l = '" + digits + "'"},
		{name: "a megabyte JSON number", json: `{"type":"eq","term":"id","value":` + digits + `}`},
		{name: "a megabyte typed decimal in JSON", json: `{"type":"eq","term":"dec","value":{"type":"literal","value":"` + digits + `","data-type":"decimal(9,2)"}}`},
		{name: "JSON unknown type", json: `{"type":"` + big + `"}`},
		{name: "JSON unknown key", json: `{"type":"is-null","term":"s","` + big + `":1}`},
		{name: "JSON object with no type", json: `{"term":"` + big + `"}`},
		{name: "JSON object value", json: `{"type":"eq","term":"id","value":{"a":"` + big + `"}}`},
		{name: "JSON typed literal", json: `{"type":"eq","term":"dt","value":{"type":"literal","value":"` + big + `","data-type":"date"}}`},
		{name: "JSON data-type", json: `{"type":"eq","term":"id","value":{"type":"literal","value":1,"data-type":"` + big + `"}}`},
		{name: "JSON term that is no reference", json: `{"type":"eq","term":["` + big + `"],"value":1}`},
		{name: "JSON unknown column", json: `{"type":"eq","term":"` + big + `","value":1}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e Expr
			var err error
			if tc.json != "" {
				e, err = ParseJSON([]byte(tc.json))
			} else {
				e, err = Parse(tc.filter)
			}
			if err == nil {
				_, err = Bind(e, testSchema, true)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if n := len(err.Error()); n > 500 {
				t.Fatalf("message of %d bytes: %.300s", n, err.Error())
			}
		})
	}
}
