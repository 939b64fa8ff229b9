package pqcodec

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// The arrays above the leaves are built from a leaf's levels, each node by
// the thresholds of its LevelInfo (Dremel's record shredding undone, as
// the Parquet format's nested encoding describes it and pqarrow applies
// it): a level with definition level below RepeatedAncestorDefLevel lies
// in an empty or null ancestor list and holds no slot of the node; one
// with repetition level past the node's continues a list further down.
// Of the rest, a list's level whose repetition level is its own adds an
// element to the list in progress, any other starts a slot; a struct's
// and a leaf's levels each start one.

// build returns node n of the batch whose leaves read the value slots
// given, checking that every node's children agree with it in length.
func (f *FieldReader) build(n *fieldNode, slots []arrow.Array) (arrow.ArrayData, error) {
	switch n.kind {
	case leafNode:
		d := slots[n.leaf].Data()
		d.Retain()
		return d, nil
	case structNode:
		return f.buildStruct(n, slots)
	}
	return f.buildList(n, slots)
}

func (f *FieldReader) buildStruct(n *fieldNode, slots []arrow.Array) (arrow.ArrayData, error) {
	children := make([]arrow.ArrayData, 0, len(n.children))
	defer func() {
		for _, ch := range children {
			ch.Release()
		}
	}()
	for _, ch := range n.children {
		d, err := f.build(ch, slots)
		if err != nil {
			return nil, err
		}
		children = append(children, d)
	}
	// pqarrow gives a struct validity when it is optional or holds lists
	// in every child; a required struct of flat children is as long as
	// its first child, with no nulls.
	length, nulls := children[0].Len(), 0
	var valid *memory.Buffer
	if n.nullable || n.repeated {
		nt := f.leaves[n.levels].nest
		valid = memory.NewResizableBuffer(f.mem)
		defer valid.Release()
		valid.Resize(int(bitutil.BytesForBits(int64(len(nt.defs)))))
		length, nulls = structValidity(nt.defs, nt.reps, n.info, valid.Bytes())
		valid.Resize(int(bitutil.BytesForBits(int64(length))))
	}
	for i, ch := range children {
		if ch.Len() != length {
			return nil, fmt.Errorf("%w: struct child %d of %d slots in a struct of %d", ErrCorrupt, i, ch.Len(), length)
		}
	}
	if nulls == 0 {
		valid = nil
	}
	return array.NewData(n.typ, length, []*memory.Buffer{valid}, children, nulls, 0), nil
}

// structValidity writes a struct's (or a leaf's) validity bits, one per
// slot, and returns its slots and nulls.
func structValidity(defs, reps []int16, info file.LevelInfo, valid []byte) (slots, nulls int) {
	for i, d := range defs {
		if d < info.RepeatedAncestorDefLevel || reps[i] > info.RepLevel {
			continue
		}
		bitutil.SetBitTo(valid, slots, d >= info.DefLevel)
		if d < info.DefLevel {
			nulls++
		}
		slots++
	}
	return slots, nulls
}

func (f *FieldReader) buildList(n *fieldNode, slots []arrow.Array) (arrow.ArrayData, error) {
	child, err := f.build(n.children[0], slots)
	if err != nil {
		return nil, err
	}
	defer child.Release()
	nt := f.leaves[n.levels].nest
	offsets := memory.NewResizableBuffer(f.mem)
	defer offsets.Release()
	offsets.Resize(4 * (len(nt.defs) + 1))
	var valid *memory.Buffer
	var bits []byte
	if n.nullable {
		valid = memory.NewResizableBuffer(f.mem)
		defer valid.Release()
		valid.Resize(int(bitutil.BytesForBits(int64(len(nt.defs)))))
		bits = valid.Bytes()
	}
	offs := arrow.Int32Traits.CastFromBytes(offsets.Bytes())
	length, nulls, err := listOffsets(nt.defs, nt.reps, n.info, offs, bits)
	if err != nil {
		return nil, err
	}
	if int(offs[length]) != child.Len() {
		return nil, fmt.Errorf("%w: a list of %d elements over %d child slots", ErrCorrupt, offs[length], child.Len())
	}
	offsets.Resize(4 * (length + 1))
	if valid != nil {
		valid.Resize(int(bitutil.BytesForBits(int64(length))))
	}
	if nulls == 0 {
		valid = nil
	}
	return array.NewData(n.typ, length, []*memory.Buffer{valid, offsets}, []arrow.ArrayData{child}, nulls, 0), nil
}

// listOffsets writes a list's offsets, and when valid is not nil its
// validity bits, and returns its slots and nulls. Its LevelInfo's
// DefLevel is the level at which a list holds an element; one less, the
// list is empty.
func listOffsets(defs, reps []int16, info file.LevelInfo, offs []int32, valid []byte) (slots, nulls int, err error) {
	offs[0] = 0
	elems := int32(0)
	for i, d := range defs {
		r := reps[i]
		if d < info.RepeatedAncestorDefLevel || r > info.RepLevel {
			continue
		}
		if r == info.RepLevel {
			if slots == 0 || d < info.DefLevel {
				return 0, 0, fmt.Errorf("%w: a list element (levels %d, %d) outside any list", ErrCorrupt, d, r)
			}
			if elems == math.MaxInt32 {
				return 0, 0, fmt.Errorf("%w: a batch of more than %d list elements", ErrTooLarge, math.MaxInt32)
			}
			elems++
			offs[slots] = elems
			continue
		}
		if d >= info.DefLevel {
			if elems == math.MaxInt32 {
				return 0, 0, fmt.Errorf("%w: a batch of more than %d list elements", ErrTooLarge, math.MaxInt32)
			}
			elems++
		}
		if valid != nil {
			bitutil.SetBitTo(valid, slots, d >= info.DefLevel-1)
			if d < info.DefLevel-1 {
				nulls++
			}
		}
		slots++
		offs[slots] = elems
	}
	return slots, nulls, nil
}
