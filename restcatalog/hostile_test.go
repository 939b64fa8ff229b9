package restcatalog

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestBadInputIsAClientError sends what broken and hostile clients send:
// every answer is a 4xx in the error model with a message, never a 500.
func TestBadInputIsAClientError(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{opts: []Option{WithMaxBodyBytes(1 << 20)}})
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	cases := []struct {
		name, method, path string
		body               any
		code               int
		typ                string
	}{
		{"malformed JSON", http.MethodPost, "/v1/namespaces", `{"namespace":`, 400, "BadRequestException"},
		{"unknown member", http.MethodPost, "/v1/namespaces", `{"namespace":["x"],"propertys":{}}`, 400, "BadRequestException"},
		{"trailing data", http.MethodPost, "/v1/namespaces", `{"namespace":["x"]} {}`, 400, "BadRequestException"},
		{"deep JSON", http.MethodPost, "/v1/namespaces/samples/tables/trips", `{"requirements":` + deep + `}`, 400, "BadRequestException"},
		{"deep filter", http.MethodPost, "/v1/namespaces/samples/tables/trips/plan", `{"filter":` + strings.Repeat(`{"type":"not","child":`, 300) + `true` + strings.Repeat("}", 300) + `}`, 400, "BadRequestException"},
		{"body too large", http.MethodPost, "/v1/namespaces", bytes.Repeat([]byte(" "), 2<<20), 413, "BadRequestException"},
		{"unknown requirement", http.MethodPost, "/v1/namespaces/samples/tables/trips", `{"requirements":[{"type":"assert-nothing"}],"updates":[]}`, 400, "BadRequestException"},
		{"unknown update", http.MethodPost, "/v1/namespaces/samples/tables/trips", `{"requirements":[],"updates":[{"action":"set-everything"}]}`, 400, "BadRequestException"},
		{"update that cannot apply", http.MethodPost, "/v1/namespaces/samples/tables/trips", `{"requirements":[],"updates":[{"action":"set-current-schema","schema-id":42}]}`, 400, "BadRequestException"},
		{"identifier of another table", http.MethodPost, "/v1/namespaces/samples/tables/trips", `{"identifier":{"namespace":["samples"],"name":"history"},"requirements":[],"updates":[]}`, 400, "BadRequestException"},
		{"dot-dot namespace", http.MethodGet, "/v1/namespaces/../tables", nil, 400, "BadRequestException"},
		{"escaped dot-dot table", http.MethodGet, "/v1/namespaces/samples/tables/%2E%2E", nil, 400, "BadRequestException"},
		{"slash in a table name", http.MethodGet, "/v1/namespaces/samples/tables/a%2Fb", nil, 400, "BadRequestException"},
		{"separator at the end", http.MethodGet, "/v1/namespaces/samples%1F/tables", nil, 400, "BadRequestException"},
		{"slash in a created name", http.MethodPost, "/v1/namespaces/samples/tables", `{"name":"../../etc","schema":` + tableSchema + `}`, 400, "BadRequestException"},
		{"traversal in a new namespace", http.MethodPost, "/v1/namespaces", `{"namespace":["..","x"]}`, 400, "BadRequestException"},
		{"NUL in a rename", http.MethodPost, "/v1/tables/rename", "{\"source\":{\"namespace\":[\"samples\"],\"name\":\"trips\"},\"destination\":{\"namespace\":[\"samples\"],\"name\":\"a\\u0000b\"}}", 400, "BadRequestException"},
		{"huge page", http.MethodGet, "/v1/namespaces/samples/tables?pageSize=99999999999999999999", nil, 400, "BadRequestException"},
		{"negative page", http.MethodGet, "/v1/namespaces?pageSize=-1", nil, 400, "BadRequestException"},
		{"forged page token", http.MethodGet, "/v1/namespaces?pageToken=%%%", nil, 400, "BadRequestException"},
		{"bad snapshots mode", http.MethodGet, "/v1/namespaces/samples/tables/trips?snapshots=some", nil, 400, "BadRequestException"},
		{"unknown route", http.MethodGet, "/v1/namespaces/samples/tables/trips/files", nil, 404, "NotFoundException"},
		{"no API version", http.MethodGet, "/namespaces", nil, 404, "NotFoundException"},
		{"wrong method", http.MethodPut, "/v1/namespaces", "{}", 405, "BadRequestException"},
		{"too many segments", http.MethodGet, "/v1" + strings.Repeat("/a", 40), nil, 400, "BadRequestException"},
		{"views", http.MethodGet, "/v1/namespaces/samples/views", nil, 501, "UnsupportedOperationException"},
		{"empty transaction", http.MethodPost, "/v1/transactions/commit", `{"table-changes":[]}`, 400, "BadRequestException"},
		{"plan with unknown column", http.MethodPost, "/v1/namespaces/samples/tables/trips/plan", `{"select":["no_such_column"]}`, 400, "BadRequestException"},
		{"plan of unknown snapshot", http.MethodPost, "/v1/namespaces/samples/tables/trips/plan", `{"snapshot-id":1}`, 404, ""},
		{"plan id never issued", http.MethodGet, "/v1/namespaces/samples/tables/trips/plan/abc", nil, 404, "NoSuchPlanIdException"},
		{"plan task never issued", http.MethodPost, "/v1/namespaces/samples/tables/trips/tasks", `{"plan-task":"x-1"}`, 404, "NoSuchPlanIdException"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(c.method, c.path, c.body)
			expect(t, c.name, r, c.code, c.typ)
			var m errorModel
			r.decode(t, &m)
			if m.Error.Message == "" || m.Error.Code != c.code {
				t.Errorf("error body %s", r.body)
			}
		})
	}
}
