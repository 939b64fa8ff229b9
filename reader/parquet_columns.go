package reader

import (
	"sort"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/iceberg"
)

// Which Parquet leaf columns pqarrow reads for a projection, and where each
// planned field lands among the columns it returns.

// selectLeaves adds the Parquet leaf columns p reads. Every plan with a
// source selects at least one leaf: a struct none of whose projected fields
// is in the file still reads one of its columns, for the struct's nulls.
func (p *fieldPlan) selectLeaves(add func(col int)) {
	if p.src == nil || p.int96 {
		return
	}
	if _, ok := p.field.Type.(iceberg.VariantType); ok {
		allLeaves(p.src, add)
		return
	}
	switch p.src.kind {
	case kindLeaf:
		add(p.src.col)
	case kindStruct:
		before := 0
		count := func(col int) { before++; add(col) }
		for _, c := range p.children {
			c.selectLeaves(count)
		}
		if before == 0 {
			add(firstLeaf(p.src))
		}
	case kindList:
		p.children[0].selectLeaves(add)
	case kindMap, kindVariant:
		// pqarrow reads every column below a map whatever is selected.
		allLeaves(p.src, add)
	}
}

func firstLeaf(n *fileField) int {
	if n.kind == kindLeaf {
		return n.col
	}
	return firstLeaf(n.children[0])
}

func allLeaves(n *fileField, add func(int)) {
	if n.kind == kindLeaf {
		add(n.col)
		return
	}
	for _, c := range n.children {
		allLeaves(c, add)
	}
}

// hasLeaf reports whether any column below n is selected.
func hasLeaf(n *fileField, selected map[int]bool) bool {
	if n.kind == kindLeaf {
		return selected[n.col]
	}
	for _, c := range n.children {
		if hasLeaf(c, selected) {
			return true
		}
	}
	return false
}

// setPositions records where each source column lands in what pqarrow
// returns: it drops struct fields (and top-level columns) with no selected
// leaf and keeps the rest in file order, except below a map, which it reads
// whole.
func setPositions(plans []*fieldPlan, siblings []*fileField, selected map[int]bool, whole bool) {
	for _, p := range plans {
		if p.src == nil || p.int96 {
			continue
		}
		pos := 0
		for _, s := range siblings {
			if s == p.src {
				break
			}
			if whole || hasLeaf(s, selected) {
				pos++
			}
		}
		p.pos = pos
		setChildPositions(p, selected, whole)
	}
}

// setChildPositions records where the fields below p land in p's array.
func setChildPositions(p *fieldPlan, selected map[int]bool, whole bool) {
	switch p.src.kind {
	case kindStruct, kindList:
		setPositions(p.children, p.src.children, selected, whole)
	case kindMap:
		setPositions(p.children, p.src.children, selected, true)
	}
}

// projection is the plan of one Parquet data file.
type projection struct {
	fields []*fieldPlan
	// leaves are the Parquet columns the plans read, ascending, so that the
	// columns pqarrow returns come in file order.
	leaves []int
	// roots are the file's top-level fields, for setPositions.
	roots []*fileField
}

func planProjection(fr *pqarrow.FileReader, cfg *sourceConfig) (*projection, error) {
	roots := fileTree(fr.Manifest)
	assignIDs(roots, cfg.mapping, cfg.schema)
	descr := fr.ParquetReader().MetaData().Schema
	pl := &planner{
		path:      cfg.path,
		constants: cfg.constants,
		physical:  func(col int) parquet.Type { return descr.Column(col).PhysicalType() },
	}
	plans, err := pl.planFields(cfg.schema.Fields, roots, true)
	if err != nil {
		return nil, err
	}
	selected := make(map[int]bool)
	for _, p := range plans {
		p.selectLeaves(func(col int) { selected[col] = true })
	}
	leaves := make([]int, 0, len(selected))
	for col := range selected {
		leaves = append(leaves, col)
	}
	sort.Ints(leaves)
	setPositions(plans, roots, selected, false)
	return &projection{fields: plans, leaves: leaves, roots: roots}, nil
}

// release frees the fill arrays the plans cache.
func (p *projection) release() { releasePlans(p.fields) }
