package parquet

import (
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/iceflight/iceflight/pqcodec"
)

// Dictionary-encoded string columns are read by pqarrow as Arrow
// dictionaries and unpacked by the reader, which costs one pass over their
// int32 indices where pqarrow's plain path appends each value to a growing
// builder (see reader/parquet_dict.go). These functions pick the columns
// from the footer, before pqarrow opens the file.

// DictionaryColumns returns the Parquet leaf columns to read as
// dictionaries: top-level BYTE_ARRAY columns whose data pages are all
// dictionary-encoded in every row group of groups. A column chunk that falls
// back to plain pages (writers do when the dictionary grows too large) would
// be read through a hash table instead, slower than the plain path, so such
// columns, and those whose chunks do not say, are read plainly.
func DictionaryColumns(md *metadata.FileMetaData, groups []int) []int {
	if len(groups) == 0 {
		return nil
	}
	sc := md.Schema
	var cols []int
	for c := 0; c < sc.NumColumns(); c++ {
		col := sc.Column(c)
		if !topLevelString(sc, col) {
			continue
		}
		all := true
		for _, g := range groups {
			cc, err := md.RowGroup(g).ColumnChunk(c)
			if err != nil || !pqcodec.DictionaryPagesOnly(cc) || !dictionaryPays(cc) {
				all = false
				break
			}
		}
		if all {
			cols = append(cols, c)
		}
	}
	return cols
}

// PassThroughColumns returns the Parquet leaf columns of the fields in
// dict (the reader's Scan.Dictionary): top-level BYTE_ARRAY columns with those field
// ids, read as dictionaries whatever their pages' encoding, since a
// dictionary is what the stream sends. pqarrow hashes the values of plain
// pages into the chunk's dictionary; a column found by name mapping alone
// (no field ids in the file) is read plainly and encoded after.
func PassThroughColumns(md *metadata.FileMetaData, dict map[int]bool) []int {
	if len(dict) == 0 {
		return nil
	}
	sc := md.Schema
	var cols []int
	for c := 0; c < sc.NumColumns(); c++ {
		if col := sc.Column(c); topLevelString(sc, col) && dict[int(col.SchemaNode().FieldID())] {
			cols = append(cols, c)
		}
	}
	return cols
}

// topLevelString reports whether col is a top-level BYTE_ARRAY column that
// pqarrow reads as string or binary: the columns it can read as
// dictionaries.
func topLevelString(sc *schema.Schema, col *schema.Column) bool {
	return col.PhysicalType() == parquet.Types.ByteArray && col.MaxRepetitionLevel() == 0 &&
		col.SchemaNode().Parent() == sc.Root() && plainStringType(col)
}

// plainStringType reports whether pqarrow reads the column as string or
// binary (not as a decimal or an extension type).
func plainStringType(col *schema.Column) bool {
	switch col.LogicalType().(type) {
	case nil, schema.NoLogicalType, *schema.NoLogicalType, schema.StringLogicalType, *schema.StringLogicalType:
		return true
	}
	return false
}

// dictionaryPays reports whether a column chunk's values repeat enough for
// a dictionary read to be faster: pqarrow hashes every dictionary entry
// into a memo table before the first index is read, which costs more per
// byte than unpacking saves per index byte, so a chunk that is mostly
// dictionary (few rows per distinct value, as in small files) is read
// plainly. The dictionary page's share of the chunk comes from its offsets.
func dictionaryPays(cc *metadata.ColumnChunkMetaData) bool {
	total := cc.TotalCompressedSize()
	dict := cc.DataPageOffset() - cc.DictionaryPageOffset()
	return total > 0 && dict > 0 && dict*2 <= total
}
