// Package parquet holds the Parquet-file-level machinery of the reader that
// needs nothing of the reader's projection, residual filter or deletes:
// opening a file (footer reading, validation and repair, the stored Arrow
// schema hint dropped), INT96 timestamps read past pqarrow's range, and
// the choices made from a footer before any page is decoded: the row
// groups of a byte-range split, the row groups and pages whose statistics
// rule out a filter, the row groups of a position delete file that may
// name a data file, and the string columns worth reading as dictionaries.
// Package reader adapts it to its sources (reader/source_parquet.go), as
// it adapts package orc.
package parquet
