package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/hdfs"
	"github.com/iceflight/iceflight/testkit/servers/azurite"
	"github.com/iceflight/iceflight/testkit/servers/fakegcs"
	"github.com/iceflight/iceflight/testkit/servers/minidfs"
	"github.com/iceflight/iceflight/testkit/servers/versitygw"
)

// storageColumnsTable is the sample table whose data files the storage
// columns test reads: five files, one per day partition.
const storageColumnsTable = "samples.events_by_day"

// servedFile is what flightd served of one data file in the _size, _time
// and _etag columns.
type servedFile struct {
	size int64
	mod  time.Time
	etag string
	// rows counts the rows that carried these values.
	rows int
}

// TestStorageColumnsAreWhatEachStoreSays reads the _file, _size, _time and
// _etag columns of a sample table through a real flightd from each storage
// back end, the table relocated below movedPrefix, and checks every data
// file's values against the store's own answer, asked without fileio (an
// S3 HEAD, Azure's blob properties, GCS's JSON metadata, the NameNode's
// status, a stat of the local file), and its size against the file's.
func TestStorageColumnsAreWhatEachStoreSays(t *testing.T) {
	t.Parallel()
	ns, table, _ := strings.Cut(storageColumnsTable, ".")
	src := filepath.Join(sampleWarehouse, ns, table)
	// key is the path below the store's root of the copy of the data file
	// recorded at file.
	key := func(t *testing.T, file string) string {
		_, rel, ok := strings.Cut(file, "/"+ns+"/"+table+"/")
		if !ok {
			t.Fatalf("_file %s is not below the table's folder", file)
		}
		return movedPrefix + "/" + ns + "/" + table + "/" + rel
	}
	for _, store := range []struct {
		name string
		// serve starts the store with the table and returns the
		// properties of a directory catalog on it and a Stat of a key.
		serve func(t *testing.T) (fileio.Properties, func(key string) fileio.Info)
	}{
		{"s3", func(t *testing.T) (fileio.Properties, func(string) fileio.Info) {
			s := versitygw.Start(t)
			s.CreateBucket(t, "lake")
			s.Upload(t, src, "lake", movedPrefix+"/"+ns+"/"+table)
			props := s.Props()
			props["type"], props["warehouse"] = "directory", "s3://lake/"+movedPrefix
			return props, func(k string) fileio.Info { return s.Stat(t, "lake", k) }
		}},
		{"gcs", func(t *testing.T) (fileio.Properties, func(string) fileio.Info) {
			s := fakegcs.Start(t)
			s.CreateBucket(t, "lake")
			s.Upload(t, src, "lake", movedPrefix+"/"+ns+"/"+table)
			props := s.Props()
			props["type"], props["warehouse"] = "directory", "gs://lake/"+movedPrefix
			return props, func(k string) fileio.Info { return s.Stat(t, "lake", k) }
		}},
		{"azure", func(t *testing.T) (fileio.Properties, func(string) fileio.Info) {
			s := azurite.Start(t)
			s.CreateContainer(t, "lake")
			s.Upload(t, src, "lake", movedPrefix+"/"+ns+"/"+table)
			props := s.Props()
			props["type"], props["warehouse"] = "directory", azurite.Location("lake", movedPrefix)
			return props, func(k string) fileio.Info { return s.Stat(t, "lake", k) }
		}},
		{"hdfs", func(t *testing.T) (fileio.Properties, func(string) fileio.Info) {
			s := minidfs.Start(t)
			fio := hdfs.New(hdfs.Config{Timeout: 10 * time.Second})
			t.Cleanup(func() { fio.Close() })
			if err := s.Upload(context.Background(), fio, src, "/"+movedPrefix+"/"+ns+"/"+table); err != nil {
				t.Fatal(err)
			}
			return fileio.Properties{"type": "directory", "warehouse": s.URL("/" + movedPrefix)}, func(k string) fileio.Info {
				st, err := s.Stat("/" + k)
				if err != nil {
					t.Fatal(err)
				}
				return fileio.Info{ModTime: st.ModTime()}
			}
		}},
		{"local", func(t *testing.T) (fileio.Properties, func(string) fileio.Info) {
			dir := t.TempDir()
			if err := os.CopyFS(filepath.Join(dir, movedPrefix, ns, table), os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			return fileio.Properties{"type": "directory", "warehouse": filepath.Join(dir, movedPrefix)}, func(k string) fileio.Info {
				st, err := os.Stat(filepath.Join(dir, k))
				if err != nil {
					t.Fatal(err)
				}
				return fileio.Info{ModTime: st.ModTime()}
			}
		}},
	} {
		t.Run(store.name, func(t *testing.T) {
			t.Parallel()
			props, stat := store.serve(t)
			client, _ := serveConfigured(t, map[string]fileio.Properties{store.name: props})
			served := serveStorageColumns(t, client, store.name+"."+storageColumnsTable)
			if len(served) != 5 {
				t.Errorf("%d data files served, want the table's 5", len(served))
			}
			for file, got := range served {
				k := key(t, file)
				local, err := os.Stat(filepath.Join(src, strings.TrimPrefix(k, movedPrefix+"/"+ns+"/"+table+"/")))
				if err != nil {
					t.Fatal(err)
				}
				want := stat(k)
				if got.size != local.Size() || !got.mod.Equal(want.ModTime.Truncate(time.Microsecond)) || got.etag != want.ETag {
					t.Errorf("%s: _size %d, _time %v, _etag %q over %d rows; the file has %d bytes and the store says %v, %q",
						file, got.size, got.mod, got.etag, got.rows, local.Size(), want.ModTime, want.ETag)
				}
			}
		})
	}
}

// serveStorageColumns scans the table through client for its storage
// columns and returns what was served for each _file; every row of one
// file must carry the same values.
func serveStorageColumns(t *testing.T, client flight.Client, table string) map[string]*servedFile {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd, _ := json.Marshal(map[string]any{"table": table, "columns": []string{"_file", "_size", "_time", "_etag"}})
	info, err := client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	out := map[string]*servedFile{}
	for _, ep := range info.Endpoint {
		stream, err := client.DoGet(ctx, ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := flight.NewRecordReader(stream, ipc.WithAllocator(mem))
		if err != nil {
			t.Fatal(err)
		}
		for rdr.Next() {
			rec := rdr.RecordBatch()
			if !arrow.TypeEqual(rec.Column(2).DataType(), &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}) {
				t.Fatalf("_time is %s, want timestamp[us, tz=UTC]", rec.Column(2).DataType())
			}
			files, sizes := rec.Column(0).(*array.String), rec.Column(1).(*array.Int64)
			times, etags := rec.Column(2).(*array.Timestamp), rec.Column(3).(*array.String)
			for i := range int(rec.NumRows()) {
				got := servedFile{size: sizes.Value(i)}
				if times.IsValid(i) {
					got.mod = time.UnixMicro(int64(times.Value(i)))
				}
				if etags.IsValid(i) {
					got.etag = etags.Value(i)
				}
				prev := out[files.Value(i)]
				if prev == nil {
					prev = &got
					out[files.Value(i)] = prev
				} else if prev.size != got.size || !prev.mod.Equal(got.mod) || prev.etag != got.etag {
					t.Errorf("%s: rows disagree: %+v and %+v", files.Value(i), *prev, got)
				}
				prev.rows++
			}
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}
