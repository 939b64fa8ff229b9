package restcatalog

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"
)

// planAnswer is what the tests read of a planning answer.
type planAnswer struct {
	Status        string            `json:"status"`
	PlanID        string            `json:"plan-id"`
	PlanTasks     []string          `json:"plan-tasks"`
	FileScanTasks []json.RawMessage `json:"file-scan-tasks"`
	DeleteFiles   []json.RawMessage `json:"delete-files"`
}

// filePaths returns the data file paths of file scan tasks.
func filePaths(t *testing.T, tasks []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, raw := range tasks {
		var task struct {
			DataFile struct {
				FilePath string `json:"file-path"`
			} `json:"data-file"`
		}
		if err := json.Unmarshal(raw, &task); err != nil {
			t.Fatal(err)
		}
		out = append(out, task.DataFile.FilePath)
	}
	slices.Sort(out)
	return out
}

// TestPlanPagesAndPolls plans one table three ways (in one answer, in
// pages of plan tasks, and asynchronously) and checks they name the same
// files, each once.
func TestPlanPagesAndPolls(t *testing.T) {
	t.Parallel()
	const path = "/v1/namespaces/samples/tables/dv_many_files"
	whole := serve(t, serverConfig{})
	var inline planAnswer
	r := whole.do(http.MethodPost, path+"/plan", `{}`)
	expect(t, "plan", r, http.StatusOK, "")
	r.decode(t, &inline)
	want := filePaths(t, inline.FileScanTasks)
	if inline.Status != "completed" || len(want) < 3 || len(inline.PlanTasks) != 0 || len(inline.DeleteFiles) == 0 {
		t.Fatalf("inline plan: %s", r.body)
	}

	paged := serve(t, serverConfig{opts: []Option{func(s *Server) { s.plans.pageTasks = 2 }}})
	var first planAnswer
	paged.do(http.MethodPost, path+"/plan", `{}`).decode(t, &first)
	if first.Status != "completed" || len(first.FileScanTasks) != 0 || len(first.PlanTasks) != (len(want)+1)/2 {
		t.Fatalf("paged plan: %+v", first)
	}
	var got []string
	for _, task := range first.PlanTasks {
		var page planAnswer
		r := paged.do(http.MethodPost, path+"/tasks", map[string]string{"plan-task": task})
		expect(t, "fetch "+task, r, http.StatusOK, "")
		r.decode(t, &page)
		if len(page.FileScanTasks) > 2 {
			t.Errorf("page of %d tasks", len(page.FileScanTasks))
		}
		got = append(got, filePaths(t, page.FileScanTasks)...)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("pages name %v, the whole plan %v", got, want)
	}
	expect(t, "a plan task of another table", paged.do(http.MethodPost, "/v1/namespaces/samples/tables/trips/tasks",
		map[string]string{"plan-task": first.PlanTasks[0]}), http.StatusNotFound, "NoSuchPlanIdException")

	async := serve(t, serverConfig{opts: []Option{WithPlanWait(0)}})
	var submitted planAnswer
	async.do(http.MethodPost, path+"/plan", `{}`).decode(t, &submitted)
	if submitted.PlanID == "" {
		t.Fatalf("async plan: %+v", submitted)
	}
	deadline := time.Now().Add(time.Minute)
	for submitted.Status == "submitted" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		async.do(http.MethodGet, path+"/plan/"+submitted.PlanID, nil).decode(t, &submitted)
	}
	if submitted.Status != "completed" || !slices.Equal(filePaths(t, submitted.FileScanTasks), want) {
		t.Fatalf("polled plan: %+v", submitted)
	}
	expect(t, "cancel", async.do(http.MethodDelete, path+"/plan/"+submitted.PlanID, nil), http.StatusNoContent, "")
	expect(t, "fetch a cancelled plan", async.do(http.MethodGet, path+"/plan/"+submitted.PlanID, nil), http.StatusNotFound, "NoSuchPlanIdException")
}

// TestPlanRequestReachesThePlanner checks the request's members: a filter
// prunes files, snapshot-id selects an older snapshot, an incremental
// range plans the appended files.
func TestPlanRequestReachesThePlanner(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{})
	const path = "/v1/namespaces/samples/tables/history"
	var md struct {
		Metadata struct {
			Snapshots []struct {
				ID      int64             `json:"snapshot-id"`
				Summary map[string]string `json:"summary"`
			} `json:"snapshots"`
		} `json:"metadata"`
	}
	h.do(http.MethodGet, path, nil).decode(t, &md)
	snaps := md.Metadata.Snapshots
	if len(snaps) < 2 {
		t.Fatalf("history has %d snapshots", len(snaps))
	}
	plan := func(body string) planAnswer {
		t.Helper()
		var a planAnswer
		r := h.do(http.MethodPost, path+"/plan", body)
		expect(t, body, r, http.StatusOK, "")
		r.decode(t, &a)
		return a
	}
	all := filePaths(t, plan(`{}`).FileScanTasks)
	none := plan(`{"filter":false}`)
	if len(none.FileScanTasks) != 0 {
		t.Errorf("filter false planned %d files", len(none.FileScanTasks))
	}
	old := filePaths(t, plan(`{"snapshot-id":`+itoa(snaps[0].ID)+`}`).FileScanTasks)
	if len(old) == 0 || len(old) > len(all) {
		t.Errorf("first snapshot plans %d files, current %d", len(old), len(all))
	}
	// The files appended after the first snapshot are in the current plan
	// or were removed since; together with the first they are never fewer
	// than the first.
	inc := plan(`{"start-snapshot-id":` + itoa(snaps[0].ID) + `,"end-snapshot-id":` + itoa(snaps[len(snaps)-1].ID) + `}`)
	for _, p := range filePaths(t, inc.FileScanTasks) {
		if slices.Contains(old, p) {
			t.Errorf("incremental plan holds %s of the start snapshot", p)
		}
	}
	expect(t, "end before start", h.do(http.MethodPost, path+"/plan", `{"start-snapshot-id":`+itoa(snaps[len(snaps)-1].ID)+`,"end-snapshot-id":`+itoa(snaps[0].ID)+`}`), http.StatusBadRequest, "BadRequestException")
	expect(t, "start without end", h.do(http.MethodPost, path+"/plan", `{"start-snapshot-id":1}`), http.StatusBadRequest, "BadRequestException")
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestPlanSelectTakesJavasFieldNames plans with the select Iceberg Java
// sends, every leaf as TypeUtil.indexByName names it.
func TestPlanSelectTakesJavasFieldNames(t *testing.T) {
	t.Parallel()
	h := serve(t, serverConfig{})
	const path = "/v1/namespaces/samples/tables/all_types/plan"
	var a planAnswer
	r := h.do(http.MethodPost, path, `{"select":["id","c_struct.a","c_list.element","c_map.key","c_map.value","c_list_struct.element.x","C_INT"],"case-sensitive":false}`)
	expect(t, "select of leaves", r, http.StatusOK, "")
	r.decode(t, &a)
	if a.Status != "completed" || len(a.FileScanTasks) == 0 {
		t.Fatalf("plan: %s", r.body)
	}
	expect(t, "a leaf that is not there", h.do(http.MethodPost, path, `{"select":["c_list.nope"]}`), http.StatusBadRequest, "BadRequestException")
	expect(t, "case matters by default", h.do(http.MethodPost, path, `{"select":["C_INT"]}`), http.StatusBadRequest, "BadRequestException")
}
