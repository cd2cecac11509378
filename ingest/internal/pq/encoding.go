package pq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The encodings are parquet-format's Encodings.md: PLAIN, the RLE /
// bit-packing hybrid (levels, booleans, dictionary indices),
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
// BYTE_STREAM_SPLIT.

// Values holds decoded values of one physical type: the slice of that
// type is set, the others are empty. Byte arrays (BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY) point into the reader's buffers and are valid
// until its next call.
type Values struct {
	Type   Type
	Bool   []bool
	Int32  []int32
	Int64  []int64
	Int96  [][12]byte
	Float  []float32
	Double []float64
	Bytes  [][]byte
}

// Len is the number of values.
func (v *Values) Len() int {
	switch v.Type {
	case Boolean:
		return len(v.Bool)
	case Int32:
		return len(v.Int32)
	case Int64:
		return len(v.Int64)
	case Int96:
		return len(v.Int96)
	case Float:
		return len(v.Float)
	case Double:
		return len(v.Double)
	}
	return len(v.Bytes)
}

// reset empties v for n values of type t, keeping its memory.
func (v *Values) reset(t Type) {
	*v = Values{Type: t, Bool: v.Bool[:0], Int32: v.Int32[:0], Int64: v.Int64[:0], Int96: v.Int96[:0], Float: v.Float[:0], Double: v.Double[:0], Bytes: v.Bytes[:0]}
}

var errValuesShort = errors.New("the page's values end early")

// width is the bytes of one PLAIN value of type t, size for
// FIXED_LEN_BYTE_ARRAY, and 0 for the types whose values have no fixed
// width (BOOLEAN is bit-packed, BYTE_ARRAY length-prefixed).
func (t Type) width(size int) int {
	switch t {
	case Int32, Float:
		return 4
	case Int64, Double:
		return 8
	case Int96:
		return 12
	case FixedLenByteArray:
		return size
	}
	return 0
}

// plain decodes n PLAIN values of type t (FIXED_LEN_BYTE_ARRAY of size
// bytes) from b into v.
func plain(v *Values, t Type, size int, b []byte, n int) error {
	v.reset(t)
	switch width := t.width(size); {
	case t == Boolean:
		if n > 8*len(b) {
			return errValuesShort
		}
	case t == ByteArray:
		if n > len(b)/4 {
			return errValuesShort
		}
	case n > len(b)/width:
		return errValuesShort
	}
	// One loop per type: a generic loop taking the conversion as a func
	// value is not inlined and read 2M doubles 1.6× slower.
	le := binary.LittleEndian
	switch t {
	case Boolean:
		v.Bool = grow(v.Bool, n)
		for i := range v.Bool {
			v.Bool[i] = b[i>>3]>>(i&7)&1 == 1
		}
	case Int32:
		v.Int32 = grow(v.Int32, n)
		for i := range v.Int32 {
			v.Int32[i] = int32(le.Uint32(b[4*i:]))
		}
	case Float:
		v.Float = grow(v.Float, n)
		for i := range v.Float {
			v.Float[i] = math.Float32frombits(le.Uint32(b[4*i:]))
		}
	case Int64:
		v.Int64 = grow(v.Int64, n)
		for i := range v.Int64 {
			v.Int64[i] = int64(le.Uint64(b[8*i:]))
		}
	case Double:
		v.Double = grow(v.Double, n)
		for i := range v.Double {
			v.Double[i] = math.Float64frombits(le.Uint64(b[8*i:]))
		}
	case Int96:
		v.Int96 = grow(v.Int96, n)
		for i := range v.Int96 {
			v.Int96[i] = [12]byte(b[12*i:])
		}
	case FixedLenByteArray:
		v.Bytes = grow(v.Bytes, n)
		for i := range v.Bytes {
			v.Bytes[i] = b[size*i : size*(i+1) : size*(i+1)]
		}
	case ByteArray:
		v.Bytes = grow(v.Bytes, n)
		off := 0
		for i := range v.Bytes {
			if len(b)-off < 4 {
				return errValuesShort
			}
			l := int(binary.LittleEndian.Uint32(b[off:]))
			off += 4
			if l < 0 || l > len(b)-off {
				return errValuesShort
			}
			v.Bytes[i] = b[off : off+l : off+l]
			off += l
		}
	}
	return nil
}

// hybrid decodes len(dst) values of w bits (0 to 32) of the RLE /
// bit-packing hybrid from b, and returns the bytes it read.
func hybrid(dst []uint32, b []byte, w int) (int, error) {
	if w < 0 || w > 32 {
		return 0, fmt.Errorf("a bit width of %d", w)
	}
	vb := (w + 7) / 8 // bytes of a run's repeated value
	off, i := 0, 0
	for i < len(dst) {
		h, n := binary.Uvarint(b[off:])
		if n <= 0 {
			return 0, errValuesShort
		}
		off += n
		if h&1 == 0 { // a run of h>>1 copies of one value
			count := h >> 1
			if len(b)-off < vb {
				return 0, errValuesShort
			}
			var x uint32
			for k := range vb {
				x |= uint32(b[off+k]) << (8 * k)
			}
			off += vb
			if w < 32 && x>>w != 0 {
				return 0, fmt.Errorf("a run value of %d is wider than %d bits", x, w)
			}
			m := int(min(count, uint64(len(dst)-i)))
			fill(dst[i:i+m], x)
			i += m
			continue
		}
		// h>>1 groups of 8 values, w bytes each. Writers pad the last
		// group to 8 values; the padding may be cut off at the data's end.
		groups, avail := h>>1, uint64(len(b)-off)
		m := len(dst) - i
		if groups < uint64(m)/8+1 {
			m = min(m, int(groups)*8)
		}
		if nb := (m*w + 7) / 8; nb > len(b)-off {
			return 0, errValuesShort
		}
		unpack32(dst[i:i+m], b[off:], w)
		skip := avail
		if groups <= avail && groups*uint64(w) <= avail {
			skip = groups * uint64(w)
		}
		off += int(skip)
		i += m
	}
	return off, nil
}

func fill(dst []uint32, x uint32) {
	for i := range dst {
		dst[i] = x
	}
}

// unpack32 unpacks len(dst) values of w bits, packed from the least
// significant bit of each byte (Encodings.md, "Bit-packed").
func unpack32(dst []uint32, b []byte, w int) {
	if w == 0 {
		fill(dst, 0)
		return
	}
	mask := uint64(1)<<w - 1
	var acc uint64
	bits, k := 0, 0
	for i := range dst {
		for bits < w {
			acc |= uint64(b[k]) << bits
			k++
			bits += 8
		}
		dst[i] = uint32(acc & mask)
		acc >>= w
		bits -= w
	}
}

// unpack64 is unpack32 for widths up to 64; b holds at least
// ⌈len(dst)·w/8⌉ bytes.
func unpack64(dst []uint64, b []byte, w int) {
	if w == 0 {
		clear(dst)
		return
	}
	for i := range dst {
		bit := i * w
		start, shift := bit>>3, bit&7
		x := uint64(b[start]) >> shift
		for k := 1; 8*k < shift+w; k++ { // at most 9 bytes for 64 bits
			x |= uint64(b[start+k]) << (8*k - shift)
		}
		if w < 64 {
			x &= uint64(1)<<w - 1
		}
		dst[i] = x
	}
}

// lengthPrefixed returns the data after a 4-byte length and the bytes
// past it (levels in v1 data pages, booleans in RLE).
func lengthPrefixed(b []byte) (data, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, errValuesShort
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, errValuesShort
	}
	return b[4 : 4+n], b[4+n:], nil
}

// bitPackedMSB decodes the deprecated BIT_PACKED level encoding: values
// packed from the most significant bit. It returns the bytes read.
func bitPackedMSB(dst []uint32, b []byte, w int) (int, error) {
	nb := (len(dst)*w + 7) / 8
	if nb > len(b) {
		return 0, errValuesShort
	}
	for i := range dst {
		var x uint32
		for j := range w {
			bit := i*w + j
			x = x<<1 | uint32(b[bit>>3]>>(7-bit&7)&1)
		}
		dst[i] = x
	}
	return nb, nil
}

// maxDeltaBlock bounds a DELTA_BINARY_PACKED block's values: writers use
// 128 or 256.
const maxDeltaBlock = 1 << 16

// deltaBinaryPacked decodes n DELTA_BINARY_PACKED integers into dst (as
// int64; INT32 columns wrap at 32 bits, bits32), and returns the bytes
// read. Encodings.md: a header (block size, miniblocks per block, value
// count, first value), then blocks of a min delta, a bit width per
// miniblock and the miniblocks; value = previous + min delta + packed.
func deltaBinaryPacked(dst []int64, b []byte, n int, bits32 bool, tmp *[]uint64) (int, error) {
	t := thrift{b: b}
	blockSize, err := t.uvarint()
	if err != nil {
		return 0, err
	}
	minis, err := t.uvarint()
	if err != nil {
		return 0, err
	}
	total, err := t.uvarint()
	if err != nil {
		return 0, err
	}
	first, err := t.varint()
	if err != nil {
		return 0, err
	}
	if blockSize == 0 || blockSize > maxDeltaBlock || minis == 0 || blockSize%minis != 0 || (blockSize/minis)%8 != 0 {
		return 0, fmt.Errorf("a DELTA_BINARY_PACKED block of %d values in %d miniblocks", blockSize, minis)
	}
	if total < uint64(n) {
		return 0, fmt.Errorf("DELTA_BINARY_PACKED holds %d values, the page %d", total, n)
	}
	perMini := int(blockSize / minis)
	*tmp = grow(*tmp, perMini)
	buf := *tmp
	if n == 0 {
		return t.off, nil
	}
	dst[0] = first
	prev := first
	i := 1
	widths := make([]byte, minis)
	for i < n {
		minDelta, err := t.varint()
		if err != nil {
			return 0, err
		}
		if uint64(len(b)-t.off) < minis {
			return 0, errValuesShort
		}
		copy(widths, b[t.off:])
		t.off += int(minis)
		for _, w := range widths {
			if i >= n {
				break
			}
			if w > 64 {
				return 0, fmt.Errorf("a DELTA_BINARY_PACKED bit width of %d", w)
			}
			nb := perMini * int(w) / 8
			if nb > len(b)-t.off {
				return 0, errValuesShort
			}
			unpack64(buf, b[t.off:], int(w))
			t.off += nb
			for _, d := range buf[:min(perMini, n-i)] {
				prev = prev + minDelta + int64(d)
				if bits32 {
					prev = int64(int32(prev))
				}
				dst[i] = prev
				i++
			}
		}
	}
	return t.off, nil
}

// byteArrays decodes n DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY values
// into v. DELTA_BYTE_ARRAY values are built in *arena, at most maxBytes.
func byteArrays(v *Values, enc Encoding, b []byte, n int, maxBytes int64, lens *[]int64, tmp *[]uint64, arena *[]byte) error {
	v.reset(ByteArray)
	v.Bytes = grow(v.Bytes, n)
	*lens = grow(*lens, 2*n)
	prefix, suffix := (*lens)[:n], (*lens)[n:]
	if enc == DeltaByteArray {
		k, err := deltaBinaryPacked(prefix, b, n, true, tmp)
		if err != nil {
			return err
		}
		b = b[k:]
	}
	k, err := deltaBinaryPacked(suffix, b, n, true, tmp)
	if err != nil {
		return err
	}
	b = b[k:]
	if enc == DeltaLengthByteArray {
		off := 0
		for i, l := range suffix {
			if l < 0 || l > int64(len(b)-off) {
				return errValuesShort
			}
			v.Bytes[i] = b[off : off+int(l) : off+int(l)]
			off += int(l)
		}
		return nil
	}
	size, off := int64(0), 0
	var last int64
	for i := range n {
		p, s := prefix[i], suffix[i]
		if p < 0 || p > last || s < 0 || s > int64(len(b)-off) {
			return fmt.Errorf("a DELTA_BYTE_ARRAY prefix of %d after a value of %d bytes, or a suffix beyond the page", p, last)
		}
		off += int(s)
		last = p + s
		if size += last; size > maxBytes {
			return fmt.Errorf("DELTA_BYTE_ARRAY values of more than %d bytes", maxBytes)
		}
	}
	a := grow(*arena, int(size))[:0]
	off, pos := 0, 0
	for i := range n {
		p, s := int(prefix[i]), int(suffix[i])
		start := len(a)
		if i > 0 {
			a = append(a, a[pos:pos+p]...)
		}
		a = append(a, b[off:off+s]...)
		off += s
		pos = start
		v.Bytes[i] = a[start:len(a):len(a)]
	}
	*arena = a
	return nil
}

// byteStreamSplit decodes n BYTE_STREAM_SPLIT values of width bytes: byte
// j of value i is at b[j·n+i].
func byteStreamSplit(v *Values, t Type, width int, b []byte, n int, arena *[]byte) error {
	if n > 0 && len(b)/n < width || len(b) < n*width {
		return errValuesShort
	}
	*arena = grow(*arena, n*width)
	a := *arena
	for j := range width {
		for i, x := range b[j*n : (j+1)*n] {
			a[i*width+j] = x
		}
	}
	return plain(v, t, width, a, n)
}
