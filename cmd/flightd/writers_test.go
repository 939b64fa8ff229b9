package main

import (
	"path/filepath"
	"testing"
)

// writers are the folders of testdata/writers: tables written by other
// writers than iceflight (tools/pywriters/generate.sh, tools/sparkgen/run.sh), each with the Java
// oracle's rows in testdata/expected-writers.
var writers = []string{"java", "pyiceberg", "pyarrow-add_files", "spark"}

// TestConformanceWritersMatchJavaOracle reads every writer's tables through
// a real flightd, one warehouse per writer, and prints a tally per writer:
// every scan must equal the oracle's.
func TestConformanceWritersMatchJavaOracle(t *testing.T) {
	for _, w := range writers {
		t.Run(w, func(t *testing.T) {
			tl := compareWithOracle(t,
				filepath.Join("..", "..", "testdata", "writers", w),
				filepath.Join("..", "..", "testdata", "expected-writers", w))
			// make conformance keeps the lines that start with "conformance".
			printTally("conformance writers "+w, tl)
			if tl.tables == 0 || tl.scansEqual != tl.scans {
				t.Errorf("every scan of the %s tables must read back equal: %s", w, tl)
			}
		})
	}
}
