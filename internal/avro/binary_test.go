package avro

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/linkedin/goavro/v2"
)

// everyType is a record with a field of every Avro type, as goavro encodes
// it: the values the Decoder must read back or skip.
const everyType = `{"type":"record","name":"r","fields":[
	{"name":"n","type":"null"},
	{"name":"b","type":"boolean"},
	{"name":"i","type":"int"},
	{"name":"l","type":"long"},
	{"name":"f","type":"float"},
	{"name":"d","type":"double"},
	{"name":"by","type":"bytes"},
	{"name":"s","type":"string"},
	{"name":"e","type":{"type":"enum","name":"e","symbols":["A","B","C"]}},
	{"name":"fx","type":{"type":"fixed","name":"f3","size":3}},
	{"name":"a","type":{"type":"array","items":"long"}},
	{"name":"m","type":{"type":"map","values":["null","string"]}},
	{"name":"rec","type":{"type":"record","name":"r2","fields":[{"name":"x","type":"int"}]}},
	{"name":"u","type":["null","int","r2"]}]}`

func everyTypeValue() map[string]any {
	return map[string]any{
		"n": nil, "b": true, "i": int32(-70000), "l": int64(math.MinInt64), "f": float32(1.5), "d": -2.25,
		"by": []byte{0, 1, 2}, "s": "héllo", "e": "C", "fx": []byte{7, 8, 9},
		"a": []any{int64(1), int64(-1), int64(1 << 40)},
		"m": map[string]any{"k": goavro.Union("string", "v"), "z": nil},
		"u": goavro.Union("r2", map[string]any{"x": int32(3)}), "rec": map[string]any{"x": int32(4)},
	}
}

func encodeEveryType(t *testing.T) (*Schema, []byte) {
	t.Helper()
	codec, err := goavro.NewCodec(everyType)
	if err != nil {
		t.Fatal(err)
	}
	data, err := codec.BinaryFromNative(nil, everyTypeValue())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSchema([]byte(everyType))
	if err != nil {
		t.Fatal(err)
	}
	return s, data
}

func TestDecoderReadsWhatGoavroWrites(t *testing.T) {
	t.Parallel()
	s, data := encodeEveryType(t)
	d := NewDecoder(data)
	if d.Boolean() != true || d.Int() != -70000 || d.Long() != math.MinInt64 || d.Float() != 1.5 || d.Double() != -2.25 {
		t.Fatalf("primitives misread (%v)", d.Err())
	}
	if !bytes.Equal(d.Bytes(), []byte{0, 1, 2}) || string(d.Bytes()) != "héllo" || d.Long() != 2 || !bytes.Equal(d.Fixed(3), []byte{7, 8, 9}) {
		t.Fatalf("bytes misread (%v)", d.Err())
	}
	var items []int64
	for n := d.BlockCount(); n > 0; n = d.BlockCount() {
		for ; n > 0; n-- {
			items = append(items, d.Long())
		}
	}
	if len(items) != 3 || items[2] != 1<<40 {
		t.Errorf("array %v", items)
	}
	d.Skip(s.Fields[11].Type) // the map
	if x := d.Int(); x != 4 {
		t.Errorf("record field %d", x)
	}
	if b := d.Union(s.Fields[13].Type); b == nil || b.Name != "r2" || d.Int() != 3 {
		t.Errorf("union branch %v (%v)", b, d.Err())
	}
	if d.Err() != nil || d.Remaining() != 0 {
		t.Errorf("err %v, %d bytes left", d.Err(), d.Remaining())
	}
}

func TestDecoderSkip(t *testing.T) {
	t.Parallel()
	s, data := encodeEveryType(t)
	d := NewDecoder(data)
	d.Skip(s)
	if d.Err() != nil || d.Remaining() != 0 {
		t.Errorf("skip: err %v, %d bytes left", d.Err(), d.Remaining())
	}
	// Avro spec: a block may start with a negative count followed by its
	// byte size; Skip then jumps over the block without reading the items.
	arr, _ := ParseSchema([]byte(`{"type":"array","items":"string"}`))
	var blocks []byte
	blocks = binary.AppendVarint(blocks, -2)
	blocks = binary.AppendVarint(blocks, 4)
	blocks = append(blocks, 2, 'a', 2, 'b')
	blocks = binary.AppendVarint(blocks, 1)
	blocks = append(blocks, 0)
	blocks = binary.AppendVarint(blocks, 0)
	d.Reset(append(blocks, 0xff))
	d.Skip(arr)
	if d.Err() != nil || d.Remaining() != 1 {
		t.Errorf("sized blocks: err %v, %d bytes left", d.Err(), d.Remaining())
	}
	// A typed reader sees the sized block's count after its size.
	d.Reset(blocks)
	if n := d.BlockCount(); n != 2 || string(d.Bytes()) != "a" {
		t.Errorf("sized block count %d (%v)", n, d.Err())
	}
}

// Damaged values are errors wrapping ErrInvalid, never panics, however the
// bytes are cut or changed.
func TestDecoderRejectsDamage(t *testing.T) {
	t.Parallel()
	s, data := encodeEveryType(t)
	for n := range len(data) {
		d := NewDecoder(data[:n])
		d.Skip(s)
		if !errors.Is(d.Err(), ErrInvalid) {
			t.Fatalf("cut to %d bytes: err %v", n, d.Err())
		}
	}
	for i := range data {
		damaged := bytes.Clone(data)
		damaged[i] ^= 0xa5
		d := NewDecoder(damaged)
		d.Skip(s)
		if err := d.Err(); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("byte %d changed: err %v", i, err)
		}
	}
	long := func(v int64) []byte { return binary.AppendVarint(nil, v) }
	cases := []struct {
		name string
		data []byte
		read func(d *Decoder)
	}{
		{"varint of eleven bytes", bytes.Repeat([]byte{0x80}, 11), func(d *Decoder) { d.Long() }},
		{"int beyond 32 bits", long(1 << 31), func(d *Decoder) { d.Int() }},
		{"boolean byte 2", []byte{2}, func(d *Decoder) { d.Boolean() }},
		{"negative length", long(-1), func(d *Decoder) { d.Bytes() }},
		{"length past the end", long(5), func(d *Decoder) { d.Bytes() }},
		{"negative fixed size", nil, func(d *Decoder) { d.Fixed(-1) }},
		{"count past the end", long(3), func(d *Decoder) { d.BlockCount() }},
		{"block size past the end", append(long(-1), long(9)...), func(d *Decoder) { d.BlockCount() }},
		{"union branch out of range", long(3), func(d *Decoder) { d.Union(s.Fields[13].Type) }},
	}
	for _, tc := range cases {
		d := NewDecoder(tc.data)
		tc.read(d)
		if !errors.Is(d.Err(), ErrInvalid) {
			t.Errorf("%s: err %v", tc.name, d.Err())
		}
	}
}

// Arrays of values that take no bytes may hold any count: skipping one
// reads nothing per item rather than looping over a damaged count.
func TestDecoderSkipsEmptyItems(t *testing.T) {
	t.Parallel()
	s, _ := ParseSchema([]byte(`{"type":"array","items":"null"}`))
	d := NewDecoder(append(binary.AppendVarint(nil, math.MaxInt64), 0))
	d.Skip(s)
	if d.Err() != nil || d.Remaining() != 0 {
		t.Errorf("err %v, %d bytes left", d.Err(), d.Remaining())
	}
}

func TestContainerReadBlock(t *testing.T) {
	t.Parallel()
	for _, codec := range []string{"null", "deflate", "snappy", "zstandard"} {
		t.Run(codec, func(t *testing.T) {
			t.Parallel()
			file, syncs := container(t, codec, []int64{1, 2}, []int64{3}, []int64{4, 5, 6})
			// Two rounds: the second reuses the buffers the first released.
			for range 2 {
				c, err := Open(bytes.NewReader(file))
				if err != nil {
					t.Fatal(err)
				}
				c.SetRange(syncs[1], -1)
				var got []int64
				for {
					n, data, err := c.ReadBlock()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					d := NewDecoder(data)
					for range n {
						got = append(got, d.Long())
					}
					if d.Err() != nil || d.Remaining() != 0 {
						t.Fatalf("block: err %v, %d bytes left", d.Err(), d.Remaining())
					}
				}
				c.Release()
				if !equal(got, []int64{3, 4, 5, 6}) {
					t.Errorf("values %v", got)
				}
			}
		})
	}
}
