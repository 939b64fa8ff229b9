package testutil

import (
	"syscall"
	"time"
)

// CPUTime is the process's user and system CPU time so far. Benchmarks
// report it per operation: on a shared machine, and for work that runs
// goroutines, it says more than wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
