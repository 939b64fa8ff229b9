// Package deletes holds the Go side of the row-level-delete read benchmark:
// BenchmarkRead reads the tables that `make bench-deletes` generates with the
// reader package alone (no Flight, no IPC), so that a CPU profile shows where
// the reader spends its time on each kind of delete. See README.md.
package deletes
