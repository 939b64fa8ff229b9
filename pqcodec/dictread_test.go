package pqcodec

import (
	"encoding/binary"
	"errors"
	"testing"
)

// TestIndexOutOfDictionary checks that an index past the dictionary, in a
// bit-packed run or a repeated one, anywhere in a block, is an error
// wrapping ErrCorrupt, and that the indices before it pass.
func TestIndexOutOfDictionary(t *testing.T) {
	const w, n = 4, 9 // indices 0 to 8 are in range, 9 to 15 are not
	packed := func(vals []uint32) []byte {
		return append(binary.AppendUvarint(nil, uint64(len(vals)/8)<<1|1), packLSB(vals, w)...)
	}
	repeated := func(v byte, count int) []byte {
		return append(binary.AppendUvarint(nil, uint64(count)<<1), v)
	}
	ok := []uint32{0, 1, 2, 3, 4, 5, 6, 8}
	for _, tc := range []struct {
		name string
		data []byte
		bad  bool
	}{
		{"in range", append(packed(ok), repeated(8, 8)...), false},
		{"bit-packed first", packed([]uint32{9, 0, 0, 0, 0, 0, 0, 0}), true},
		{"bit-packed last", append(packed(ok), packed([]uint32{0, 0, 0, 0, 0, 0, 0, 15})...), true},
		{"repeated", append(packed(ok), repeated(9, 8)...), true},
	} {
		c := &ColumnReader{dict: &dictionary{n: n}}
		if err := c.page.idx.reset(tc.data, w); err != nil {
			t.Fatal(err)
		}
		idx, err := c.indices(16)
		switch {
		case tc.bad && !errors.Is(err, ErrCorrupt):
			t.Errorf("%s: got %v, want an error wrapping ErrCorrupt", tc.name, err)
		case !tc.bad && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case !tc.bad && (len(idx) != 16 || idx[:17][16] != 0):
			t.Errorf("%s: %d indices, or no 0 past them", tc.name, len(idx))
		}
	}
}
