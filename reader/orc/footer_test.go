package orc

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// Messages are built field by field with protowire, by the field numbers
// of orc_proto.proto.

func varintField(b []byte, num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

func bytesField(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

func TestParsePostScript(t *testing.T) {
	t.Parallel()
	var b []byte
	b = varintField(b, 1, 1234)                           // footerLength
	b = varintField(b, 2, uint64(compressionZstd))        // compression
	b = varintField(b, 3, 262144)                         // compressionBlockSize
	b = bytesField(b, 4, []byte{0, 12})                   // version, packed
	b = varintField(b, 5, 99)                             // metadataLength
	b = varintField(b, 6, 9)                              // writerVersion: ignored
	b = protowire.AppendTag(b, 77, protowire.Fixed64Type) // an unknown field
	b = protowire.AppendFixed64(b, 1)
	b = bytesField(b, 8000, []byte("ORC")) // magic
	ps, err := parsePostScript(b)
	if err != nil {
		t.Fatal(err)
	}
	want := &postScript{footerLength: 1234, compression: compressionZstd, compressionBlockSize: 262144,
		version: []uint32{0, 12}, metadataLength: 99, magic: "ORC"}
	if !reflect.DeepEqual(ps, want) {
		t.Errorf("got %+v\nwant %+v", ps, want)
	}
	if _, err := parsePostScript(b[:len(b)-2]); err == nil {
		t.Error("a truncated postscript parsed")
	}
}

func TestParseFooter(t *testing.T) {
	t.Parallel()
	var stripe []byte
	stripe = varintField(stripe, 1, 3)
	stripe = varintField(stripe, 2, 10)
	stripe = varintField(stripe, 3, 200)
	stripe = varintField(stripe, 4, 30)
	stripe = varintField(stripe, 5, 1000)
	var root, child []byte
	root = varintField(root, 1, uint64(Struct))
	root = varintField(root, 2, 1) // subtypes, unpacked
	root = bytesField(root, 3, []byte("amount"))
	child = varintField(child, 1, uint64(Decimal))
	child = varintField(child, 5, 12)
	child = varintField(child, 6, 2)
	attr := bytesField(bytesField(nil, 1, []byte("iceberg.id")), 2, []byte("7"))
	child = bytesField(child, 7, attr)
	var stat []byte
	stat = varintField(stat, 1, 1000)
	var meta []byte
	meta = bytesField(bytesField(meta, 1, []byte("k")), 2, []byte{0, 1})
	var b []byte
	b = varintField(b, 1, 3)
	b = varintField(b, 2, 243)
	b = bytesField(b, 3, stripe)
	b = bytesField(b, 4, root)
	b = bytesField(b, 4, child)
	b = bytesField(b, 5, meta)
	b = varintField(b, 6, 1000)
	b = bytesField(b, 7, stat) // statistics: skipped
	b = varintField(b, 8, 10000)
	b = varintField(b, 9, 1)
	b = bytesField(b, 12, []byte("1.7.2"))
	ft, err := parseFooter(b)
	if err != nil {
		t.Fatal(err)
	}
	want := &fileFooter{
		headerLength: 3, contentLength: 243,
		stripes: []stripeInformation{{offset: 3, indexLength: 10, dataLength: 200, footerLength: 30, numberOfRows: 1000}},
		types: []protoType{
			{kind: uint64(Struct), subtypes: []uint32{1}, fieldNames: []string{"amount"}},
			{kind: uint64(Decimal), precision: 12, scale: 2, hasPrecision: true, hasScale: true,
				attributes: map[string]string{"iceberg.id": "7"}},
		},
		metadata:     map[string][]byte{"k": {0, 1}},
		numberOfRows: 1000, rowIndexStride: 10000, writer: 1, softwareVersion: "1.7.2",
	}
	if !reflect.DeepEqual(ft, want) {
		t.Errorf("got %+v\nwant %+v", ft, want)
	}
	root2, _, err := buildSchema(ft.types)
	if err != nil {
		t.Fatal(err)
	}
	if got := root2.String(); got != "struct<amount:decimal(12,2)>" {
		t.Errorf("schema %s", got)
	}
}

func TestParseStripeFooter(t *testing.T) {
	t.Parallel()
	stream := func(kind streamKind, col, length uint64) []byte {
		return varintField(varintField(varintField(nil, 1, uint64(kind)), 2, col), 3, length)
	}
	var b []byte
	b = bytesField(b, 1, stream(6, 0, 5)) // ROW_INDEX
	b = bytesField(b, 1, stream(streamData, 1, 40))
	b = bytesField(b, 2, varintField(nil, 1, uint64(encodingDirect)))
	b = bytesField(b, 2, varintField(varintField(nil, 1, uint64(encodingDictionaryV2)), 2, 17))
	b = bytesField(b, 3, []byte("America/Los_Angeles"))
	sf, err := parseStripeFooter(b)
	if err != nil {
		t.Fatal(err)
	}
	want := &stripeFooter{
		streams:        []streamInfo{{kind: 6, column: 0, length: 5}, {kind: streamData, column: 1, length: 40}},
		columns:        []columnEncoding{{kind: encodingDirect}, {kind: encodingDictionaryV2, dictionarySize: 17}},
		writerTimezone: "America/Los_Angeles",
	}
	if !reflect.DeepEqual(sf, want) {
		t.Errorf("got %+v\nwant %+v", sf, want)
	}
}

func TestBuildSchemaRejectsBadTrees(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		types []protoType
	}{
		{"no types", nil},
		{"a root that is not a struct", []protoType{{kind: uint64(Int)}}},
		{"a child before its parent", []protoType{{kind: uint64(Struct), subtypes: []uint32{0}, fieldNames: []string{"a"}}}},
		{"a child out of range", []protoType{{kind: uint64(Struct), subtypes: []uint32{5}, fieldNames: []string{"a"}}}},
		{"a child reached twice", []protoType{
			{kind: uint64(Struct), subtypes: []uint32{1, 1}, fieldNames: []string{"a", "b"}}, {kind: uint64(Int)}}},
		{"a struct with fewer names than fields", []protoType{{kind: uint64(Struct), subtypes: []uint32{1}}, {kind: uint64(Int)}}},
		{"a list without an element", []protoType{
			{kind: uint64(Struct), subtypes: []uint32{1}, fieldNames: []string{"a"}}, {kind: uint64(List)}}},
		{"a decimal of precision 39", []protoType{
			{kind: uint64(Struct), subtypes: []uint32{1}, fieldNames: []string{"a"}},
			{kind: uint64(Decimal), precision: 39, hasPrecision: true}}},
		{"an unknown kind", []protoType{
			{kind: uint64(Struct), subtypes: []uint32{1}, fieldNames: []string{"a"}}, {kind: 99}}},
	}
	for _, c := range cases {
		if _, _, err := buildSchema(c.types); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestDecimalDefaults(t *testing.T) {
	t.Parallel()
	// ORC Java reads a decimal without precision and scale (Hive 0.11) as
	// decimal(38,10), and a varchar without a length as varchar(256).
	root, _, err := buildSchema([]protoType{
		{kind: uint64(Struct), subtypes: []uint32{1, 2}, fieldNames: []string{"d", "v"}},
		{kind: uint64(Decimal)}, {kind: uint64(Varchar)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := root.String(); got != "struct<d:decimal(38,10),v:varchar(256)>" {
		t.Errorf("schema %s", got)
	}
}
