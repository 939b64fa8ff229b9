package iceberg

// warmupMetadata is the smallest metadata document that exercises every
// type the metadata decoder reflects over.
const warmupMetadata = `{"format-version":2,"table-uuid":"00000000-0000-0000-0000-000000000000",
"location":"warmup","last-sequence-number":1,"last-updated-ms":1,"last-column-id":1,
"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"a","required":true,"type":"long"}]}],
"current-schema-id":0,
"partition-specs":[{"spec-id":0,"fields":[{"name":"a","transform":"identity","source-id":1,"field-id":1000}]}],
"default-spec-id":0,"last-partition-id":1000,"properties":{"k":"v"},"current-snapshot-id":1,
"refs":{"main":{"snapshot-id":1,"type":"branch"}},
"snapshots":[{"snapshot-id":1,"sequence-number":1,"timestamp-ms":1,"manifest-list":"m","summary":{"operation":"append"},"schema-id":0}],
"snapshot-log":[{"timestamp-ms":1,"snapshot-id":1}],"metadata-log":[],
"sort-orders":[{"order-id":0,"fields":[]}],"default-sort-order-id":0}`

// WarmUp builds the metadata decoder's reflection tables (encoding/json's
// field tables of the metadata, spec, sort order, ref and schema types) by
// parsing a constant document. A fresh process otherwise pays for them in
// its first table load, about a fifth of a millisecond of a server's first
// plan; a server calls WarmUp once at start. It reads no table and keeps
// nothing.
func WarmUp() {
	// An error would only mean a colder first load; a test checks that
	// the document parses.
	_, _ = ParseMetadataString(warmupMetadata)
}
