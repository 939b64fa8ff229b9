// Package manifests decodes Iceberg's Avro manifest lists and manifests
// into the model types of package iceberg, fast: the writer's Avro schema is
// compiled once per process into a layout of typed field readers (by field
// id, with the spec's names as a fallback), partition values are decoded
// straight into literals, column metrics are kept only for the columns a
// caller asks for, and decoded bytes share one arena per manifest. Blocks are
// inflated whole by internal/inflate and framed by internal/avro.
//
// It is a speed codec kept apart from the model, as iceberg's metadata JSON
// scanner is (internal/jsontext): package iceberg says what a manifest
// entry is, this package how its bytes become one. Like iceberg it performs
// no I/O: decoders take an io.Reader. Every error wraps
// iceberg.ErrInvalidMetadata.
package manifests
