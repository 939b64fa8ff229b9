package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/hdfs"
	"github.com/iceflight/iceflight/testkit/servers/azurite"
	"github.com/iceflight/iceflight/testkit/servers/fakegcs"
	"github.com/iceflight/iceflight/testkit/servers/minidfs"
)

// storageSample is the part of the sample warehouse each storage back end
// serves through flightd: position deletes across row groups, equality
// deletes over an evolved schema, a partitioned table and schema
// evolution. All were written by Iceberg Java; their rows by its oracle.
var storageSample = []string{"samples.pos_deletes_rowgroups", "samples.eq_deletes_evolved", "samples.events_by_day", "samples.evolved"}

// movedPrefix is where the sample is uploaded inside a bucket or
// container: not where its metadata says it was written, so that every
// read goes through the directory catalog's relocation.
const movedPrefix = "moved/wh"

// expectedDir is the oracle's output for the sample warehouse.
var expectedDir = filepath.Join("..", "..", "testdata", "expected")

// catalogYAML is a --config file mounting each catalog of cats (by name:
// its properties, by PyIceberg's names). Values are double-quoted, so a
// key's "+" or "=" stays a string.
func catalogYAML(cats map[string]fileio.Properties) string {
	var b strings.Builder
	b.WriteString("catalogs:\n")
	for _, name := range slices.Sorted(maps.Keys(cats)) {
		fmt.Fprintf(&b, "  %s:\n", name)
		for _, k := range slices.Sorted(maps.Keys(cats[name])) {
			fmt.Fprintf(&b, "    %s: %s\n", k, strconv.Quote(cats[name][k]))
		}
	}
	return b.String()
}

// serveConfigured starts flightd in this process with cats as its
// --config and returns a Flight client of it and the server.
func serveConfigured(t *testing.T, cats map[string]fileio.Properties, extra ...string) (flight.Client, *server) {
	t.Helper()
	cfg := writeFile(t, "iceflight.yaml", catalogYAML(cats))
	s := startServe(t, append([]string{"--config", cfg, "--listen", "127.0.0.1:0"}, extra...)...)
	return dial(t, s.addr), s
}

// compareCatalogs compares the storage sample, served by client from each
// catalog of names, with the oracle, and prints one tally line labelled
// label for them all.
func compareCatalogs(t *testing.T, client flight.Client, label string, names ...string) {
	t.Helper()
	total := &tally{unsupportedWhy: map[string]int{}}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			tl := compareServed(t, client, name+".", expectedDir, storageSample)
			total.add(tl)
		})
	}
	printTally(label, total)
	if total.scansEqual != total.scans || total.tables != len(names)*len(storageSample) {
		t.Errorf("every sample scan must read back equal: %s", total)
	}
}

// add counts o's outcomes into t.
func (t *tally) add(o *tally) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tables += o.tables
	t.tablesEqual += o.tablesEqual
	t.scans += o.scans
	t.scansEqual += o.scansEqual
	t.unsupported += o.unsupported
	t.oracleFailed += o.oracleFailed
	for k, n := range o.unsupportedWhy {
		t.unsupportedWhy[k] += n
	}
}

// uploadSample uploads each table of the storage sample below prefix with
// put, as the servers' Upload methods do.
func uploadSample(upload func(dir, prefix string)) {
	for _, name := range storageSample {
		ns, table, _ := strings.Cut(name, ".")
		upload(filepath.Join(sampleWarehouse, ns, table), movedPrefix+"/"+ns+"/"+table)
	}
}

// gcsLake starts fake-gcs-server with the storage sample in bucket "lake"
// and returns it with the properties of a directory catalog on it.
func gcsLake(t *testing.T) (*fakegcs.Server, fileio.Properties) {
	t.Helper()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	uploadSample(func(dir, prefix string) { s.Upload(t, dir, "lake", prefix) })
	props := s.Props()
	props["type"], props["warehouse"] = "directory", "gs://lake/"+movedPrefix
	return s, props
}

// TestGCSSampleMatchesJavaOracle serves the storage sample from
// fake-gcs-server through a directory catalog on gs://, configured by
// PyIceberg's gcs.* properties.
func TestGCSSampleMatchesJavaOracle(t *testing.T) {
	t.Parallel()
	_, props := gcsLake(t)
	client, _ := serveConfigured(t, map[string]fileio.Properties{"gcs": props})
	compareCatalogs(t, client, "conformance gcs sample", "gcs")
}

// misrecordedTables are the corpus's tables whose metadata records a
// file size other than the file's length (its README lists them): a data
// file, a delete file, a manifest.
var misrecordedTables = []string{
	"apache-impala__iceberg_v2_delete_positional",
	"apache-impala__iceberg_v2_delete_equality_nulls",
	"apache-impala__iceberg_with_puffin_stats",
}

// TestMisrecordedSizesFromGCSMatchJavaOracle serves the corpus's tables
// with wrong recorded sizes from fake-gcs-server, relocated, and reads
// them equal to the Java oracle: the first ranged read of each such file
// finds the mismatch and the reader asks the store for the real length.
func TestMisrecordedSizesFromGCSMatchJavaOracle(t *testing.T) {
	t.Parallel()
	needCorpus(t, "misrecorded sizes gcs")
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	for _, name := range misrecordedTables {
		s.Upload(t, filepath.Join(conformanceDir, name), "lake", movedPrefix+"/"+name)
	}
	props := s.Props()
	props["type"], props["warehouse"] = "directory", "gs://lake/"+movedPrefix
	client, _ := serveConfigured(t, map[string]fileio.Properties{"gcs": props})
	tl := compareServed(t, client, "gcs.", filepath.Join("..", "..", "testdata", "conformance"), misrecordedTables)
	printTally("misrecorded sizes gcs", tl)
	if tl.tables != len(misrecordedTables) || tl.scansEqual != tl.scans {
		t.Errorf("every scan of the tables with wrong recorded sizes must read back equal: %s", tl)
	}
}

// TestAzureSampleMatchesJavaOracle serves the storage sample from Azurite
// through two directory catalogs over the same container, one with an
// abfss:// warehouse (Data Lake Gen2's name) and one with wasbs:// (the
// Blob service's), configured by PyIceberg's adls.* properties.
func TestAzureSampleMatchesJavaOracle(t *testing.T) {
	t.Parallel()
	s := azurite.Start(t)
	s.CreateContainer(t, "lake")
	uploadSample(func(dir, prefix string) { s.Upload(t, dir, "lake", prefix) })
	abfss, wasbs := s.Props(), s.Props()
	abfss["type"], abfss["warehouse"] = "directory", azurite.Location("lake", movedPrefix)
	wasbs["type"], wasbs["warehouse"] = "directory", "wasbs://lake@"+azurite.Account+".blob.core.windows.net/"+movedPrefix
	client, _ := serveConfigured(t, map[string]fileio.Properties{"abfss": abfss, "wasbs": wasbs})
	compareCatalogs(t, client, "conformance azure sample", "abfss", "wasbs")
}

// TestHDFSSampleMatchesJavaOracle serves the storage sample from a
// MiniDFSCluster through a directory catalog on hdfs://, as the cluster's
// superuser (hdfs.user).
func TestHDFSSampleMatchesJavaOracle(t *testing.T) {
	t.Parallel()
	s := minidfs.Start(t)
	t.Logf("MiniDFSCluster served after %v", s.StartUp)
	fio := hdfs.New(hdfs.Config{Timeout: 10 * time.Second})
	defer fio.Close()
	ctx := context.Background()
	uploadSample(func(dir, prefix string) {
		if err := s.Upload(ctx, fio, dir, "/"+prefix); err != nil {
			t.Fatal(err)
		}
	})
	props := fileio.Properties{"type": "directory", "warehouse": s.URL("/" + movedPrefix)}
	client, _ := serveConfigured(t, map[string]fileio.Properties{"hdfs": props})
	compareCatalogs(t, client, "conformance hdfs sample", "hdfs")
}
