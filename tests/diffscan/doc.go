// Package diffscan is the differential test of the whole read path (issue
// 15, "Prove it"): it generates random scans of a warehouse from a seed
// (column subsets, filters from the REST expression grammar, snapshots by
// id, ref and time, limits, split and batch sizes), has the Apache Iceberg
// Java oracle answer them, and stores scan and answer together as a case.
// The comparison with a running flightd lives in cmd/flightd's tests; the
// generation of the checked-in seed set is "go run ./tests/diffscan/cmd/diffscan".
package diffscan
