package main

import (
	"path/filepath"
	"testing"
)

// sparkWriterDir holds the tables Apache Spark wrote (tools/sparkgen) and,
// under expected/, the Java oracle's rows of them.
var sparkWriterDir = filepath.Join("..", "..", "testdata", "writers", "spark")

// TestSparkWriterConformanceMatchesJavaOracle reads every table of the spark
// writer through a real flightd: Spark's merge-on-read deletes, deletion
// vectors, hidden partitioning, schema evolution and its ORC and Avro files
// must read back as Iceberg Java reads them.
func TestSparkWriterConformanceMatchesJavaOracle(t *testing.T) {
	tl := compareWithOracle(t, sparkWriterDir, filepath.Join(sparkWriterDir, "expected"))
	printTally("writers spark", tl)
	if tl.scans == 0 || tl.scansEqual != tl.scans {
		t.Errorf("every scan of the spark writer's tables must read back equal: %s", tl)
	}
}
