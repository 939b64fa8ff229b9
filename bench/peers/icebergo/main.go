// Command icebergo is the iceberg-go peer of the read benchmark (bench/read): it loads a
// table from its metadata file and times Scan.ToArrowTable, the whole read into memory
// including planning, as iceberg-go's users call it.
//
// With -prop s3.endpoint=... (PyIceberg's property names) it reads s3:// tables through
// iceberg-go's own S3 io.
//
// It prints one JSON object on stdout: {"rows": N, "seconds": [...], "peak_rss_mb": X},
// one entry per timed run after one untimed warm-up; the harness takes the median.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/io"
	_ "github.com/apache/iceberg-go/io/gocloud/s3" // registers s3:// for -prop s3.endpoint=...
	"github.com/apache/iceberg-go/table"
)

// result is what the harness reads from stdout.
type result struct {
	Rows      int64     `json:"rows"`
	Seconds   []float64 `json:"seconds"`
	PeakRSSMB float64   `json:"peak_rss_mb"`
}

func main() {
	metadata := flag.String("metadata", "", "path of the table's metadata JSON file")
	column := flag.String("date-column", "", "date column of the optional filter")
	from := flag.Int("from-day", 0, "filter: column >= this day (days since 1970-01-01)")
	to := flag.Int("to-day", 0, "filter: column < this day (days since 1970-01-01)")
	runs := flag.Int("runs", 3, "timed runs after one warm-up")
	write := flag.String("write", "", "write benchmark: append this Parquet file to a new table (bench/write)")
	warehouse := flag.String("warehouse", "", "write benchmark: the folder of the new table's SQL catalog")
	props := iceberg.Properties{}
	flag.Func("prop", "`KEY=VALUE` FileIO property (s3.endpoint ...), repeatable", func(kv string) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("want KEY=VALUE, got %q", kv)
		}
		props[k] = v
		return nil
	})
	flag.Parse()
	if *write != "" {
		if err := runWrite(context.Background(), *write, *warehouse); err != nil {
			fmt.Fprintln(os.Stderr, "icebergo:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), *metadata, props, *column, *from, *to, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "icebergo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, metadata string, props iceberg.Properties, column string, from, to, runs int) error {
	var filter iceberg.BooleanExpression = iceberg.AlwaysTrue{}
	if column != "" {
		ref := iceberg.Reference(column)
		filter = iceberg.NewAnd(
			iceberg.GreaterThanEqual(ref, iceberg.Date(from)),
			iceberg.LessThan(ref, iceberg.Date(to)))
	}
	var out result
	for i := 0; i <= runs; i++ {
		start := time.Now()
		rows, err := readOnce(ctx, metadata, props, filter)
		if err != nil {
			return err
		}
		if i > 0 { // run 0 is the warm-up
			out.Seconds = append(out.Seconds, time.Since(start).Seconds())
		}
		out.Rows = rows
	}
	out.PeakRSSMB = peakRSSMB()
	return json.NewEncoder(os.Stdout).Encode(out)
}

// peakRSSMB returns this process's VmHWM from /proc/self/status in MiB (0 if unknown);
// the harness cannot use the rusage of its child, which Linux carries over exec.
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0
			}
			return kib / 1024
		}
	}
	return 0
}

// readOnce loads the table afresh (as iceflight and PyIceberg do per read) and reads the
// scan into one arrow.Table; props configure its FileIO (nil for local files).
func readOnce(ctx context.Context, metadata string, props iceberg.Properties, filter iceberg.BooleanExpression) (int64, error) {
	tbl, err := table.NewFromLocation(ctx, table.Identifier{"bench", "t"}, metadata,
		io.LoadFSFunc(props, metadata), nil)
	if err != nil {
		return 0, fmt.Errorf("load table %s: %w", metadata, err)
	}
	arrowTable, err := tbl.Scan(table.WithRowFilter(filter)).ToArrowTable(ctx)
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", metadata, err)
	}
	defer arrowTable.Release()
	return arrowTable.NumRows(), nil
}
