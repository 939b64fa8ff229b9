package client

import (
	"errors"
	"fmt"
	"strings"
)

// ErrEndpointUnavailable reports an endpoint none of whose locations could
// serve it. The error also wraps each location's gRPC status, so
// status.Code gives codes.Unavailable.
var ErrEndpointUnavailable = errors.New("no location could serve the endpoint")

// ErrSchemaMismatch reports a stream whose batches do not have the schema
// the plan announced.
var ErrSchemaMismatch = errors.New("stream schema differs from the plan's")

// ErrClosed reports a call on a closed Client.
var ErrClosed = errors.New("client is closed")

// withTable names table in err unless the server's message already does.
// The gRPC status stays reachable through errors.As and status.Code.
func withTable(table string, err error) error {
	if err == nil || table == "" || strings.Contains(err.Error(), table) {
		return err
	}
	return fmt.Errorf("table %s: %w", table, err)
}

// ErrResumeDiverged reports a stream, redeemed again after a break, that
// ended before the rows already delivered: the ticket's stream was not the
// same at both locations, so the rows cannot be delivered exactly once.
var ErrResumeDiverged = errors.New("resumed stream differs from the broken one")
