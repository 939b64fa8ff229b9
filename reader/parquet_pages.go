package reader

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/pqcodec"
)

// Flat columns are decoded by pqcodec, page by page straight into Arrow
// buffers, where pqarrow spends about twice the CPU on the same pages
// (pqcodec's BenchmarkDecode). The choice is made per column chunk, when
// a row group opens: a chunk whose codec, encodings or type pqcodec does
// not cover is read by pqarrow beside the others, and counted, so that
// one odd chunk never sends a whole file down the slower path.

// pageReader is a pqcodec reader of one planned column's chunk or chunks
// in the open row group.
type pageReader interface {
	Read(n int) (arrow.Array, error)
	Skip(n int) error
	Release()
}

// pageColumns returns the plans of a Parquet projection that pqcodec may
// decode: top-level primitive columns other than INT96, and top-level
// structs, lists and maps, which pqcodec's FieldReader builds from their
// leaves' levels.
func pageColumns(plans []*fieldPlan) []*fieldPlan {
	var out []*fieldPlan
	for _, p := range plans {
		if p.src == nil || p.int96 {
			continue
		}
		switch p.src.kind {
		case kindLeaf:
			if p.src.col >= 0 {
				out = append(out, p)
			}
		case kindStruct, kindList, kindMap:
			out = append(out, p)
		}
	}
	return out
}

// pageType is the Arrow type pqcodec decodes p's column into: a dictionary
// where the field's dictionary passes through to the client, the plain
// value type otherwise, since a dictionary pqarrow was asked for (to save
// its own unpacking) is only unpacked again here.
func pageType(p *fieldPlan, dict map[int]bool) arrow.DataType {
	t := p.src.typ
	if ext, ok := t.(arrow.ExtensionType); ok {
		// The converter reads an extension array (a UUID) by its storage.
		t = ext.StorageType()
	}
	d, isDict := t.(*arrow.DictionaryType)
	switch {
	case dict[p.field.ID] && isDict:
		return t
	case dict[p.field.ID] && (t.ID() == arrow.STRING || t.ID() == arrow.BINARY):
		return &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: t}
	case isDict:
		return d.ValueType
	}
	return t
}

// openPageColumns opens a pqcodec reader for every chunk of row group g
// that it covers, and returns the leaves left to pqarrow.
func (s *parquetSource) openPageColumns(g int) ([]int, error) {
	if len(s.paged) == 0 {
		return s.proj.leaves, nil
	}
	md := s.pf.MetaData()
	rg := md.RowGroup(g)
	decoded := make(map[int]bool, len(s.paged))
	// fields holds the leaves each FieldReader reads.
	fields := map[*fieldPlan]map[int]bool{}
	for _, p := range s.paged {
		if p.src.kind != kindLeaf {
			sel, err := s.openField(p, g)
			if err != nil {
				return nil, err
			}
			if sel != nil {
				fields[p] = sel
			}
			for c := range sel {
				decoded[c] = true
			}
			continue
		}
		cc, err := rg.ColumnChunk(p.src.col)
		if err != nil {
			return nil, corruptFile(fmt.Errorf("read row group %d of %s: %w", g, s.cfg.path, err))
		}
		typ := pageType(p, s.cfg.dict)
		col := md.Schema.Column(p.src.col)
		if !pqcodec.Supported(cc, col, typ) {
			s.count(func(c *counters) { c.chunksFallback.Add(1) })
			continue
		}
		var chunk []byte
		if s.whole != nil {
			off, n := pqcodec.ChunkRange(md, cc)
			if b := s.whole.Bytes(); off >= 0 && off <= int64(len(b)) {
				chunk = b[off:min(off+n, int64(len(b)))]
			}
		}
		// pqcodec writes every byte of the buffers it fills, null slots
		// included, so recycled buffers need no clearing first.
		cr, err := pqcodec.NewColumnReader(uninitialized(s.cfg.mem), s.file, chunk, md, cc, col, typ)
		if err != nil {
			return nil, corruptFile(wrapColumn(s.cfg.path, p, err))
		}
		// A batch's strings are held whole, as a piece of the file is.
		cr.SetMaxBatchBytes(s.cfg.maxRead)
		s.pages[p] = cr
		decoded[p.src.col] = true
		s.count(func(c *counters) { c.chunksDecoded.Add(1) })
	}
	leaves := make([]int, 0, len(s.proj.leaves))
	selected := make(map[int]bool, len(s.proj.leaves))
	for _, c := range s.proj.leaves {
		if !decoded[c] {
			leaves = append(leaves, c)
			selected[c] = true
		}
	}
	// The columns pqarrow returns shift left past those decoded here; a
	// row group with none decoded undoes the shift of the one before.
	setPositions(s.proj.fields, s.proj.roots, selected, false)
	// Below a field pqcodec reads, places are those of its own array,
	// which holds the leaves its plan selects: not every leaf the
	// projection selects there, as a filter's field of a struct is a plan
	// of its own beside the projected part of the struct.
	for p, sel := range fields {
		setChildPositions(p, sel, false)
	}
	return leaves, nil
}

// openField opens a pqcodec FieldReader of nested plan p in row group g
// when it covers the field with the leaves the projection selects, and
// returns the leaf columns it reads; nil when pqarrow reads the field.
func (s *parquetSource) openField(p *fieldPlan, g int) (map[int]bool, error) {
	sel := map[int]bool{}
	p.selectLeaves(func(c int) { sel[c] = true })
	selected := func(c int) bool { return sel[c] }
	sf := s.schemaField(p)
	md := s.pf.MetaData()
	if sf == nil || !pqcodec.FieldSupported(md, g, sf, selected) {
		s.count(func(c *counters) { c.chunksFallback.Add(int64(len(sel))) })
		return nil, nil
	}
	// Unlike the flat readers', a FieldReader's list offsets and
	// validity are not written in full, so its buffers come cleared.
	fr, err := pqcodec.NewFieldReader(s.cfg.mem, s.indexReader(), md, g, sf, selected)
	if err != nil {
		return nil, corruptFile(wrapColumn(s.cfg.path, p, err))
	}
	fr.SetMaxBatchBytes(s.cfg.maxRead)
	s.pages[p] = fr
	s.count(func(c *counters) { c.chunksDecoded.Add(int64(len(sel))) })
	return sel, nil
}

// schemaField returns the node of pqarrow's schema manifest that top-level
// plan p reads.
func (s *parquetSource) schemaField(p *fieldPlan) *pqarrow.SchemaField {
	for i, r := range s.proj.roots {
		if r == p.src && i < len(s.fr.Manifest.Fields) {
			return &s.fr.Manifest.Fields[i]
		}
	}
	return nil
}

// readPages returns the next n rows of p's column from its pqcodec reader,
// or ok false when the open row group's chunk is read by pqarrow.
func (s *parquetSource) readPages(p *fieldPlan, n int) (arr arrow.Array, ok bool, err error) {
	cr := s.pages[p]
	if cr == nil {
		return nil, false, nil
	}
	arr, err = cr.Read(n)
	if err != nil {
		return nil, true, corruptFile(wrapColumn(s.cfg.path, p, err))
	}
	return arr, true, nil
}

// wrapColumn names the column and file of a decoding error, a batch over
// the reader's byte bound as fileio.ErrTooLarge.
func wrapColumn(path string, p *fieldPlan, err error) error {
	if errors.Is(err, pqcodec.ErrTooLarge) {
		return fmt.Errorf("read column %q of %s: %w: %v", p.src.name, path, fileio.ErrTooLarge, err)
	}
	return fmt.Errorf("read column %q of %s: %w", p.src.name, path, err)
}

func (s *parquetSource) closePages() {
	for p, cr := range s.pages {
		cr.Release()
		delete(s.pages, p)
	}
}

func (s *parquetSource) count(f func(*counters)) {
	if s.cfg.counts != nil {
		f(s.cfg.counts)
	}
}
