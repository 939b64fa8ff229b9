package actions

// Refresh makes the server look up a table's current metadata file now
// instead of at its next refresh interval. It takes a TableRequest, or an
// empty body for every table the caller may read, and answers one
// RefreshResult.
const Refresh = "refresh"

// RefreshResult is the answer of refresh.
type RefreshResult struct {
	// Refreshed is false when the server's catalog keeps no cache.
	Refreshed bool `json:"refreshed"`
}
