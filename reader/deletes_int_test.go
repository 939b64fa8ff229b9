package reader

import (
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// The integer fast path must delete exactly what the encoded-key path
// deletes: the same keys, the null key only for nulls.
func TestIntegerKeySetsMatchEncodedKeys(t *testing.T) {
	t.Parallel()
	mem := checkedAlloc(t)
	set := &keySet{keys: map[string]struct{}{}}
	for _, v := range []int64{3, -1, 1 << 40} {
		set.add(binary.LittleEndian.AppendUint64([]byte{1}, uint64(v)))
	}
	set.add([]byte{0}) // the null key
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{1, 3, -1, 1 << 40, 4}, nil)
	b.AppendNull()
	col := b.NewArray()
	b.Release()
	defer col.Release()
	deleted := make([]bool, col.Len())
	hit, ok := set.intMatches(col, deleted)
	if !ok || !hit {
		t.Fatalf("fast path not taken (ok %v) or nothing deleted (hit %v)", ok, hit)
	}
	want := []bool{false, true, true, true, false, true}
	for i := range want {
		if deleted[i] != want[i] {
			t.Errorf("row %d deleted %v, want %v", i, deleted[i], want[i])
		}
	}
	// An int32 column against 64-bit keys takes the general path.
	b32 := array.NewInt32Builder(mem)
	b32.Append(3)
	c32 := b32.NewArray()
	b32.Release()
	defer c32.Release()
	if _, ok := set.intMatches(c32, make([]bool, 1)); ok {
		t.Error("a 32-bit column was matched against 64-bit keys")
	}
}
