// Package manifest reads and writes Iceberg's Avro manifest lists and
// manifests, for format versions 1 to 3, to and from the model types of
// package iceberg. One table of fields (fields.go: field ids, names, types,
// which format versions have each field and where it is required) serves
// both directions.
//
// Reading (Read, ReadList, Metadata, FromPaths) is fast: the writer's Avro
// schema is compiled once per process into a layout of typed field readers
// (by field id, with the spec's names as a fallback), partition values are
// decoded straight into literals, column metrics are kept only for the
// columns a caller asks for, and decoded bytes share one arena per
// manifest. It reads what any writer wrote, and applies the spec's
// inheritance rules.
//
// Writing (Writer, WriteList) writes what Iceberg Java writes: the spec's
// schema of the format version, field ids included, with the metadata keys
// Java requires; records are encoded straight from the model types.
//
// The Avro container framing, both ways, is internal/avro's; blocks are
// inflated whole by internal/inflate. It is a codec kept apart from the
// model, as iceberg's metadata JSON scanner is (internal/jsontext): package
// iceberg says what a manifest entry is, this package how it becomes bytes
// and back. Like iceberg it performs no I/O of its own: it takes an
// io.Reader or io.Writer. Every read error wraps iceberg.ErrInvalidMetadata.
package manifest
