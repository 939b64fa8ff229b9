package pqcodec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Page types of PageEncodingStats, as arrow-go's metadata reports them.
const (
	statsDataPage   = pageData
	statsDataPageV2 = pageDataV2
)

// Supported reports whether a column chunk of col can be decoded here into
// Arrow type out: a flat column (required or optional, not repeated) whose
// codec, page encodings and physical type this package covers, unencrypted,
// with out a type of the same layout as pqarrow would read it. The value
// encodings covered are PLAIN, the dictionary ones, RLE booleans,
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
// BYTE_STREAM_SPLIT, each for the physical types the format allows it. A
// dictionary out (string or binary values, int32 indices) needs every data
// page dictionary-encoded.
func Supported(cc *metadata.ColumnChunkMetaData, col *schema.Column, out arrow.DataType) bool {
	if col.MaxRepetitionLevel() != 0 || col.MaxDefinitionLevel() > 1 {
		return false
	}
	return chunkSupported(cc, col, out)
}

// chunkSupported is Supported without its bound on the column's levels:
// the codec, encodings and layout of a chunk of a flat or nested column.
func chunkSupported(cc *metadata.ColumnChunkMetaData, col *schema.Column, out arrow.DataType) bool {
	if cc.CryptoMetadata() != nil || !supportedCodec(cc.Compression()) {
		return false
	}
	for _, e := range cc.Encodings() {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict,
			parquet.Encodings.RLE, parquet.Encodings.BitPacked:
		case parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.DeltaLengthByteArray,
			parquet.Encodings.DeltaByteArray, parquet.Encodings.ByteStreamSplit:
			if !encodingFits(e, col.PhysicalType()) {
				return false
			}
		default:
			return false
		}
	}
	if d, ok := out.(*arrow.DictionaryType); ok {
		if d.IndexType.ID() != arrow.INT32 || col.PhysicalType() != parquet.Types.ByteArray || !DictionaryPagesOnly(cc) {
			return false
		}
		out = d.ValueType
	}
	return layoutFits(col, out)
}

// layoutFits reports whether the physical type's values are out's values
// bit for bit, or, for decimals, widened to 16 bytes: Arrow's Decimal128
// is a little-endian two's complement integer, INT32 and INT64 decimals
// sign-extend into it, and FIXED_LEN_BYTE_ARRAY decimals (big-endian, at
// most 16 bytes) are reversed and sign-extended.
func layoutFits(col *schema.Column, out arrow.DataType) bool {
	switch col.PhysicalType() {
	case parquet.Types.Boolean:
		return out.ID() == arrow.BOOL
	case parquet.Types.Int32:
		switch out.ID() {
		case arrow.INT32, arrow.UINT32, arrow.DATE32, arrow.TIME32, arrow.DECIMAL128:
			return true
		}
	case parquet.Types.Int64:
		switch out.ID() {
		case arrow.INT64, arrow.UINT64, arrow.TIMESTAMP, arrow.TIME64, arrow.DURATION, arrow.DECIMAL128:
			return true
		}
	case parquet.Types.Float:
		return out.ID() == arrow.FLOAT32
	case parquet.Types.Double:
		return out.ID() == arrow.FLOAT64
	case parquet.Types.ByteArray:
		switch out.ID() {
		case arrow.STRING, arrow.BINARY:
			return true
		}
	case parquet.Types.FixedLenByteArray:
		if out.ID() == arrow.DECIMAL128 {
			return col.TypeLength() > 0 && col.TypeLength() <= 16
		}
		f, ok := out.(*arrow.FixedSizeBinaryType)
		return ok && f.ByteWidth == col.TypeLength() && f.ByteWidth > 0
	}
	return false
}

// DictionaryPagesOnly reports whether every data page of a column chunk is
// dictionary-encoded. Spec (parquet.thrift, ColumnMetaData.encoding_stats):
// the per-page-type encoding counts are optional; without them the chunk's
// encodings list decides, which a dictionary page written PLAIN makes
// ambiguous, so PLAIN (or any other value encoding) there means no.
func DictionaryPagesOnly(cc *metadata.ColumnChunkMetaData) bool {
	if !cc.HasDictionaryPage() {
		return false
	}
	if stats := cc.EncodingStats(); len(stats) > 0 {
		for _, st := range stats {
			switch st.PageType {
			case statsDataPage, statsDataPageV2:
				if !isDictEncoding(st.Encoding) {
					return false
				}
			}
		}
		return true
	}
	for _, enc := range cc.Encodings() {
		switch {
		case isDictEncoding(enc), enc == parquet.Encodings.RLE, enc == parquet.Encodings.BitPacked:
		default:
			return false
		}
	}
	return true
}

func isDictEncoding(e parquet.Encoding) bool {
	return e == parquet.Encodings.PlainDict || e == parquet.Encodings.RLEDict
}
