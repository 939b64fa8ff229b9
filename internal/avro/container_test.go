package avro

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/linkedin/goavro/v2"
)

const longSchema = `{"type":"record","name":"r","fields":[{"name":"v","type":{"type":"long","logicalType":"timestamp-micros"},"field-id":7}]}`

// container writes an Object Container File (Avro spec) with one block per
// entry of blocks, each a list of values of field v. It returns the file
// and the offset of the sync marker before each block.
func container(t *testing.T, codec string, blocks ...[]int64) ([]byte, []int64) {
	t.Helper()
	c, err := goavro.NewCodec(`{"type":"record","name":"r","fields":[{"name":"v","type":"long"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.WriteString("Obj\x01")
	put := func(b []byte) {
		out.Write(binary.AppendVarint(nil, int64(len(b))))
		out.Write(b)
	}
	out.Write(binary.AppendVarint(nil, -2))
	out.Write(binary.AppendVarint(nil, 99)) // a block byte size, which readers skip
	put([]byte("avro.schema"))
	put([]byte(longSchema))
	put([]byte("avro.codec"))
	put([]byte(codec))
	out.Write(binary.AppendVarint(nil, 0))
	sync := []byte("SYNCSYNCSYNCSYNC")
	var syncs []int64
	for _, vals := range blocks {
		syncs = append(syncs, int64(out.Len()))
		out.Write(sync)
		var body []byte
		for _, v := range vals {
			if body, err = c.BinaryFromNative(body, map[string]any{"v": v}); err != nil {
				t.Fatal(err)
			}
		}
		switch codec {
		case "deflate":
			var z bytes.Buffer
			w, _ := flate.NewWriter(&z, flate.BestSpeed)
			w.Write(body)
			w.Close()
			body = z.Bytes()
		case "snappy":
			body = binary.BigEndian.AppendUint32(snappy.Encode(nil, body), crc32.ChecksumIEEE(body))
		case "zstandard":
			enc, _ := zstd.NewWriter(nil)
			body = enc.EncodeAll(body, nil)
		}
		out.Write(binary.AppendVarint(nil, int64(len(vals))))
		put(body)
	}
	out.Write(sync)
	return out.Bytes(), syncs
}

// readAll returns the values of v and their row positions.
func readAll(t *testing.T, c *Container) (vals, pos []int64) {
	t.Helper()
	for {
		v, err := c.Next()
		if errors.Is(err, io.EOF) {
			return vals, pos
		}
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v.(map[string]any)["v"].(int64))
		pos = append(pos, c.Position())
	}
}

func TestContainerCodecs(t *testing.T) {
	t.Parallel()
	for _, codec := range []string{"null", "deflate", "snappy", "zstandard"} {
		t.Run(codec, func(t *testing.T) {
			t.Parallel()
			file, _ := container(t, codec, []int64{1, 2}, []int64{3})
			c, err := Open(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Metadata()["avro.codec"]; got != codec || c.Codec() != codec {
				t.Errorf("codec %q / %q, want %q", got, c.Codec(), codec)
			}
			c.DecodePhysical()
			vals, pos := readAll(t, c)
			if len(vals) != 3 || vals[2] != 3 || pos[2] != 2 {
				t.Errorf("values %v at %v", vals, pos)
			}
		})
	}
}

func TestContainerLogicalTypes(t *testing.T) {
	t.Parallel()
	file, _ := container(t, "null", []int64{1_000_000})
	c, err := Open(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, isInt := v.(map[string]any)["v"].(int64); isInt {
		t.Errorf("goavro decoded timestamp-micros as int64; DecodePhysical should be needed for that")
	}
	c, _ = Open(bytes.NewReader(file))
	c.DecodePhysical()
	if v, err = c.Next(); err != nil || v.(map[string]any)["v"] != int64(1_000_000) {
		t.Errorf("physical value %v (%v), want 1000000", v, err)
	}
}

func TestContainerRange(t *testing.T) {
	t.Parallel()
	file, syncs := container(t, "deflate", []int64{10, 11}, []int64{12, 13, 14}, []int64{15})
	tests := []struct {
		name       string
		start, end int64
		wantVals   []int64
		wantPos    []int64
	}{
		{"a range covering the header's sync marker starts at the first block", 0, syncs[0] + 1, []int64{10, 11}, []int64{0, 1}},
		{"blocks before the range are skipped but counted", syncs[0] + 1, syncs[2], []int64{12, 13, 14}, []int64{2, 3, 4}},
		{"a block belongs to the range holding the sync marker before it", syncs[2], syncs[2] + 1, []int64{15}, []int64{5}},
		{"a range with no sync marker reads nothing", syncs[0] + 1, syncs[1], nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := Open(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			c.DecodePhysical()
			c.SetRange(tc.start, tc.end)
			vals, pos := readAll(t, c)
			if !equal(vals, tc.wantVals) || !equal(pos, tc.wantPos) {
				t.Errorf("values %v at %v, want %v at %v", vals, pos, tc.wantVals, tc.wantPos)
			}
		})
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestContainerRejectsDamage(t *testing.T) {
	t.Parallel()
	file, syncs := container(t, "null", []int64{1}, []int64{2})
	bad := append([]byte(nil), file...)
	bad[syncs[1]] ^= 0xff // the sync marker after the first block
	c, err := Open(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(); !errors.Is(err, ErrInvalid) {
		t.Errorf("err = %v, want ErrInvalid", err)
	}
	if _, err := Open(bytes.NewReader([]byte("PAR1"))); !errors.Is(err, ErrInvalid) {
		t.Errorf("not avro: err = %v, want ErrInvalid", err)
	}
}

func TestParseSchema(t *testing.T) {
	t.Parallel()
	s, err := ParseSchema([]byte(`{"type":"record","name":"r","namespace":"ns","fields":[
		{"name":"a","type":["null",{"type":"fixed","name":"f16","size":16,"logicalType":"uuid"}],"field-id":3},
		{"name":"b","type":"ns.f16","field-id":"4"},
		{"name":"c","type":{"type":"array","items":"f16","element-id":9}},
		{"name":"d","type":{"type":"map","values":"long","key-id":10,"value-id":11},"field-id":5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	f := s.Fields
	if s.Name != "ns.r" || f[0].ID() != 3 || f[1].ID() != 4 || f[2].ID() != -1 {
		t.Errorf("name %q, ids %d %d %d", s.Name, f[0].ID(), f[1].ID(), f[2].ID())
	}
	uuid := f[0].Type.Branches[1]
	if uuid.Logical != "uuid" || uuid.Size != 16 || f[1].Type != uuid || f[2].Type.Items != uuid {
		t.Errorf("named type not shared: %+v", uuid)
	}
	if id, ok := f[2].Type.IntProp("element-id"); !ok || id != 9 {
		t.Errorf("element-id %d %v", id, ok)
	}
	if k, _ := f[3].Type.IntProp("key-id"); k != 10 {
		t.Errorf("key-id %d", k)
	}
}

func TestBlocksOverTheBoundAreRefused(t *testing.T) {
	t.Parallel()
	// 4,000 zeros: one byte each plain, a few dozen compressed.
	vals := make([]int64, 4000)
	cases := []struct {
		name  string
		codec string
		max   int64
		want  error
	}{
		{"a plain block longer than the bound", "null", 1000, ErrTooLarge},
		{"a deflate block that inflates past the bound", "deflate", 1000, ErrTooLarge},
		{"a snappy block that inflates past the bound", "snappy", 1000, ErrTooLarge},
		{"a zstandard block that inflates past the bound", "zstandard", 1000, ErrTooLarge},
		{"a block within the bound is read", "deflate", 4000, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, _ := container(t, tc.codec, vals)
			c, err := Open(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			c.SetMaxBlock(tc.max)
			_, _, err = c.ReadBlock()
			if !errors.Is(err, tc.want) {
				t.Fatalf("ReadBlock = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestLengthsPastTheEndAreRefused(t *testing.T) {
	t.Parallel()
	raw, syncs := container(t, "null", []int64{1, 2, 3})
	// The block's byte length follows its record count, after the sync
	// marker before it: claim the most a varint of that width can hold.
	at := int(syncs[0]) + 16
	_, n := binary.Varint(raw[at:])
	lying := append([]byte(nil), raw...)
	binary.PutVarint(lying[at+n:at+n+1], 63) // one byte: at most 63
	c, err := Open(bytes.NewReader(lying))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ReadBlock(); !errors.Is(err, ErrInvalid) || !bytes.Contains([]byte(err.Error()), []byte("past the end")) {
		t.Fatalf("ReadBlock = %v, want ErrInvalid: past the end", err)
	}
}
