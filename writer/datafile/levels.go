package datafile

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The Parquet writer takes a leaf column as its values plus definition and
// repetition levels (the Dremel encoding). pqarrow computes them inside its
// FileWriter, which writes one column after another; this file computes
// them per leaf so that the leaves of a batch can be encoded at once on
// several cores (see encoder.go). The levels are the ones pqarrow's path
// builder produces for the same array: encoder_test.go compares the two
// writers' files byte for byte.

// nodeKind is what a node on a leaf's path is.
type nodeKind uint8

const (
	nodeLeaf nodeKind = iota
	nodeStruct
	nodeList
	nodeMap
)

// pathNode is one Arrow field on the way from a top-level column to a leaf:
// whether it is nullable (an optional Parquet node, one definition level),
// what it is, and, for structs and maps, which child the path takes (for a
// map, 0 is the key and 1 the value).
type pathNode struct {
	nullable bool
	kind     nodeKind
	child    int
	rep      int16 // a list's or map's repetition level
}

// leafPath is the path of one Parquet leaf column within its top-level
// Arrow column, and the levels it reaches.
type leafPath struct {
	nodes          []pathNode
	maxDef, maxRep int16
	lastRepeated   int // index of the deepest list or map node; -1 if none
}

// leafPaths returns the leaf paths of a top-level field in Parquet's
// column order (depth first; a map's key before its value).
func leafPaths(f arrow.Field) []leafPath {
	var out []leafPath
	addLeafPaths(f.Type, f.Nullable, nil, &out)
	return out
}

func addLeafPaths(dt arrow.DataType, nullable bool, prefix []pathNode, out *[]leafPath) {
	at := func(kind nodeKind, child int) []pathNode {
		return append(prefix[:len(prefix):len(prefix)], pathNode{nullable: nullable, kind: kind, child: child})
	}
	switch t := dt.(type) {
	case *arrow.MapType:
		addLeafPaths(t.KeyType(), t.KeyField().Nullable, at(nodeMap, 0), out)
		addLeafPaths(t.ItemType(), t.ItemField().Nullable, at(nodeMap, 1), out)
	case *arrow.ListType:
		addLeafPaths(t.Elem(), t.ElemField().Nullable, at(nodeList, 0), out)
	case *arrow.StructType:
		for j, cf := range t.Fields() {
			addLeafPaths(cf.Type, cf.Nullable, at(nodeStruct, j), out)
		}
	default:
		nodes := at(nodeLeaf, 0)
		p := leafPath{nodes: nodes, lastRepeated: -1}
		for i := range nodes {
			if nodes[i].nullable {
				p.maxDef++
			}
			if nodes[i].kind == nodeList || nodes[i].kind == nodeMap {
				p.maxDef++
				p.maxRep++
				nodes[i].rep = p.maxRep
				p.lastRepeated = i
			}
		}
		*out = append(*out, p)
	}
}

// leafLevels is what the Parquet column writer takes for one leaf: the
// leaf values (one slot per level entry at or below the deepest list's
// element) and the levels. The caller releases values.
type leafLevels struct {
	values   arrow.Array
	def, rep []int16
	// nullable is whether the leaf's validity may hide values, as
	// pqarrow's path builder reports it (a leaf without nulls is not).
	nullable bool
}

// levels computes the leaf values and levels of path p in column col. The
// levels live in s's buffers, valid until the next call with s.
func (p leafPath) levels(col arrow.Array, mem memory.Allocator, s *levelScratch) (leafLevels, error) {
	arrs, err := p.arrays(col)
	if err != nil {
		return leafLevels{}, err
	}
	leaf := arrs[len(arrs)-1]
	out := leafLevels{nullable: p.nodes[len(p.nodes)-1].nullable && leaf.NullN() > 0}
	if p.lastRepeated < 0 {
		out.values = leaf
		leaf.Retain()
		out.def = p.flatDefs(arrs, s)
		return out, nil
	}
	w := levelWalker{p: p, arrs: arrs, lists: make([]array.ListLike, len(arrs)), def: s.def[:0], rep: s.rep[:0]}
	for i, a := range arrs {
		if l, ok := a.(array.ListLike); ok {
			w.lists[i] = l
		}
	}
	for i := 0; i < col.Len(); i++ {
		w.visit(0, i, 0, 0)
	}
	s.def, s.rep = w.def, w.rep
	out.def, out.rep = w.def, w.rep
	if out.values, err = gather(leaf, w.slots, mem); err != nil {
		return leafLevels{}, err
	}
	return out, nil
}

// arrays returns the array at each node of p: the column, then each
// struct's child, list's values or map's key or value array in turn.
// Below a list the arrays are the whole values arrays, indexed by the
// list's offsets.
func (p leafPath) arrays(col arrow.Array) ([]arrow.Array, error) {
	arrs := make([]arrow.Array, len(p.nodes))
	arrs[0] = col
	for i, n := range p.nodes[:len(p.nodes)-1] {
		a := arrs[i]
		switch n.kind {
		case nodeStruct:
			s, ok := a.(*array.Struct)
			if !ok {
				return nil, fmt.Errorf("levels: want a struct array, have %s", a.DataType())
			}
			arrs[i+1] = s.Field(n.child)
		case nodeList:
			l, ok := a.(*array.List)
			if !ok {
				return nil, fmt.Errorf("levels: want a list array, have %s", a.DataType())
			}
			arrs[i+1] = l.ListValues()
		case nodeMap:
			m, ok := a.(*array.Map)
			if !ok {
				return nil, fmt.Errorf("levels: want a map array, have %s", a.DataType())
			}
			if n.child == 0 {
				arrs[i+1] = m.Keys()
			} else {
				arrs[i+1] = m.Items()
			}
		default:
			return nil, errors.New("levels: a leaf node above the leaf")
		}
	}
	return arrs, nil
}

// flatDefs returns the definition levels of a path without lists: for each
// row, the number of nullable nodes defined before the first null. Nil
// when the path has no nullable node.
func (p leafPath) flatDefs(arrs []arrow.Array, s *levelScratch) []int16 {
	if p.maxDef == 0 {
		return nil
	}
	n := arrs[0].Len()
	if cap(s.def) < n {
		s.def = make([]int16, n)
	}
	def := s.def[:n]
	nulls := false
	for i, nd := range p.nodes {
		if nd.nullable && arrs[i].NullN() > 0 {
			nulls = true
		}
	}
	if !nulls {
		for r := range def {
			def[r] = p.maxDef
		}
		return def
	}
	for r := range def {
		var d int16
		for i, nd := range p.nodes {
			if !nd.nullable {
				continue
			}
			if arrs[i].IsNull(r) {
				break
			}
			d++
		}
		def[r] = d
	}
	return def
}

// levelWalker walks a path with lists row by row, emitting one level entry
// per leaf slot, null or empty list.
type levelWalker struct {
	p        leafPath
	arrs     []arrow.Array
	lists    []array.ListLike // arrs[k] as a list, at list and map nodes
	def, rep []int16
	slots    []slotRange
}

// slotRange is a run [start, end) of leaf values that level entries use.
type slotRange struct{ start, end int }

// visit emits the entries of row i of the array at node k, whose ancestors
// reached definition level def; rep is the repetition level of the first
// entry.
func (w *levelWalker) visit(k, i int, def, rep int16) {
	nd := w.p.nodes[k]
	a := w.arrs[k]
	if nd.nullable {
		if a.IsNull(i) {
			// A null below the deepest list still fills a leaf slot (the
			// levels are spaced); one at or above a list does not.
			w.emit(def, rep, k > w.p.lastRepeated, i)
			return
		}
		def++
	}
	switch nd.kind {
	case nodeLeaf:
		w.emit(def, rep, true, i)
	case nodeStruct:
		w.visit(k+1, i, def, rep)
	case nodeList, nodeMap:
		start, end := w.lists[k].ValueOffsets(i)
		if start == end {
			w.emit(def, rep, false, 0)
			return
		}
		for e := start; e < end; e++ {
			r := nd.rep
			if e == start {
				r = rep
			}
			w.visit(k+1, int(e), def+1, r)
		}
	}
}

func (w *levelWalker) emit(def, rep int16, slot bool, i int) {
	w.def = append(w.def, def)
	w.rep = append(w.rep, rep)
	if !slot {
		return
	}
	if n := len(w.slots); n > 0 && w.slots[n-1].end == i {
		w.slots[n-1].end++
		return
	}
	w.slots = append(w.slots, slotRange{i, i + 1})
}

// gather returns the leaf values the slots use, in order: a slice when
// they are one run (as Arrow lists laid out end to end are), else the runs
// concatenated (a null list may own values in Arrow; Parquet has no slot
// for them).
func gather(leaf arrow.Array, slots []slotRange, mem memory.Allocator) (arrow.Array, error) {
	switch len(slots) {
	case 0:
		return array.NewSlice(leaf, 0, 0), nil
	case 1:
		return array.NewSlice(leaf, int64(slots[0].start), int64(slots[0].end)), nil
	}
	parts := make([]arrow.Array, len(slots))
	for i, s := range slots {
		parts[i] = array.NewSlice(leaf, int64(s.start), int64(s.end))
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	out, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, fmt.Errorf("levels: gather leaf values: %w", err)
	}
	return out, nil
}
