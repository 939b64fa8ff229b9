package orc

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// Some features no writer we can run produces: pyarrow's ORC writer always
// records GMT as the writer's zone and writes every decimal at its type's
// scale, and no writer at hand makes a root that is not a struct or the ORC
// v2 pre-release. Files with them are assembled here, message by message,
// by the field numbers of orc_proto.proto and the encodings of the ORC
// specification, with one uncompressed stripe.

// handmade describes a one-stripe, uncompressed ORC file.
type handmade struct {
	version   []uint64 // the postscript's version; [0, 12] when nil
	types     [][]byte // Type messages, by column id
	rows      uint64
	streams   []handStream
	encodings []encodingKind // by column id
	zone      string         // StripeFooter.writerTimezone; none when empty
}

// handStream is one stream of the stripe, in file order.
type handStream struct {
	column uint64
	kind   streamKind
	data   []byte
}

// bytes lays the file out: the magic, the stripe's streams and footer, the
// file footer, the postscript and its length (Spec: File Tail).
func (h handmade) bytes() []byte {
	b := []byte(magic)
	var sf []byte
	for _, s := range h.streams {
		b = append(b, s.data...)
		st := varintField(varintField(varintField(nil, 1, uint64(s.kind)), 2, s.column), 3, uint64(len(s.data)))
		sf = bytesField(sf, 1, st)
	}
	dataLen := len(b) - len(magic)
	for _, e := range h.encodings {
		sf = bytesField(sf, 2, varintField(nil, 1, uint64(e)))
	}
	if h.zone != "" {
		sf = bytesField(sf, 3, []byte(h.zone))
	}
	b = append(b, sf...)
	var ft []byte
	ft = varintField(ft, 1, uint64(len(magic)))        // headerLength
	ft = varintField(ft, 2, uint64(len(b)-len(magic))) // contentLength
	if len(h.streams) > 0 {
		var si []byte
		si = varintField(si, 1, uint64(len(magic))) // offset
		si = varintField(si, 2, 0)                  // indexLength
		si = varintField(si, 3, uint64(dataLen))
		si = varintField(si, 4, uint64(len(sf)))
		si = varintField(si, 5, h.rows)
		ft = bytesField(ft, 3, si)
	}
	for _, ty := range h.types {
		ft = bytesField(ft, 4, ty)
	}
	ft = varintField(ft, 6, h.rows) // numberOfRows
	b = append(b, ft...)
	version := h.version
	if version == nil {
		version = []uint64{0, 12}
	}
	var packed []byte
	for _, v := range version {
		packed = protowire.AppendVarint(packed, v)
	}
	var ps []byte
	ps = varintField(ps, 1, uint64(len(ft)))
	ps = varintField(ps, 2, uint64(compressionNone))
	ps = bytesField(ps, 4, packed)
	ps = varintField(ps, 5, 0) // metadataLength
	ps = bytesField(ps, 8000, []byte(magic))
	b = append(b, ps...)
	return append(b, byte(len(ps)))
}

// structType is a Type message for a struct of the given fields.
func structType(names []string, subtypes ...uint64) []byte {
	b := varintField(nil, 1, uint64(Struct))
	for _, s := range subtypes {
		b = varintField(b, 2, s)
	}
	for _, n := range names {
		b = bytesField(b, 3, []byte(n))
	}
	return b
}

func kindType(k Kind) []byte { return varintField(nil, 1, uint64(k)) }

func decimalType(precision, scale uint64) []byte {
	return varintField(varintField(kindType(Decimal), 5, precision), 6, scale)
}

// literalRLEv1 encodes integers as literal groups of RLE v1 (Spec: Integer Run
// Length Encoding, version 1): a header byte of -n, then n base 128
// varints, zigzag-encoded when signed.
func literalRLEv1(signed bool, vals ...int64) []byte {
	var b []byte
	for len(vals) > 0 {
		n := min(len(vals), 128)
		b = append(b, byte(-n))
		for _, v := range vals[:n] {
			u := uint64(v)
			if signed {
				u = protowire.EncodeZigZag(v)
			}
			b = protowire.AppendVarint(b, u)
		}
		vals = vals[n:]
	}
	return b
}

// present encodes a PRESENT stream: the bits, high bit first, as literal
// groups of byte RLE (Spec: Boolean Run Length Encoding).
func present(valid ...bool) []byte {
	var bytes []byte
	for i, v := range valid {
		if i%8 == 0 {
			bytes = append(bytes, 0)
		}
		if v {
			bytes[i/8] |= 0x80 >> (i % 8)
		}
	}
	var b []byte
	for len(bytes) > 0 {
		n := min(len(bytes), 128)
		b = append(append(b, byte(-n)), bytes[:n]...)
		bytes = bytes[n:]
	}
	return b
}

// timestampFile holds one TIMESTAMP column of the given encoded seconds
// and nanoseconds.
func timestampFile(zone string, secs, nanos []int64) handmade {
	return handmade{
		types: [][]byte{structType([]string{"ts"}, 1), kindType(Timestamp)},
		rows:  uint64(len(secs)),
		streams: []handStream{
			{1, streamData, literalRLEv1(true, secs...)},
			{1, streamSecondary, literalRLEv1(false, nanos...)},
		},
		encodings: []encodingKind{encodingDirect, encodingDirect},
		zone:      zone,
	}
}

// stringFile holds one directly encoded string column of the given values.
func stringFile(vals ...string) handmade {
	var data []byte
	var lens []int64
	for _, v := range vals {
		data = append(data, v...)
		lens = append(lens, int64(len(v)))
	}
	return handmade{
		types: [][]byte{structType([]string{"s"}, 1), kindType(String)},
		rows:  uint64(len(vals)),
		streams: []handStream{
			{1, streamData, data},
			{1, streamLength, literalRLEv1(false, lens...)},
		},
		encodings: []encodingKind{encodingDirect, encodingDirect},
	}
}

// decimalFile holds one decimal(10,5) column of unscaled values and their
// scales, with a null row at nullAt (none when it is negative).
func decimalFile(enc encodingKind, nullAt int, unscaled, scales []int64) handmade {
	var data []byte
	var valid []bool
	for i, v := range unscaled {
		data = protowire.AppendVarint(data, protowire.EncodeZigZag(v))
		if i == nullAt {
			valid = append(valid, false)
		}
		valid = append(valid, true)
	}
	return handmade{
		types: [][]byte{structType([]string{"d"}, 1), decimalType(10, 5)},
		rows:  uint64(len(valid)),
		streams: []handStream{
			{1, streamPresent, present(valid...)},
			{1, streamData, data},
			{1, streamSecondary, literalRLEv1(true, scales...)},
		},
		encodings: []encodingKind{encodingDirect, enc},
	}
}

// pacificFile holds timestamps written in US/Pacific. The encoded values
// are those ORC Java's writer stores (Spec: Timestamp Columns): the
// instant's seconds, truncated toward zero, less 2015-01-01 00:00:00 in
// the writer's zone, and the nanoseconds with their trailing zeros
// counted; the instants were computed with Python's zoneinfo from the IANA
// rules, in which Los Angeles kept local mean time (-7:52:58) until 1883.
var pacificFile = timestampFile("US/Pacific",
	[]int64{-4245838622, -3629059200, -3618300303, -3045139200, -1420099201, 0, 15678000},
	[]int64{0, 0, 47, 0, 47, 0, 10})

var pacificWall = []string{
	"1880-06-15 08:30:00", "1900-01-01 00:00:00", "1900-05-05 12:34:56.5", "1918-07-04 09:00:00",
	"1969-12-31 15:59:58.5", "2015-01-01 00:00:00", "2015-07-01 12:00:00.000001",
}

// zonelessFile holds timestamps whose stripe names no writer zone, as
// Hive wrote before 0.14; the package reads them as UTC.
var zonelessFile = timestampFile("",
	[]int64{-3629059200, -1420070401, -468244800, 0},
	[]int64{0, 47, 987654312, 0})

var zonelessWall = []string{
	"1900-01-01 00:00:00", "1969-12-31 23:59:58.5", "2000-02-29 12:00:00.123456789", "2015-01-01 00:00:00",
}

// trimmedDecimalFile holds decimal(10,5) values stored with fewer digits
// of scale than the type's, as Hive and ORC Java write them.
var trimmedDecimalFile = decimalFile(encodingDirect, 3,
	[]int64{12345, -7, 5, -123456789, 1, 9999999999}, []int64{2, 0, 5, 5, 1, 5})

var trimmedDecimals = []any{"123.45", "-7", "0.00005", nil, "-1234.56789", "0.1", "99999.99999"}

// wallRows spells wall-clock times as the expected rows of checkRows do:
// nanoseconds since the epoch, the time taken as UTC.
func wallRows(t *testing.T, column string, walls []string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for _, w := range walls {
		tm, err := time.Parse("2006-01-02 15:04:05.999999999", w)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, map[string]any{column: json.Number(strconv.FormatInt(tm.UnixNano(), 10))})
	}
	return rows
}

func TestHandmadeFilesReadAsTheSpecSays(t *testing.T) {
	t.Parallel()
	if _, err := time.LoadLocation("US/Pacific"); err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	var decimals []map[string]any
	for _, d := range trimmedDecimals {
		decimals = append(decimals, map[string]any{"d": d})
	}
	cases := []struct {
		name string
		file handmade
		want []map[string]any
	}{
		{"TIMESTAMP of 1880 to 2015 in US/Pacific: the wall-clock times written", pacificFile, wallRows(t, "ts", pacificWall)},
		{"TIMESTAMP without a writer zone: read as UTC", zonelessFile, wallRows(t, "ts", zonelessWall)},
		{"decimals with trimmed scales: brought to the type's", trimmedDecimalFile, decimals},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			d, err := decodeRaw(t, mem, c.file.bytes(), ReadOptions{BatchSize: 3})
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, d, c.want)
		})
	}
}

func TestHandmadeFilesRefused(t *testing.T) {
	t.Parallel()
	v2 := decimalFile(encodingDecimal64, -1, []int64{1}, []int64{5})
	v2.version = []uint64{1, 9999}
	cases := []struct {
		name string
		file handmade
		want error
	}{
		// Early ORC Java wrote files whose root is any type; the package
		// needs a struct root to name the top-level columns.
		{"a root that is not a struct", handmade{types: [][]byte{kindType(Timestamp)}}, ErrInvalidFile},
		// ORC Java marks its unstable pre-release of ORC v2 with version
		// [1, 9999] and writes small decimals there with the DECIMAL_64
		// encoding, which ORC v1 files must not use.
		{"the unstable ORC v2 pre-release", v2, ErrUnsupported},
		{"a DECIMAL_64 column in a v1 file", decimalFile(encodingDecimal64, -1, []int64{1}, []int64{5}), ErrUnsupported},
		// Arrow's string arrays must hold UTF-8, and so must ORC's string
		// columns (FuzzRead's input 3332496c9b2bf091).
		{"a string that is not UTF-8", stringFile("ok", "a\xffb"), ErrInvalidFile},
		{"UTF-8 strings are read to the end", stringFile("ok", "été"), io.EOF},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if err := decodeBytes(checkedAlloc(t), c.file.bytes()); !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
		})
	}
}
