package restcatalog

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestConfigAdvertisesTheServedEndpoints(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{})
	r := h.do(http.MethodGet, "/v1/config", nil)
	expect(t, "config", r, http.StatusOK, "")
	var cfg configResponse
	r.decode(t, &cfg)
	for _, want := range []string{
		"GET /v1/{prefix}/namespaces",
		"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
		"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
		"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
		"POST /v1/{prefix}/transactions/commit",
	} {
		if !slices.Contains(cfg.Endpoints, want) {
			t.Errorf("endpoints lack %q: %v", want, cfg.Endpoints)
		}
	}
	for _, e := range cfg.Endpoints {
		if strings.Contains(e, "/views") {
			t.Errorf("a view endpoint is advertised: %s", e)
		}
	}
	if _, ok := cfg.Overrides["prefix"]; ok {
		t.Errorf("a single catalog got a prefix: %v", cfg.Overrides)
	}
}

func TestWarehouseSelectsTheCatalogPrefix(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{registry: true})
	var cfg configResponse
	r := h.do(http.MethodGet, "/v1/config?warehouse=b", nil)
	expect(t, "config b", r, http.StatusOK, "")
	r.decode(t, &cfg)
	if cfg.Overrides["prefix"] != "b" {
		t.Fatalf("overrides %v, want prefix b", cfg.Overrides)
	}
	expect(t, "unknown warehouse", h.do(http.MethodGet, "/v1/config?warehouse=nope", nil), http.StatusBadRequest, "BadRequestException")

	// Under a prefix the catalog's own namespaces; without one, the
	// catalogs themselves.
	var list listNamespacesResponse
	h.do(http.MethodGet, "/v1/a/namespaces", nil).decode(t, &list)
	if !slices.EqualFunc(list.Namespaces, [][]string{{"samples"}}, slices.Equal) {
		t.Errorf("a's namespaces %v", list.Namespaces)
	}
	h.do(http.MethodGet, "/v1/namespaces", nil).decode(t, &list)
	if !slices.EqualFunc(list.Namespaces, [][]string{{"a"}, {"b"}}, slices.Equal) {
		t.Errorf("top-level namespaces %v", list.Namespaces)
	}
	expect(t, "table under prefix", h.do(http.MethodGet, "/v1/a/namespaces/samples/tables/trips", nil), http.StatusOK, "")
	expect(t, "same table without prefix", h.do(http.MethodGet, "/v1/namespaces/a%1Fsamples/tables/trips", nil), http.StatusOK, "")
	expect(t, "unknown prefix", h.do(http.MethodGet, "/v1/c/namespaces", nil), http.StatusNotFound, "NoSuchNamespaceException")
	expect(t, "other catalog", h.do(http.MethodGet, "/v1/b/namespaces/samples/tables/trips", nil), http.StatusNotFound, "NoSuchTableException")
}

// TestTableLifecycle creates, commits to, reads and drops a table the way
// a REST client does, checking each answer's status and error type.
func TestTableLifecycle(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{})
	expect(t, "create namespace", h.do(http.MethodPost, "/v1/namespaces", `{"namespace":["db"],"properties":{}}`), http.StatusOK, "")
	expect(t, "create it again", h.do(http.MethodPost, "/v1/namespaces", `{"namespace":["db"]}`), http.StatusConflict, "AlreadyExistsException")
	expect(t, "namespace exists", h.do(http.MethodHead, "/v1/namespaces/db", nil), http.StatusNoContent, "")
	expect(t, "missing namespace", h.do(http.MethodGet, "/v1/namespaces/nope", nil), http.StatusNotFound, "NoSuchNamespaceException")

	create := fmt.Sprintf(`{"name":"t","schema":%s,"partition-spec":{"spec-id":0,"fields":[{"source-id":1,"field-id":1000,"transform":"bucket[4]","name":"id_bucket"}]},"properties":{"owner":"test"}}`, tableSchema)
	r := h.do(http.MethodPost, "/v1/namespaces/db/tables", create)
	expect(t, "create table", r, http.StatusOK, "")
	var loaded struct {
		MetadataLocation string `json:"metadata-location"`
		Metadata         struct {
			UUID       string            `json:"table-uuid"`
			Properties map[string]string `json:"properties"`
			Specs      []struct {
				Fields []struct {
					Transform string `json:"transform"`
				} `json:"fields"`
			} `json:"partition-specs"`
		} `json:"metadata"`
	}
	r.decode(t, &loaded)
	if loaded.MetadataLocation == "" || loaded.Metadata.Properties["owner"] != "test" || loaded.Metadata.Specs[0].Fields[0].Transform != "bucket[4]" {
		t.Fatalf("created table: %s", r.body)
	}
	expect(t, "create it again", h.do(http.MethodPost, "/v1/namespaces/db/tables", create), http.StatusConflict, "AlreadyExistsException")
	expect(t, "create in a missing namespace", h.do(http.MethodPost, "/v1/namespaces/nope/tables", create), http.StatusNotFound, "NoSuchNamespaceException")
	expect(t, "table exists", h.do(http.MethodHead, "/v1/namespaces/db/tables/t", nil), http.StatusNoContent, "")

	commit := func(uuid string) response {
		return h.do(http.MethodPost, "/v1/namespaces/db/tables/t", fmt.Sprintf(
			`{"requirements":[{"type":"assert-table-uuid","uuid":%q},{"type":"assert-current-schema-id","current-schema-id":0}],`+
				`"updates":[{"action":"set-properties","updates":{"k":"v"}}]}`, uuid))
	}
	r = commit(loaded.Metadata.UUID)
	expect(t, "commit", r, http.StatusOK, "")
	var committed struct {
		MetadataLocation string `json:"metadata-location"`
	}
	r.decode(t, &committed)
	if committed.MetadataLocation == loaded.MetadataLocation {
		t.Fatalf("commit kept the metadata file: %s", r.body)
	}
	r = commit("00000000-0000-0000-0000-000000000000")
	expect(t, "commit on a stale requirement", r, http.StatusConflict, "CommitFailedException")
	var failed errorModel
	r.decode(t, &failed)
	if !strings.HasPrefix(failed.Error.Message, "Requirement failed: UUID does not match: expected "+loaded.Metadata.UUID+" != 0000") {
		t.Errorf("message %q", failed.Error.Message)
	}

	r = h.do(http.MethodGet, "/v1/namespaces/db/tables/t", nil)
	r.decode(t, &loaded)
	if loaded.Metadata.Properties["k"] != "v" || loaded.MetadataLocation != committed.MetadataLocation {
		t.Fatalf("load after commit: %s", r.body)
	}
	expect(t, "drop namespace with a table", h.do(http.MethodDelete, "/v1/namespaces/db", nil), http.StatusConflict, "NamespaceNotEmptyException")
	expect(t, "drop table", h.do(http.MethodDelete, "/v1/namespaces/db/tables/t?purgeRequested=true", nil), http.StatusNoContent, "")
	r = h.do(http.MethodGet, "/v1/namespaces/db/tables/t", nil)
	expect(t, "load dropped", r, http.StatusNotFound, "NoSuchTableException")
	// Messages start as Iceberg Java's server starts them.
	var m errorModel
	r.decode(t, &m)
	if !strings.HasPrefix(m.Error.Message, "Table does not exist: db.t (") {
		t.Errorf("message %q", m.Error.Message)
	}
	r = h.do(http.MethodPost, "/v1/namespaces", `{"namespace":["samples"]}`)
	r.decode(t, &m)
	if !strings.HasPrefix(m.Error.Message, "Namespace already exists: samples (") {
		t.Errorf("message %q", m.Error.Message)
	}
	expect(t, "commit to dropped", commit(loaded.Metadata.UUID), http.StatusNotFound, "NoSuchTableException")
	expect(t, "drop namespace", h.do(http.MethodDelete, "/v1/namespaces/db", nil), http.StatusNoContent, "")
}

// TestStagedCreate is PyIceberg's create_table_transaction: a staged
// create writes nothing, and the commit with assert-create creates the
// table once.
func TestStagedCreate(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{})
	r := h.do(http.MethodPost, "/v1/namespaces/samples/tables", fmt.Sprintf(`{"name":"staged","schema":%s,"stage-create":true}`, tableSchema))
	expect(t, "stage", r, http.StatusOK, "")
	var staged struct {
		MetadataLocation *string `json:"metadata-location"`
		Metadata         struct {
			Location string `json:"location"`
		} `json:"metadata"`
	}
	r.decode(t, &staged)
	if staged.MetadataLocation != nil || !strings.HasSuffix(staged.Metadata.Location, "/samples/staged") {
		t.Fatalf("staged: %s", r.body)
	}
	expect(t, "staged table is no table", h.do(http.MethodHead, "/v1/namespaces/samples/tables/staged", nil), http.StatusNotFound, "")
	body := fmt.Sprintf(`{"requirements":[{"type":"assert-create"}],"updates":[`+
		`{"action":"assign-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"},{"action":"upgrade-format-version","format-version":2},`+
		`{"action":"add-schema","schema":%s,"last-column-id":2},{"action":"set-current-schema","schema-id":-1},`+
		`{"action":"add-spec","spec":{"spec-id":0,"fields":[]}},{"action":"set-default-spec","spec-id":-1},`+
		`{"action":"add-sort-order","sort-order":{"order-id":0,"fields":[]}},{"action":"set-default-sort-order","sort-order-id":-1},`+
		`{"action":"set-location","location":%q},{"action":"set-properties","updates":{"created-by":"staged"}}]}`, tableSchema, staged.Metadata.Location)
	expect(t, "commit create", h.do(http.MethodPost, "/v1/namespaces/samples/tables/staged", body), http.StatusOK, "")
	expect(t, "commit create again", h.do(http.MethodPost, "/v1/namespaces/samples/tables/staged", body), http.StatusConflict, "CommitFailedException")
	var loaded struct {
		Metadata struct {
			UUID string `json:"table-uuid"`
		} `json:"metadata"`
	}
	h.do(http.MethodGet, "/v1/namespaces/samples/tables/staged", nil).decode(t, &loaded)
	if loaded.Metadata.UUID != "9c12d441-03fe-4693-9a96-a0705ddf69c1" {
		t.Fatalf("created table uuid %q", loaded.Metadata.UUID)
	}
}

// TestTransactionChecksEveryTableFirst commits nothing when one table's
// requirement fails, whichever table it is.
func TestTransactionChecksEveryTableFirst(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{})
	props := func(table string) map[string]string {
		var m struct {
			Metadata struct {
				Properties map[string]string `json:"properties"`
			} `json:"metadata"`
		}
		h.do(http.MethodGet, "/v1/namespaces/samples/tables/"+table, nil).decode(t, &m)
		return m.Metadata.Properties
	}
	change := func(table, req string) string {
		return fmt.Sprintf(`{"identifier":{"namespace":["samples"],"name":%q},"requirements":[%s],"updates":[{"action":"set-properties","updates":{"tx":"1"}}]}`, table, req)
	}
	bad := `{"type":"assert-current-schema-id","current-schema-id":99}`
	r := h.do(http.MethodPost, "/v1/transactions/commit", `{"table-changes":[`+change("trips", "")+`,`+change("history", bad)+`]}`)
	expect(t, "transaction with a failing requirement", r, http.StatusConflict, "CommitFailedException")
	if props("trips")["tx"] != "" || props("history")["tx"] != "" {
		t.Fatal("a failed transaction changed a table")
	}
	r = h.do(http.MethodPost, "/v1/transactions/commit", `{"table-changes":[`+change("trips", "")+`,`+change("history", "")+`]}`)
	expect(t, "transaction", r, http.StatusNoContent, "")
	if props("trips")["tx"] != "1" || props("history")["tx"] != "1" {
		t.Fatal("a transaction missed a table")
	}
	expect(t, "same table twice", h.do(http.MethodPost, "/v1/transactions/commit", `{"table-changes":[`+change("trips", "")+`,`+change("trips", "")+`]}`), http.StatusBadRequest, "BadRequestException")
}

func TestPagesCoverEveryTableOnce(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{})
	var all listTablesResponse
	h.do(http.MethodGet, "/v1/namespaces/samples/tables", nil).decode(t, &all)
	if len(all.Identifiers) < 5 || all.NextPageToken != nil {
		t.Fatalf("unpaged listing: %+v", all)
	}
	var got []tableIdentifier
	token := ""
	for pages := 0; ; pages++ {
		if pages > len(all.Identifiers) {
			t.Fatal("paging does not end")
		}
		q := "?pageSize=2"
		if token != "" {
			q += "&pageToken=" + url.QueryEscape(token)
		}
		var page listTablesResponse
		r := h.do(http.MethodGet, "/v1/namespaces/samples/tables"+q, nil)
		expect(t, "page", r, http.StatusOK, "")
		r.decode(t, &page)
		if len(page.Identifiers) > 2 {
			t.Fatalf("page of %d", len(page.Identifiers))
		}
		got = append(got, page.Identifiers...)
		if page.NextPageToken == nil {
			break
		}
		token = *page.NextPageToken
	}
	if !slices.EqualFunc(got, all.Identifiers, func(a, b tableIdentifier) bool { return a.Name == b.Name && slices.Equal(a.Namespace, b.Namespace) }) {
		t.Fatalf("pages %v, want %v", got, all.Identifiers)
	}
}

// TestCatalogOperationsTheDirectoryLacks checks that what a Hadoop-style
// directory cannot do is 406, as Iceberg Java's server answers it, and
// that what it can (register) works through the API.
func TestCatalogOperationsTheDirectoryLacks(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{})
	expect(t, "rename", h.do(http.MethodPost, "/v1/tables/rename",
		`{"source":{"namespace":["samples"],"name":"trips"},"destination":{"namespace":["samples"],"name":"trips2"}}`), http.StatusNotAcceptable, "UnsupportedOperationException")
	expect(t, "properties", h.do(http.MethodPost, "/v1/namespaces/samples/properties", `{"removals":[],"updates":{"a":"b"}}`), http.StatusNotAcceptable, "UnsupportedOperationException")
	var ns namespaceBody
	h.do(http.MethodGet, "/v1/namespaces/samples", nil).decode(t, &ns)
	if ns.Properties["location"] == "" {
		t.Errorf("namespace properties %v lack the location", ns.Properties)
	}

	var trips struct {
		MetadataLocation string `json:"metadata-location"`
	}
	h.do(http.MethodGet, "/v1/namespaces/samples/tables/trips", nil).decode(t, &trips)
	expect(t, "create db", h.do(http.MethodPost, "/v1/namespaces", `{"namespace":["db"]}`), http.StatusOK, "")
	// A directory refuses another table's metadata file whoever asks.
	expect(t, "register another table's file", h.do(http.MethodPost, "/v1/namespaces/db/register",
		fmt.Sprintf(`{"name":"copy","metadata-location":%q}`, trips.MetadataLocation)), http.StatusForbidden, "ForbiddenException")
	expect(t, "register a table again", h.do(http.MethodPost, "/v1/namespaces/samples/register",
		fmt.Sprintf(`{"name":"trips","metadata-location":%q}`, trips.MetadataLocation)), http.StatusConflict, "AlreadyExistsException")
	expect(t, "register with overwrite", h.do(http.MethodPost, "/v1/namespaces/db/register",
		fmt.Sprintf(`{"name":"copy","metadata-location":%q,"overwrite":true}`, trips.MetadataLocation)), http.StatusNotAcceptable, "UnsupportedOperationException")
}

func TestRegisterNeedsEveryNamespace(t *testing.T) {
	t.Parallel()
	h := authServer(t)
	h.token = writerToken
	expect(t, "register by a namespace writer", h.do(http.MethodPost, "/v1/namespaces/samples/register",
		`{"name":"copy","metadata-location":"/tmp/x/metadata/v1.metadata.json"}`), http.StatusForbidden, "ForbiddenException")
}
