// Command decoders decodes every column of Parquet files with one of three
// Go decoders, side by side on the same files, and prints each one's CPU
// seconds per read as rows of a Markdown table: iceflight's pqcodec and arrow-go's
// pqarrow into Arrow arrays, and parquet-go into Go slices through its
// typed value readers (its cheapest read; it builds no Arrow arrays, so
// its figure is a floor for what it would cost iceflight).
//
//	decoders [-decoder all|pqcodec|pqarrow|parquetgo] [-runs 3] FILE...
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqgo "github.com/parquet-go/parquet-go"

	"github.com/iceflight/iceflight/pqcodec"
	"github.com/iceflight/iceflight/reader"
)

// mem serves the Arrow decoders as flightd's reader serves them: a pool
// that recycles the buffers of released arrays, so that neither pays the
// Go allocator's zeroing and garbage collection of fresh buffers per batch.
var mem = reader.NewPoolAllocator()

const batchRows = 64 << 10

func main() {
	decoder := flag.String("decoder", "all", "pqcodec, pqarrow, parquetgo, or all of them one after another")
	runs := flag.Int("runs", 3, "timed reads after one warm-up")
	flag.Parse()
	decoders := map[string]func([]byte) (int64, error){
		"pqcodec": readPqcodec, "pqarrow": readPqarrow, "parquetgo": readParquetGo,
	}
	names := []string{*decoder}
	if *decoder == "all" {
		names = []string{"pqcodec", "pqarrow", "parquetgo"}
	}
	if _, ok := decoders[names[0]]; !ok || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var files [][]byte
	for _, path := range flag.Args() {
		raw, err := os.ReadFile(path)
		if err != nil {
			fail(err)
		}
		files = append(files, raw)
	}
	fmt.Println("| decoder | rows | CPU-s per read | wall s per read | CPU / pqcodec's |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	var base float64
	for _, name := range names {
		rows, cpu, wall := measure(decoders[name], files, *runs)
		if base == 0 {
			base = cpu
		}
		fmt.Printf("| %s | %d | %.3f | %.3f | %.2f× |\n", name, rows, cpu, wall, cpu/base)
	}
}

// measure reads every file once to warm up, then runs times, and returns
// the rows of a read and its CPU and wall seconds.
func measure(read func([]byte) (int64, error), files [][]byte, runs int) (rows int64, cpu, wall float64) {
	readAll := func() {
		rows = 0
		for _, raw := range files {
			n, err := read(raw)
			if err != nil {
				fail(err)
			}
			rows += n
		}
	}
	readAll()
	// The garbage of the decoder before is not this one's to collect.
	runtime.GC()
	cpu0, wall0 := cpuSeconds(), time.Now()
	for range runs {
		readAll()
	}
	return rows, (cpuSeconds() - cpu0) / float64(runs), time.Since(wall0).Seconds() / float64(runs)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "decoders:", err)
	os.Exit(1)
}

// cpuSeconds is this process's user and system time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// readPqcodec decodes every column chunk with pqcodec, in batches, as the
// reader does; a chunk pqcodec does not cover is an error here.
func readPqcodec(raw []byte) (int64, error) {
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		return 0, err
	}
	md := pf.MetaData()
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range md.Schema.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return 0, err
			}
			off, n := pqcodec.ChunkRange(md, cc)
			cr, err := pqcodec.NewColumnReader(mem, bytes.NewReader(raw), raw[off:off+n], md, cc,
				md.Schema.Column(c), fr.Manifest.Fields[c].Field.Type)
			if err != nil {
				return 0, err
			}
			for left := rg.NumRows(); left > 0; {
				k := min(left, batchRows)
				a, err := cr.Read(int(k))
				if err != nil {
					return 0, err
				}
				a.Release()
				left -= k
			}
			cr.Release()
		}
	}
	return md.NumRows, nil
}

// readPqarrow decodes every column with pqarrow's record reader, as the
// reader did before pqcodec.
func readPqarrow(raw []byte) (int64, error) {
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batchRows}, mem)
	if err != nil {
		return 0, err
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	var rows int64
	for rr.Next() {
		rows += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return 0, err
	}
	return rows, nil
}

// readParquetGo decodes every page with parquet-go and reads its values
// through the typed readers into reused slices.
func readParquetGo(raw []byte) (int64, error) {
	pf, err := pqgo.OpenFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return 0, err
	}
	var (
		i32 = make([]int32, batchRows)
		i64 = make([]int64, batchRows)
		f32 = make([]float32, batchRows)
		f64 = make([]float64, batchRows)
		bls = make([]bool, batchRows)
		bin = make([]byte, 4<<20)
		val = make([]pqgo.Value, 4096)
	)
	for _, rg := range pf.RowGroups() {
		for _, cc := range rg.ColumnChunks() {
			pages := cc.Pages()
			for {
				p, err := pages.ReadPage()
				if err == io.EOF {
					break
				}
				if err != nil {
					pages.Close()
					return 0, err
				}
				err = drain(p.Values(), i32, i64, f32, f64, bls, bin, val)
				pqgo.Release(p)
				if err != nil {
					pages.Close()
					return 0, err
				}
			}
			pages.Close()
		}
	}
	return pf.NumRows(), nil
}

// drain reads every value of a page with the cheapest reader it offers.
func drain(r pqgo.ValueReader, i32 []int32, i64 []int64, f32 []float32, f64 []float64, bls []bool, bin []byte, val []pqgo.Value) error {
	for {
		var err error
		switch r := r.(type) {
		case pqgo.Int32Reader:
			_, err = r.ReadInt32s(i32)
		case pqgo.Int64Reader:
			_, err = r.ReadInt64s(i64)
		case pqgo.FloatReader:
			_, err = r.ReadFloats(f32)
		case pqgo.DoubleReader:
			_, err = r.ReadDoubles(f64)
		case pqgo.BooleanReader:
			_, err = r.ReadBooleans(bls)
		case pqgo.ByteArrayReader:
			_, err = r.ReadByteArrays(bin)
		default:
			_, err = r.ReadValues(val)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
