package pqcodec

import "unsafe"

// MaxSlot bounds the values Slots copies word by word; longer ones are
// copied with copy. A buffer Slots.Gather writes into needs MaxSlot bytes
// of room past its values.
const MaxSlot = 64

// Slots holds a dictionary's values in fixed-size, zero-padded slots, so
// that each lookup copies a few whole words with no call and no branch on
// the value's length: most dictionary-encoded strings (codes, flags,
// names) are short.
type Slots struct {
	stride int // bytes per slot, a multiple of 8; 0 when not used
	slots  []byte
	lens   []int32
}

// NewSlots returns the slots of the binary values vals[offs[i]:offs[i+1]];
// they are not used (Usable is false) when a value is longer than MaxSlot.
func NewSlots(offs []int32, vals []byte) Slots {
	nd := len(offs) - 1
	longest := int32(0)
	for i := range nd {
		longest = max(longest, offs[i+1]-offs[i])
	}
	if longest > MaxSlot {
		return Slots{}
	}
	stride := max(8, int(longest+7)&^7)
	// MaxSlot bytes of padding: gatherSlots may read a whole S past the
	// last slot.
	d := Slots{stride: stride, slots: make([]byte, nd*stride+MaxSlot), lens: make([]int32, nd)}
	for i := range nd {
		d.lens[i] = offs[i+1] - offs[i]
		copy(d.slots[i*stride:], vals[offs[i]:offs[i+1]])
	}
	return d
}

// Usable reports whether Gather may be used.
func (d *Slots) Usable() bool { return d.stride > 0 }

// Gather writes the value of each key whose row is valid (every row when
// valid is nil; row i is bit at+i) into data from byte start on, each
// row's start into out, and returns the end of the last one. data has
// MaxSlot bytes of room past that end; keys of valid rows are in range
// (checked by the caller).
func (d *Slots) Gather(data []byte, out []int32, keys []int32, valid []byte, at int, start int32) int32 {
	switch d.stride {
	case 8:
		return gatherSlots[[8]byte](d, data, out, keys, valid, at, start)
	case 16:
		return gatherSlots[[16]byte](d, data, out, keys, valid, at, start)
	case 24:
		return gatherSlots[[24]byte](d, data, out, keys, valid, at, start)
	case 32:
		return gatherSlots[[32]byte](d, data, out, keys, valid, at, start)
	case 40, 48:
		return gatherSlots[[48]byte](d, data, out, keys, valid, at, start)
	}
	return gatherSlots[[MaxSlot]byte](d, data, out, keys, valid, at, start)
}

// slot is one dictionary slot as a value, so that a copy is a few moves.
type slot interface {
	[8]byte | [16]byte | [24]byte | [32]byte | [48]byte | [MaxSlot]byte
}

// gatherSlots is Gather with slots moved as values of type S, at least as
// wide as a slot.
func gatherSlots[S slot](d *Slots, data []byte, out []int32, keys []int32, valid []byte, at int, start int32) int32 {
	width := int(unsafe.Sizeof(*new(S)))
	// Each value is moved as one S of width bytes: reads past a slot land
	// in the next one or in the padding after the last, writes past a
	// value are overwritten by the next one or fall in the room past the
	// end.
	slots := d.slots
	move := func(pos int32, k int32) {
		src := slots[int(k)*d.stride:][:width]
		dst := data[pos:][:width]
		*(*S)(unsafe.Pointer(unsafe.SliceData(dst))) = *(*S)(unsafe.Pointer(unsafe.SliceData(src)))
	}
	pos := start
	if valid == nil {
		for i, k := range keys {
			out[i] = pos
			move(pos, k)
			pos += d.lens[k]
		}
		return pos
	}
	if len(d.lens) == 0 {
		// No values: every row is null.
		for i := range keys {
			out[i] = pos
		}
		return pos
	}
	// Nulls fall anywhere, so a branch on each row's bit would be
	// mispredicted as often as they change. A null row moves slot 0
	// (its key, which need not be in range, is masked to 0) to where the
	// next value will go, and adds no length.
	for i, k := range keys {
		out[i] = pos
		r := at + i
		keep := -int32(valid[r>>3] >> (uint(r) & 7) & 1)
		k &= keep
		move(pos, k)
		pos += d.lens[k] & keep
	}
	return pos
}
