package parquet

import (
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// A writer that starts from Arrow stores its in-memory schema in the
// Parquet file, under the key-value metadata key ARROW:schema, and pqarrow
// reads the file back in those types when the key is there: large_utf8 and
// large_list where PyIceberg up to 0.9 (and pyarrow on request) wrote them,
// a dictionary with int8 indices for a pandas categorical, a fixed_size_list,
// a timestamp's zone. That schema is a hint about how one program held the
// data, not part of the table: Iceberg's types are those of the Parquet
// schema (spec: Parquet, type mapping), Iceberg Java's parquet-mr reader
// never looks at the key, and a reader serves the Arrow type of the Iceberg
// type whatever the writer held. So the reader drops the hint before pqarrow
// sees the footer, and pqarrow infers every column from the Parquet schema
// alone: utf8, binary and list, and dictionaries only where
// dictionaryColumns asks for them. View types (utf8_view, list_view) need
// nothing more, as pqarrow never reads into them. One more reason: pqarrow
// fails the whole file when the hint does not decode (a type arrow-go does
// not know) or its extension types contradict the Parquet schema.

// arrowSchemaKey is the key-value metadata key under which Arrow writers
// store their schema.
const arrowSchemaKey = "ARROW:schema"

// dropArrowSchemaHint removes the stored Arrow schema from md's key-value
// metadata. md must be the reader's own copy of the footer.
func dropArrowSchemaHint(md *metadata.FileMetaData) {
	kv := md.FileMetaData.KeyValueMetadata
	kept := kv[:0]
	for _, e := range kv {
		if e.Key != arrowSchemaKey {
			kept = append(kept, e)
		}
	}
	md.FileMetaData.KeyValueMetadata = kept
}
