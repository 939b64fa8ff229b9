// Package pqcodec decodes Parquet column chunks straight into Arrow arrays.
//
// It covers the layouts that carry nearly all real data in flat columns:
// PLAIN and dictionary pages of the primitive physical types, RLE booleans,
// DELTA_BINARY_PACKED integers, DELTA_LENGTH_BYTE_ARRAY and
// DELTA_BYTE_ARRAY byte arrays, BYTE_STREAM_SPLIT values, definition
// levels of optional columns, data pages v1 and v2, and the snappy, zstd,
// gzip and lz4_raw codecs. A column chunk it does not cover is
// reported by [Supported] before any byte is read, so that its caller reads
// that chunk with arrow-go's pqarrow instead; nothing here falls back on its
// own.
//
// Nested columns (under structs, lists and maps) are read a top-level
// field at a time by [FieldReader]: each leaf chunk's definition and
// repetition levels, RLE-hybrid or BIT_PACKED, place its values in value
// slots that the same value decoders fill, and the lists and structs
// above are built from the levels as pqarrow builds them.
// [FieldSupported] reports, per field and row group, what it covers.
//
// Every size a file states (page sizes, value counts, bit widths, varints,
// dictionary indices, delta block sizes, prefix and suffix lengths) is
// checked against what the chunk can hold before it sizes an allocation or
// an index, so a corrupt or hostile page is an error, never a panic or an
// out-of-range read.
package pqcodec
