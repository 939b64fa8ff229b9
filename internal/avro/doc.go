// Package avro reads and writes Avro Object Container Files: the header,
// the block framing with its codecs, and the records.
//
// Reading (Open, Container) gives records either each as a goavro native
// value (Next) or as a block of bytes that the caller decodes with a
// Decoder compiled against the writer's schema (ReadBlock). The container
// framing is read here rather than by goavro.OCFReader because goavro only
// knows the null, deflate and snappy codecs, while Iceberg writers also use
// zstandard (and the Avro spec allows bzip2).
//
// Writing (NewContainerWriter, ContainerWriter) frames records the caller
// has encoded with an Encoder into blocks, with the null or deflate codec.
package avro
