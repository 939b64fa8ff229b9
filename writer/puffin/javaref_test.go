package puffin_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/iceflight/iceflight/writer/puffin"
)

// TestJavaReadsDeletionVectors has Iceberg Java read a Puffin file we
// wrote: its PuffinReader checks the framing and footer, and
// PositionDeleteIndex.deserialize each blob's length, magic, CRC and
// cardinality; the positions Java decodes must be ours.
func TestJavaReadsDeletionVectors(t *testing.T) {
	t.Parallel()
	jar := os.Getenv("JAVAREF_JAR")
	if jar == "" {
		t.Skip("JAVAREF_JAR is not set")
	}
	loc := filepath.Join(t.TempDir(), "dv.puffin")
	vectors := []puffin.Vector{
		{DataFile: "s3://b/t/data/a.parquet", Positions: []int64{0, 1, 2, 3, 4, 5, 6, 7, 100, 65535, 65536}},
		{DataFile: "s3://b/t/data/b.parquet", Positions: []int64{9, 1 << 32, 1<<32 + 1, 1 << 40}},
	}
	// A run of positions, which run optimization turns into a run container.
	var run []int64
	for p := int64(1000); p < 5000; p++ {
		run = append(run, p)
	}
	vectors = append(vectors, puffin.Vector{DataFile: "s3://b/t/data/c.parquet", Positions: run})
	// Written in memory and copied out: the local FileIO may not create
	// files.
	_, files, data := write(t, vectors)
	if err := os.WriteFile(loc, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", "-jar", jar, "puffincheck", "--file", loc)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref puffincheck: %v\n%s", err, stderr.String())
	}
	var java struct {
		Properties map[string]string
		Blobs      []struct {
			Type             string
			Fields           []int
			SnapshotID       int64 `json:"snapshot-id"`
			SequenceNumber   int64 `json:"sequence-number"`
			Offset, Length   int64
			CompressionCodec *string `json:"compression-codec"`
			Properties       map[string]string
			Positions        []int64
		}
	}
	if err := json.Unmarshal(out, &java); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if java.Properties["created-by"] == "" {
		t.Errorf("Java sees no created-by: %v", java.Properties)
	}
	if len(java.Blobs) != len(vectors) {
		t.Fatalf("Java read %d blobs, want %d", len(java.Blobs), len(vectors))
	}
	for i, b := range java.Blobs {
		v, f := vectors[i], files[i]
		want := map[string]string{"referenced-data-file": v.DataFile, "cardinality": strconv.Itoa(len(v.Positions))}
		if b.Type != "deletion-vector-v1" || !reflect.DeepEqual(b.Fields, []int{2147483645}) || b.SnapshotID != -1 || b.SequenceNumber != -1 ||
			b.Offset != *f.ContentOffset || b.Length != *f.ContentSizeInBytes || b.CompressionCodec != nil || !reflect.DeepEqual(b.Properties, want) {
			t.Errorf("blob %d: Java read %+v, wrote %+v", i, b, f)
		}
		if !reflect.DeepEqual(b.Positions, v.Positions) {
			t.Errorf("blob %d: Java decoded %d positions, wrote %d", i, len(b.Positions), len(v.Positions))
		}
	}
}
