package datafile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// Table properties the writer reads (Iceberg's "Write properties").
// write.parquet.page-row-limit is not among them: arrow-go's Parquet
// writer cuts pages by size only.
const (
	PropTargetFileSize     = "write.target-file-size-bytes"
	PropCompressionCodec   = "write.parquet.compression-codec"
	PropCompressionLevel   = "write.parquet.compression-level"
	PropRowGroupSize       = "write.parquet.row-group-size-bytes"
	PropPageSize           = "write.parquet.page-size-bytes"
	PropDictSize           = "write.parquet.dict-size-bytes"
	PropMetricsDefault     = "write.metadata.metrics.default"
	PropMetricsColumn      = "write.metadata.metrics.column."
	PropMetricsMaxInferred = "write.metadata.metrics.max-inferred-column-defaults"
)

// Iceberg's defaults for those properties.
const (
	defaultTargetFileSize = 512 << 20
	defaultRowGroupSize   = 128 << 20
	defaultPageSize       = 1 << 20
	defaultDictSize       = 2 << 20
	defaultMaxInferred    = 100
)

// config is the parsed form of Options.
type config struct {
	targetFileSize int64
	rowGroupSize   int64
	codec          compress.Compression
	level          int
	pageSize       int64
	dictSize       int64
	mem            memory.Allocator
	workers        int
	// arrowGo has arrow-go's writer encode every column instead of
	// pqcodec/pqwrite: for side-by-side tests and benchmarks.
	arrowGo bool
}

func parseConfig(opts Options) (config, error) {
	c := config{codec: compress.Codecs.Zstd, level: compress.DefaultCompressionLevel, mem: opts.Allocator, workers: opts.Workers}
	if c.mem == nil {
		c.mem = memory.DefaultAllocator
	}
	p := opts.Properties
	var err error
	if c.targetFileSize, err = intProp(p, PropTargetFileSize, defaultTargetFileSize); err != nil {
		return c, err
	}
	if c.rowGroupSize, err = intProp(p, PropRowGroupSize, defaultRowGroupSize); err != nil {
		return c, err
	}
	if c.pageSize, err = intProp(p, PropPageSize, defaultPageSize); err != nil {
		return c, err
	}
	if c.dictSize, err = intProp(p, PropDictSize, defaultDictSize); err != nil {
		return c, err
	}
	if v, ok := p[PropCompressionCodec]; ok {
		if c.codec, err = parseCodec(v); err != nil {
			return c, err
		}
	}
	if v, ok := p[PropCompressionLevel]; ok && v != "" {
		l, err := strconv.Atoi(v)
		if err != nil {
			return c, fmt.Errorf("property %s=%q: %w", PropCompressionLevel, v, err)
		}
		c.level = l
	}
	return c, nil
}

func intProp(p map[string]string, name string, def int64) (int64, error) {
	v, ok := p[name]
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("property %s=%q: want a positive integer", name, v)
	}
	return n, nil
}

// parseCodec maps Iceberg's codec names to Parquet's. Iceberg's lz4 is
// written as LZ4_RAW, the framing current Parquet readers agree on (the
// older Hadoop-framed LZ4 is deprecated in the Parquet format).
func parseCodec(v string) (compress.Compression, error) {
	switch strings.ToLower(v) {
	case "zstd":
		return compress.Codecs.Zstd, nil
	case "snappy":
		return compress.Codecs.Snappy, nil
	case "gzip":
		return compress.Codecs.Gzip, nil
	case "uncompressed", "none":
		return compress.Codecs.Uncompressed, nil
	case "lz4", "lz4_raw":
		return compress.Codecs.Lz4Raw, nil
	case "brotli":
		return compress.Codecs.Brotli, nil
	}
	return 0, fmt.Errorf("property %s=%q: unknown codec", PropCompressionCodec, v)
}

// writerProps returns the Parquet writer properties of c.
func (c config) writerProps() *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithAllocator(c.mem),
		parquet.WithCompression(c.codec),
		parquet.WithCompressionLevel(c.level),
		parquet.WithDataPageSize(c.pageSize),
		parquet.WithDictionaryPageSizeLimit(c.dictSize),
		parquet.WithStats(true),
		parquet.WithVersion(parquet.V2_6),
		parquet.WithCreatedBy("iceflight"),
	)
}
