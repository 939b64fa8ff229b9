package orc

import "fmt"

// rleV2 decodes Integer Run Length Encoding, version 2 (Spec: Integer Run
// Length Encoding, version 2). Each run starts with a header whose top two
// bits select one of four sub-encodings: short repeat, direct, patched base
// and delta. A run holds at most 512 values; they are decoded whole into
// lit and handed out from there.
type rleV2 struct {
	b      []byte
	pos    int
	signed bool
	lit    [512]int64
	n      int // values decoded into lit
	used   int // values of lit handed out
}

func (r *rleV2) next(dst []int64) error {
	for len(dst) > 0 {
		if r.used == r.n {
			if err := r.readRun(); err != nil {
				return err
			}
		}
		k := copy(dst, r.lit[r.used:r.n])
		r.used += k
		dst = dst[k:]
	}
	return nil
}

func (r *rleV2) readRun() error {
	r.n, r.used = 0, 0
	if r.pos >= len(r.b) {
		return errShort("integer RLE v2")
	}
	switch r.b[r.pos] >> 6 {
	case 0:
		return r.shortRepeat()
	case 1:
		return r.direct()
	case 2:
		return r.patchedBase()
	default:
		return r.delta()
	}
}

// header2 reads the two-byte header shared by direct, patched base and
// delta runs: 5 bits of encoded width after the type, then 9 bits of length.
func (r *rleV2) header2() (width, length int, err error) {
	if r.pos+2 > len(r.b) {
		return 0, 0, errShort("integer RLE v2")
	}
	h0, h1 := r.b[r.pos], r.b[r.pos+1]
	r.pos += 2
	return int(h0>>1) & 0x1f, int(h0&1)<<8 | int(h1), nil
}

// bigEndian reads an n-byte big-endian unsigned value.
func (r *rleV2) bigEndian(n int) (uint64, error) {
	if r.pos+n > len(r.b) {
		return 0, errShort("integer RLE v2")
	}
	var v uint64
	for _, c := range r.b[r.pos : r.pos+n] {
		v = v<<8 | uint64(c)
	}
	r.pos += n
	return v, nil
}

// shortRepeat: 3 bits of value width in bytes (minus 1), 3 bits of repeat
// count (minus 3), then the value big-endian.
func (r *rleV2) shortRepeat() error {
	h := r.b[r.pos]
	r.pos++
	width, count := int(h>>3&7)+1, int(h&7)+3
	u, err := r.bigEndian(width)
	if err != nil {
		return err
	}
	v := int64(u)
	if r.signed {
		v = unzigzag(u)
	}
	for i := range count {
		r.lit[i] = v
	}
	r.n = count
	return nil
}

// direct: L values of W bits each, bit-packed big-endian.
func (r *rleV2) direct() error {
	w, l, err := r.header2()
	if err != nil {
		return err
	}
	n := l + 1
	if err := r.unpack(r.lit[:n], decodeWidth(w)); err != nil {
		return err
	}
	if r.signed {
		for i, v := range r.lit[:n] {
			r.lit[i] = unzigzag(uint64(v))
		}
	}
	r.n = n
	return nil
}

// patchedBase: values are W-bit offsets from a base; the few that need more
// bits get their high bits from a patch list of (gap, patch) entries.
func (r *rleV2) patchedBase() error {
	w, l, err := r.header2()
	if err != nil {
		return err
	}
	if r.pos+2 > len(r.b) {
		return errShort("integer RLE v2")
	}
	h2, h3 := r.b[r.pos], r.b[r.pos+1]
	r.pos += 2
	n, fb := l+1, decodeWidth(w)
	baseWidth := int(h2>>5) + 1
	pw := decodeWidth(int(h2 & 0x1f))
	pgw := int(h3>>5) + 1
	pll := int(h3 & 0x1f)
	if pw+pgw > 64 {
		return fmt.Errorf("%w: patch width %d + gap width %d exceed 64 bits", ErrInvalidFile, pw, pgw)
	}
	u, err := r.bigEndian(baseWidth)
	if err != nil {
		return err
	}
	// The base is sign-magnitude: its most significant bit is the sign.
	signBit := uint64(1) << (8*baseWidth - 1)
	base := int64(u &^ signBit)
	if u&signBit != 0 {
		base = -base
	}
	if err := r.unpack(r.lit[:n], fb); err != nil {
		return err
	}
	var patches [31]int64
	if err := r.unpack(patches[:pll], closestFixedBits(pw+pgw)); err != nil {
		return err
	}
	// Each gap counts from the previous patched index; a gap of 255 with a
	// zero patch only carries the gap forward (for gaps beyond 255).
	idx, pos := 0, 0
	for p := range patches[:pll] {
		entry := uint64(patches[p])
		gap, patch := int(entry>>pw), entry&(1<<pw-1)
		pos += gap
		if gap == 255 && patch == 0 {
			continue
		}
		idx = pos
		if idx >= n {
			return fmt.Errorf("%w: patch at index %d of a %d-value run", ErrInvalidFile, idx, n)
		}
		r.lit[idx] = int64(uint64(r.lit[idx]) | patch<<fb)
	}
	for i := range r.lit[:n] {
		r.lit[i] += base
	}
	r.n = n
	return nil
}

// delta: a varint base, a signed varint first delta, then W-bit magnitudes
// of the following deltas, all with the first delta's sign; W = 0 means
// every delta equals the first.
func (r *rleV2) delta() error {
	w, l, err := r.header2()
	if err != nil {
		return err
	}
	n := l + 1
	first, err := readVarint(r.b, &r.pos, r.signed)
	if err != nil {
		return err
	}
	d, err := readVarint(r.b, &r.pos, true)
	if err != nil {
		return err
	}
	r.lit[0] = first
	if w == 0 {
		for i := 1; i < n; i++ {
			r.lit[i] = r.lit[i-1] + d
		}
		r.n = n
		return nil
	}
	if n < 2 {
		return fmt.Errorf("%w: delta run of %d value with a delta width", ErrInvalidFile, n)
	}
	r.lit[1] = first + d
	if err := r.unpack(r.lit[2:n], decodeWidth(w)); err != nil {
		return err
	}
	for i := 2; i < n; i++ {
		if d < 0 {
			r.lit[i] = r.lit[i-1] - r.lit[i]
		} else {
			r.lit[i] = r.lit[i-1] + r.lit[i]
		}
	}
	r.n = n
	return nil
}

// unpack reads len(dst) values of w bits, packed big-endian from the most
// significant bit, and skips the padding to the next byte.
func (r *rleV2) unpack(dst []int64, w int) error {
	need := (len(dst)*w + 7) / 8
	if r.pos+need > len(r.b) {
		return errShort("integer RLE v2")
	}
	b := r.b[r.pos : r.pos+need]
	r.pos += need
	if w%8 == 0 {
		bytes := w / 8
		for i := range dst {
			var v uint64
			for _, c := range b[i*bytes : (i+1)*bytes] {
				v = v<<8 | uint64(c)
			}
			dst[i] = int64(v)
		}
		return nil
	}
	var cur uint64 // bits not yet used, right-aligned
	bits, k := 0, 0
	for i := range dst {
		var v uint64
		for want := w; want > 0; {
			if bits == 0 {
				cur, bits = uint64(b[k]), 8
				k++
			}
			take := min(want, bits)
			v = v<<take | cur>>(bits-take)&(1<<take-1)
			bits -= take
			want -= take
		}
		dst[i] = int64(v)
	}
	return nil
}

// decodeWidth maps a 5-bit encoded width to bits (Spec: the 5 bit width
// encoding table).
func decodeWidth(e int) int {
	switch {
	case e <= 23:
		return e + 1
	case e == 24:
		return 26
	case e == 25:
		return 28
	case e == 26:
		return 30
	case e == 27:
		return 32
	case e == 28:
		return 40
	case e == 29:
		return 48
	case e == 30:
		return 56
	default:
		return 64
	}
}

// closestFixedBits rounds a bit width up to one the width table can encode;
// patch list entries are packed at that width.
func closestFixedBits(n int) int {
	switch {
	case n <= 1:
		return 1
	case n <= 24:
		return n
	case n <= 26:
		return 26
	case n <= 28:
		return 28
	case n <= 30:
		return 30
	case n <= 32:
		return 32
	case n <= 40:
		return 40
	case n <= 48:
		return 48
	case n <= 56:
		return 56
	default:
		return 64
	}
}
