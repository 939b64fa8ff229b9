// Package hostile is the adversarial suite of issue 15, run against a real
// flightd process as an attacker and a careless operator would: tables
// whose metadata names files outside the warehouse, symlinks, sparse
// giants, FIFOs and corrupt files, and requests built to exhaust the
// parser, the planner or the process (make test-hostile).
//
// Every test starts its own flightd on loopback with a fresh warehouse in
// a temporary folder and bearer tokens for namespaces a and b, and checks
// after each attack that the process is still alive, still serves a
// normal read, stayed under a peak RSS bound, answered with the gRPC code
// the issue names and handed out no row and no byte of a file the caller
// may not see.
package hostile
