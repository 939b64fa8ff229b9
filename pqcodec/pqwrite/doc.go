// Package pqwrite encodes flat Arrow columns into Parquet column chunks,
// faster than arrow-go's general column writers.
//
// It covers the leaves Iceberg writes most: top-level required or optional
// columns (maximum repetition level 0, definition level at most 1) of
// boolean, int32, int64, float, double, date, time, timestamp, string,
// binary, fixed-size binary and decimal128 values. Each column chunk is
// dictionary encoded (one dictionary per chunk, indices in the
// RLE/bit-packed hybrid) until its dictionary passes the dictionary size
// limit, and PLAIN from there on, as parquet-mr and arrow-go write; as in
// parquet-mr, a chunk whose first page shows the dictionary saving nothing
// is PLAIN from the start. Booleans are PLAIN. Chunk statistics are the
// ones arrow-go records for the same values.
//
// [FileWriter] assembles the file from arrow-go's exported metadata and
// page writer building blocks, so that the footer is the one Parquet
// readers expect; leaves this package does not cover are written into the
// same row groups by arrow-go's column chunk writers ([RowGroupWriter.ArrowColumn]).
package pqwrite
