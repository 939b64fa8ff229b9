package orc

import (
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// bytesColumn decodes string, varchar, char and binary columns.
//
// Spec: String, Char, and VarChar Columns — the direct encodings keep the
// values' bytes back to back in DATA and their lengths in LENGTH; the
// dictionary encodings keep each distinct value once in DICTIONARY_DATA,
// their lengths in LENGTH, and per row an index into the dictionary in
// DATA. Binary columns use the direct encodings only.
//
// Like ORC Java, the reader cuts varchar(n) values to n characters, and
// char(n) values too, then drops their trailing spaces. The values of
// string, varchar and char columns must be UTF-8 (ORC's types, and Arrow's
// string arrays, say so); a file that breaks this is invalid rather than a
// source of Arrow arrays that fail validation downstream.
type bytesColumn struct {
	presence
	b        *array.BinaryBuilder
	text     bool // string, varchar or char: values must be UTF-8
	maxChars int  // varchar and char: the length; 0 for string and binary
	trimPad  bool // char: drop trailing spaces
	dict     bool
	// Direct encodings.
	lengths intReader
	data    []byte
	// Dictionary encodings.
	indices  intReader
	dictBlob []byte
	dictEnds []int // dictEnds[i] is where entry i ends in dictBlob
	raw      []int64
}

func (c *bytesColumn) startStripe(s *stripe) error {
	c.startPresence(s)
	enc := s.encoding(c.id)
	data, _ := s.stream(c.id, streamData)
	length, _ := s.stream(c.id, streamLength)
	var err error
	switch enc {
	case encodingDirect, encodingDirectV2:
		c.dict, c.data = false, data
		c.lengths, err = newIntReader(enc, length, false)
		return err
	case encodingDictionary, encodingDictionaryV2:
		c.dict = true
		if c.indices, err = newIntReader(enc, data, false); err != nil {
			return err
		}
		return c.loadDictionary(enc, int(s.encodings[c.id].dictionarySize), length, s)
	}
	return fmt.Errorf("%w: column %d encoding %d", ErrUnsupported, c.id, enc)
}

// loadDictionary reads a stripe's dictionary: the whole of it, since rows
// refer to its entries at random.
func (c *bytesColumn) loadDictionary(enc encodingKind, size int, length []byte, s *stripe) error {
	c.dictBlob, _ = s.stream(c.id, streamDictionaryData)
	lr, err := newIntReader(enc, length, false)
	if err != nil {
		return err
	}
	// No integer encoding packs more than 130 lengths into a byte.
	if size > 1024*len(length)+1024 {
		return fmt.Errorf("%w: column %d dictionary of %d entries in a %d-byte LENGTH stream",
			ErrInvalidFile, c.id, size, len(length))
	}
	lens := resize(&c.raw, size)
	if err := lr.next(lens); err != nil {
		return fmt.Errorf("column %d dictionary LENGTH: %w", c.id, err)
	}
	ends := resize(&c.dictEnds, size)
	end := 0
	for i, l := range lens {
		if l < 0 || l > int64(len(c.dictBlob)-end) {
			return fmt.Errorf("%w: column %d dictionary entry %d of %d bytes overruns %d bytes",
				ErrInvalidFile, c.id, i, l, len(c.dictBlob))
		}
		if c.text && !utf8.Valid(c.dictBlob[end:end+int(l)]) {
			return fmt.Errorf("%w: column %d dictionary entry %d is not valid UTF-8", ErrInvalidFile, c.id, i)
		}
		end += int(l)
		ends[i] = end
	}
	return nil
}

func (c *bytesColumn) read(n int, parent []bool) error {
	valid, k, err := c.load(n, parent)
	if err != nil {
		return err
	}
	raw := resize(&c.raw, k)
	if c.dict {
		return c.readDictionary(n, valid, raw)
	}
	if err := c.lengths.next(raw); err != nil {
		return fmt.Errorf("column %d LENGTH: %w", c.id, err)
	}
	total := 0
	for _, l := range raw {
		if l < 0 || l > int64(len(c.data)-total) {
			return fmt.Errorf("column %d DATA: %w", c.id, errShort("string"))
		}
		total += int(l)
	}
	c.b.Reserve(n)
	c.b.ReserveData(total)
	j, off := 0, 0
	for i := range n {
		if valid != nil && !valid[i] {
			c.b.AppendNull()
			continue
		}
		l := int(raw[j])
		if c.text && !utf8.Valid(c.data[off:off+l]) {
			return fmt.Errorf("%w: column %d DATA: a value is not valid UTF-8", ErrInvalidFile, c.id)
		}
		c.b.Append(c.adjust(c.data[off : off+l]))
		off += l
		j++
	}
	c.data = c.data[total:]
	return nil
}

func (c *bytesColumn) readDictionary(n int, valid []bool, raw []int64) error {
	if err := c.indices.next(raw); err != nil {
		return fmt.Errorf("column %d DATA: %w", c.id, err)
	}
	c.b.Reserve(n)
	j := 0
	for i := range n {
		if valid != nil && !valid[i] {
			c.b.AppendNull()
			continue
		}
		idx := raw[j]
		j++
		if idx < 0 || idx >= int64(len(c.dictEnds)) {
			return fmt.Errorf("%w: column %d refers to dictionary entry %d of %d",
				ErrInvalidFile, c.id, idx, len(c.dictEnds))
		}
		start := 0
		if idx > 0 {
			start = c.dictEnds[idx-1]
		}
		c.b.Append(c.adjust(c.dictBlob[start:c.dictEnds[idx]]))
	}
	return nil
}

// adjust applies a char or varchar column's length to a value: it keeps
// at most maxChars UTF-8 characters and, for char, drops trailing spaces
// (ORC Java's StringExpr.truncate and rightTrimAndTruncate).
func (c *bytesColumn) adjust(v []byte) []byte {
	if c.maxChars <= 0 {
		return v
	}
	chars := 0
	for i, b := range v {
		if b&0xc0 != 0x80 { // not a UTF-8 continuation byte
			if chars == c.maxChars {
				v = v[:i]
				break
			}
			chars++
		}
	}
	if c.trimPad {
		for len(v) > 0 && v[len(v)-1] == ' ' {
			v = v[:len(v)-1]
		}
	}
	return v
}
