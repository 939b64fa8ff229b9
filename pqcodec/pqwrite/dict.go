package pqwrite

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"unsafe"
)

// The dictionaries below map each distinct value of a column chunk to its
// index in the chunk's dictionary page (Parquet encodings, "Dictionary
// Encoding"). They are open-addressing hash tables with linear probing,
// specialised per value width so that a lookup neither boxes the value nor
// allocates: the cost that dominates arrow-go's dictionary encoder.

// hashMul is 2^64 divided by the golden ratio: multiplying by it and
// keeping the top bits spreads integer keys over a power-of-two table
// (Knuth's multiplicative hashing).
const hashMul = 0x9E3779B97F4A7C15

// Tables double at half load, from minSlots or the size a hint asks for,
// up to maxHintSlots: a hint sizes a table only as far as a dictionary
// page within any sane size limit reaches.
const (
	minSlots     = 1 << 10
	maxHintSlots = 1 << 22
)

// tableSize returns the slots for a dictionary of about hint entries,
// with the shift that maps a 64-bit hash onto them.
func tableSize(hint int) (slots int, shift uint) {
	slots, shift = minSlots, 64-10
	for slots < maxHintSlots && slots < 2*(hint+1) {
		slots, shift = 2*slots, shift-1
	}
	return slots, shift
}

// fixedSlot is a table slot: the key and its index plus one (0: empty).
type fixedSlot[K uint32 | uint64] struct {
	key K
	idx uint32
}

// fixedDict is the dictionary of 4- or 8-byte values, keyed by their bits
// (so NaNs of different payloads and -0 stay distinct entries, as PLAIN
// would keep them).
type fixedDict[K uint32 | uint64] struct {
	slots []fixedSlot[K]
	shift uint
	keys  []K // the entries in index order
}

func newFixedDict[K uint32 | uint64](hint int) *fixedDict[K] {
	n, shift := tableSize(hint)
	return &fixedDict[K]{slots: make([]fixedSlot[K], n), shift: shift, keys: make([]K, 0, min(hint, n/2))}
}

// insert appends the index of each of vals to out, adding new values.
func (d *fixedDict[K]) insert(vals []K, out []uint32) []uint32 {
	if len(vals) == 0 {
		return out
	}
	// A run of one value, common in sorted or low-cardinality data, skips
	// the table.
	last, lastIdx := vals[0]^1, uint32(0)
	for _, v := range vals {
		if v == last {
			out = append(out, lastIdx)
			continue
		}
		h := (uint64(v) * hashMul) >> d.shift
		mask := uint64(len(d.slots) - 1)
		for {
			s := &d.slots[h]
			if s.idx == 0 {
				d.keys = append(d.keys, v)
				s.key, s.idx = v, uint32(len(d.keys))
				lastIdx = s.idx - 1
				if 2*len(d.keys) > len(d.slots) {
					d.grow()
				}
				break
			}
			if s.key == v {
				lastIdx = s.idx - 1
				break
			}
			h = (h + 1) & mask
		}
		last = v
		out = append(out, lastIdx)
	}
	return out
}

func (d *fixedDict[K]) grow() {
	old := d.slots
	d.slots = make([]fixedSlot[K], 2*len(old))
	d.shift--
	mask := uint64(len(d.slots) - 1)
	for _, s := range old {
		if s.idx == 0 {
			continue
		}
		h := (uint64(s.key) * hashMul) >> d.shift
		for d.slots[h].idx != 0 {
			h = (h + 1) & mask
		}
		d.slots[h] = s
	}
}

func (d *fixedDict[K]) len() int { return len(d.keys) }

func (d *fixedDict[K]) plainSize() int { return len(d.keys) * int(unsafe.Sizeof(K(0))) }

// appendPlain appends the entries PLAIN encoded: little-endian values.
func (d *fixedDict[K]) appendPlain(dst []byte) []byte {
	return appendFixedLE(dst, d.keys)
}

// appendPlainOf appends the entries at idx PLAIN encoded.
func (d *fixedDict[K]) appendPlainOf(dst []byte, idx []uint32) []byte {
	for _, i := range idx {
		dst = appendFixedLE(dst, d.keys[i:i+1])
	}
	return dst
}

// appendFixedLE appends vals as little-endian bytes: their memory, on the
// little-endian hosts the package works on (see littleEndian).
func appendFixedLE[K uint32 | uint64](dst []byte, vals []K) []byte {
	if len(vals) == 0 {
		return dst
	}
	size := int(unsafe.Sizeof(K(0)))
	return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), len(vals)*size)...)
}

// littleEndian is whether the host is little-endian. Arrow buffers hold
// values in host order and PLAIN pages in little-endian order; the kernels
// here read the one as the other, so on a big-endian host no column is
// Supported and arrow-go writes them all.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// bytesSlot is a slot of bytesDict: the low bits of the value's hash, to
// skip most comparisons, and its index plus one (0: empty).
type bytesSlot struct {
	hash uint32
	idx  uint32
}

// bytesDict is the dictionary of byte strings (BYTE_ARRAY) or of
// fixed-length ones (FIXED_LEN_BYTE_ARRAY, fixed set), its entries kept
// end to end in one arena.
type bytesDict struct {
	slots []bytesSlot
	shift uint
	seed  maphash.Seed
	arena []byte
	ends  []uint32 // entry i is arena[ends[i-1]:ends[i]]
	fixed bool
	size  int // PLAIN size of the entries
}

func newBytesDict(fixed bool, hint int) *bytesDict {
	n, shift := tableSize(hint)
	return &bytesDict{slots: make([]bytesSlot, n), shift: shift, seed: maphash.MakeSeed(), fixed: fixed,
		ends: make([]uint32, 0, min(hint, n/2))}
}

func (d *bytesDict) entry(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = d.ends[i-1]
	}
	return d.arena[start:d.ends[i]]
}

// lookup returns the index of v, adding it if new.
func (d *bytesDict) lookup(v []byte) uint32 {
	hv := maphash.Bytes(d.seed, v)
	h := hv >> d.shift
	tag := uint32(hv)
	mask := uint64(len(d.slots) - 1)
	for {
		s := &d.slots[h]
		if s.idx == 0 {
			d.arena = append(d.arena, v...)
			d.ends = append(d.ends, uint32(len(d.arena)))
			s.hash, s.idx = tag, uint32(len(d.ends))
			d.size += len(v)
			if !d.fixed {
				d.size += 4
			}
			idx := s.idx - 1
			if 2*len(d.ends) > len(d.slots) {
				d.grow()
			}
			return idx
		}
		if s.hash == tag && bytes.Equal(d.entry(s.idx-1), v) {
			return s.idx - 1
		}
		h = (h + 1) & mask
	}
}

func (d *bytesDict) grow() {
	old := d.slots
	d.slots = make([]bytesSlot, 2*len(old))
	d.shift--
	mask := uint64(len(d.slots) - 1)
	for _, s := range old {
		if s.idx == 0 {
			continue
		}
		h := maphash.Bytes(d.seed, d.entry(s.idx-1)) >> d.shift
		for d.slots[h].idx != 0 {
			h = (h + 1) & mask
		}
		d.slots[h] = s
	}
}

func (d *bytesDict) len() int { return len(d.ends) }

func (d *bytesDict) plainSize() int { return d.size }

// appendPlain appends the entries PLAIN encoded: each a 4-byte
// little-endian length and its bytes, or only its bytes when fixed.
func (d *bytesDict) appendPlain(dst []byte) []byte {
	if d.fixed {
		return append(dst, d.arena...)
	}
	for i := range d.ends {
		dst = appendByteArray(dst, d.entry(uint32(i)))
	}
	return dst
}

// appendPlainOf appends the entries at idx PLAIN encoded.
func (d *bytesDict) appendPlainOf(dst []byte, idx []uint32) []byte {
	for _, i := range idx {
		if d.fixed {
			dst = append(dst, d.entry(i)...)
		} else {
			dst = appendByteArray(dst, d.entry(i))
		}
	}
	return dst
}

// appendByteArray appends v PLAIN encoded as a BYTE_ARRAY.
func appendByteArray(dst, v []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v)))
	return append(dst, v...)
}
