package orc

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// structColumn: Spec: Struct Columns — a struct has only a PRESENT stream;
// its fields have values only where the struct is present.
type structColumn struct {
	presence
	b        *array.StructBuilder
	children []column
	all      []bool
}

func newStructColumn(t *Type, b *array.StructBuilder) (column, error) {
	c := &structColumn{presence: presence{id: t.ID}, b: b}
	if b.NumField() != len(t.Children) {
		return nil, fmt.Errorf("column %d: struct builder has %d fields, type %d", t.ID, b.NumField(), len(t.Children))
	}
	for i, ct := range t.Children {
		child, err := newColumn(ct, b.FieldBuilder(i))
		if err != nil {
			return nil, err
		}
		c.children = append(c.children, child)
	}
	return c, nil
}

func (c *structColumn) startStripe(s *stripe) error {
	c.startPresence(s)
	for _, child := range c.children {
		if err := child.startStripe(s); err != nil {
			return err
		}
	}
	return nil
}

func (c *structColumn) read(n int, parent []bool) error {
	valid, _, err := c.load(n, parent)
	if err != nil {
		return err
	}
	c.b.AppendValues(orAllTrue(valid, &c.all, n))
	for _, child := range c.children {
		if err := child.read(n, valid); err != nil {
			return err
		}
	}
	return nil
}

// repeated is what lists and maps share. Spec: List Columns, Map Columns —
// LENGTH holds, as unsigned integer RLE, the number of items of each
// present row; the children hold the items of all rows back to back.
type repeated struct {
	presence
	maxItems int
	lengths  intReader
	raw      []int64
	offsets  []int32
	all      []bool
}

func (r *repeated) startRepeated(s *stripe) error {
	r.startPresence(s)
	r.maxItems = s.maxItems
	b, _ := s.stream(r.id, streamLength)
	var err error
	r.lengths, err = newIntReader(s.encoding(r.id), b, false)
	return err
}

// next reads the next n rows' lengths and returns each row's first item
// as an offset from start, their validity (never nil), and how many items
// they hold.
func (r *repeated) next(n int, parent []bool, start int) ([]int32, []bool, int, error) {
	valid, k, err := r.load(n, parent)
	if err != nil {
		return nil, nil, 0, err
	}
	lens := resize(&r.raw, k)
	if err := r.lengths.next(lens); err != nil {
		return nil, nil, 0, fmt.Errorf("column %d LENGTH: %w", r.id, err)
	}
	offsets := resize(&r.offsets, n)
	total, j := 0, 0
	for i := range offsets {
		offsets[i] = int32(start + total)
		if valid != nil && !valid[i] {
			continue
		}
		l := lens[j]
		j++
		if l < 0 || l > int64(r.maxItems-total) || int64(start+total)+l > 1<<31-1 {
			return nil, nil, 0, fmt.Errorf("%w: column %d has a length of %d", ErrInvalidFile, r.id, l)
		}
		total += int(l)
	}
	return offsets, orAllTrue(valid, &r.all, n), total, nil
}

// orAllTrue returns valid, or n true flags in buf when valid is nil: the
// nested builders' AppendValues take a nil validity as zero rows.
func orAllTrue(valid []bool, buf *[]bool, n int) []bool {
	if valid != nil {
		return valid
	}
	all := resize(buf, n)
	for i := range all {
		all[i] = true
	}
	return all
}

// listColumn decodes a list into an Arrow list.
type listColumn struct {
	repeated
	b    *array.ListBuilder
	elem column
}

func newListColumn(t *Type, b *array.ListBuilder) (column, error) {
	elem, err := newColumn(t.Children[0], b.ValueBuilder())
	if err != nil {
		return nil, err
	}
	return &listColumn{repeated: repeated{presence: presence{id: t.ID}}, b: b, elem: elem}, nil
}

func (c *listColumn) startStripe(s *stripe) error {
	if err := c.startRepeated(s); err != nil {
		return err
	}
	return c.elem.startStripe(s)
}

func (c *listColumn) read(n int, parent []bool) error {
	offsets, valid, total, err := c.next(n, parent, c.b.ValueBuilder().Len())
	if err != nil {
		return err
	}
	c.b.AppendValues(offsets, valid)
	return c.elem.read(total, nil)
}

// mapColumn decodes a map into an Arrow map: its key column and its value
// column each hold one item per entry.
type mapColumn struct {
	repeated
	b          *array.MapBuilder
	key, value column
}

func newMapColumn(t *Type, b *array.MapBuilder) (column, error) {
	key, err := newColumn(t.Children[0], b.KeyBuilder())
	if err != nil {
		return nil, err
	}
	value, err := newColumn(t.Children[1], b.ItemBuilder())
	if err != nil {
		return nil, err
	}
	return &mapColumn{repeated: repeated{presence: presence{id: t.ID}}, b: b, key: key, value: value}, nil
}

func (c *mapColumn) startStripe(s *stripe) error {
	if err := c.startRepeated(s); err != nil {
		return err
	}
	if err := c.key.startStripe(s); err != nil {
		return err
	}
	return c.value.startStripe(s)
}

func (c *mapColumn) read(n int, parent []bool) error {
	offsets, valid, total, err := c.next(n, parent, c.b.KeyBuilder().Len())
	if err != nil {
		return err
	}
	c.b.AppendValues(offsets, valid)
	if err := c.key.read(total, nil); err != nil {
		return err
	}
	return c.value.read(total, nil)
}
