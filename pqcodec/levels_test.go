package pqcodec

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// bitPacked encodes levels in the deprecated BIT_PACKED level encoding:
// width bits each, most significant bit first.
func bitPacked(levels []int16, width int) []byte {
	out := make([]byte, (len(levels)*width+7)/8)
	for i, v := range levels {
		for b := range width {
			if v>>(width-1-b)&1 == 1 {
				p := i*width + b
				out[p/8] |= 1 << (7 - p%8)
			}
		}
	}
	return out
}

// hybrid encodes levels as one bit-packed run of the RLE/bit-packing
// hybrid, with the 4-byte length a v1 page puts before it.
func hybrid(levels []int16, width int) []byte {
	groups := (len(levels) + 7) / 8
	body := binary.AppendUvarint(nil, uint64(groups)<<1|1)
	packed := make([]byte, groups*width)
	for i, v := range levels {
		for b := range width {
			if v>>b&1 == 1 {
				p := i*width + b
				packed[p/8] |= 1 << (p % 8)
			}
		}
	}
	body = append(body, packed...)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func TestV1PageLevels(t *testing.T) {
	// A list<int32 nullable> nullable column: def 0 null list, 1 empty, 2
	// null element, 3 value; slots from def 2 on.
	def := []int16{0, 1, 2, 3, 3, 3, 2, 3}
	rep := []int16{0, 0, 0, 0, 1, 1, 0, 1}
	values := []byte("values")
	cases := []struct {
		name           string
		repEnc, defEnc int32
		data           []byte
		err            bool
		maxDef         int16 // 0: 3
	}{
		{"RLE levels", encRLE, encRLE, slices.Concat(hybrid(rep, 1), hybrid(def, 2), values), false, 0},
		{"BIT_PACKED levels", encBitPacked, encBitPacked, slices.Concat(bitPacked(rep, 1), bitPacked(def, 2), values), false, 0},
		{"BIT_PACKED repetition, RLE definition", encBitPacked, encRLE, slices.Concat(bitPacked(rep, 1), hybrid(def, 2), values), false, 0},
		{"BIT_PACKED levels past the page", encBitPacked, encBitPacked, bitPacked(rep, 1), true, 0},
		{"RLE length past the page", encRLE, encRLE, hybrid(rep, 1)[:5], true, 0},
		{"a level past the column's maximum", encRLE, encRLE, slices.Concat(hybrid(rep, 1), hybrid(def, 2), values), true, 2},
		{"levels in an unknown encoding", encRLE, encPlain, slices.Concat(hybrid(rep, 1), hybrid(def, 2), values), true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &ColumnReader{maxDef: cmp.Or(tc.maxDef, 3), nest: &nesting{maxRep: 1, slotDef: 2}}
			h := pageHeader{typ: pageData, repEnc: tc.repEnc, defEnc: tc.defEnc}
			rest, err := c.openLevels(h, len(def), nil, tc.data)
			if tc.err {
				if err == nil {
					t.Fatal("corrupt levels were read")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rest, values) || !slices.Equal(c.nest.def, def) || !slices.Equal(c.nest.rep, rep) {
				t.Fatalf("levels %v %v, values %q", c.nest.def, c.nest.rep, rest)
			}
			// Slots: def 2, 3, 3, 3, 2, 3; valid where def is 3.
			if c.page.left != 6 {
				t.Fatalf("%d slots, want 6", c.page.left)
			}
			for i, want := range []bool{false, true, true, true, false, true} {
				if bitutil.BitIsSet(c.page.valid, i) != want {
					t.Errorf("slot %d valid %v", i, !want)
				}
			}
		})
	}
}
