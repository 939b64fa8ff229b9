// Package cluster starts real flightd processes and an nginx gRPC load
// balancer on loopback, for the cluster integration test in this folder
// (make test-cluster) and the load test in bench/loadtest (make loadtest).
//
// Every process runs in its own process group and is killed with its
// children when the test or program that started it stops it; on Linux a
// process also dies with the one that started it, so a crashed test leaves
// nothing running.
package cluster
