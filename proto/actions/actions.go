// Package actions defines the wire form of iceflight's DoAction and DoPut
// calls: the JSON body and JSON results of every action, and the JSON
// command and app_metadata result of a DoPut. It is the one definition
// that the server decodes and encodes and the Go client encodes and
// decodes, so the two cannot drift apart; the Python client is checked
// against it by the description in testdata/wire.json. It imports nothing
// of iceflight, so a client pulls in no server code.
//
// Request fields that a caller may leave out carry omitempty: the server
// reads an absent key as the field's zero value, which is also its
// default. The server refuses keys these types do not name.
package actions

// TableRequest is the body of the actions that name one table and take
// nothing else: snapshots, refs and refresh (where an empty body means
// every table).
type TableRequest struct {
	// Table is the dotted table name, "db.t".
	Table string `json:"table"`
}
