// Command diffscan writes the differential seed set of issue 15: seeded
// random scans of the sample warehouse and the conformance corpus with the
// Java oracle's answers (testdata/diffscan), and refreshes the answers of
// the saved regression cases. "make diffscan-expected" runs it.
//
//	go run ./tests/diffscan/cmd/diffscan [-jar J] [-out DIR] [-warehouse W] [-corpus C]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/iceflight/iceflight/tests/diffscan"
)

// set is one warehouse of the seed set.
type set struct {
	name, root, expected string
	seed                 uint64
	scans                int
}

func main() {
	jar := flag.String("jar", "tools/javaref/target/javaref.jar", "the javaref jar (mvn -f tools/javaref/pom.xml package)")
	out := flag.String("out", "testdata/diffscan", "folder of the seed files and regressions")
	warehouse := flag.String("warehouse", "testdata/warehouse", "the sample warehouse")
	corpus := flag.String("corpus", filepath.Join("..", "shared", "conformance", "tables"), "the conformance corpus (skipped when absent)")
	nWarehouse := flag.Int("warehouse-scans", 800, "scans of the sample warehouse")
	nCorpus := flag.Int("corpus-scans", 1400, "scans of the conformance corpus")
	flag.Parse()
	sets := []set{
		{"warehouse", *warehouse, "testdata/expected", 1, *nWarehouse},
		{"conformance", *corpus, "testdata/conformance", 2, *nCorpus},
	}
	for _, s := range sets {
		if err := write(context.Background(), *jar, *out, s); err != nil {
			fmt.Fprintf(os.Stderr, "diffscan: %s: %v\n", s.name, err)
			os.Exit(1)
		}
	}
}

func write(ctx context.Context, jar, out string, s set) error {
	if _, err := os.Stat(s.root); err != nil {
		fmt.Printf("diffscan: %s: %s absent, its seed file is left as is\n", s.name, s.root)
		return nil
	}
	tables, err := diffscan.LoadTables(s.root, s.expected)
	if err != nil {
		return err
	}
	oracle := &diffscan.Oracle{Jar: jar, Root: s.root}
	cases, err := oracle.Answer(ctx, diffscan.Generate(tables, s.seed, s.scans))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := diffscan.WriteSeeds(diffscan.SeedFile(out, s.name), cases); err != nil {
		return err
	}
	failed := 0
	for _, c := range cases {
		if c.Oracle.Error != "" {
			failed++
		}
	}
	fmt.Printf("diffscan: %s: %d scans of %d tables, %d the oracle refused\n", s.name, len(cases), len(tables), failed)
	return refreshRegressions(ctx, oracle, diffscan.RegressionDir(out, s.name))
}

// refreshRegressions has the oracle answer the saved regression scans
// again: the tables they read may have been regenerated.
func refreshRegressions(ctx context.Context, oracle *diffscan.Oracle, dir string) error {
	saved, err := diffscan.ReadRegressions(dir)
	if err != nil || len(saved) == 0 {
		return err
	}
	scans := make([]diffscan.Scan, len(saved))
	for i := range saved {
		scans[i] = saved[i].Scan
	}
	cases, err := oracle.Answer(ctx, scans)
	if err != nil {
		return err
	}
	for i := range cases {
		if err := diffscan.WriteRegression(dir, &cases[i]); err != nil {
			return err
		}
	}
	fmt.Printf("diffscan: %d regression cases answered again in %s\n", len(cases), dir)
	return nil
}
