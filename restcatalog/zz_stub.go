package restcatalog

import "net/http"

type scanTasks struct {
	PlanTasks []string `json:"plan-tasks,omitempty"`
}

func (s *Server) planTableScan(req *request, w http.ResponseWriter) error { return errNotImplemented }
func (s *Server) fetchPlanningResult(req *request, w http.ResponseWriter) error {
	return errNotImplemented
}
func (s *Server) cancelPlanning(req *request, w http.ResponseWriter) error { return errNotImplemented }
func (s *Server) fetchScanTasks(req *request, w http.ResponseWriter) error { return errNotImplemented }
