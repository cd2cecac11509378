package pq

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
)

// Page is one decoded data page of a flat column: Rows rows, of which
// the non-null ones hold values, in Values or, when the page is
// dictionary-encoded, as indices into Dict.
type Page struct {
	Rows int
	// Defs[i] is 1 when row i has a value, 0 when it is null; nil when
	// every row has one (a required column, or no null in the page).
	Defs []uint8
	// Values are the page's values, one per non-null row, unless Index
	// is set.
	Values Values
	// Index holds, for each non-null row, its value's index in Dict:
	// every index is below Dict.Len().
	Index []uint32
	Dict  *Values
}

// Chunk reads the pages of one column chunk, a page at a time. The zero
// Chunk is ready for Reset; its buffers are kept from chunk to chunk.
type Chunk struct {
	f        *File
	col      *Column
	codec    Codec
	start    int64  // the chunk's first byte in the file
	size     int    // the chunk's bytes
	buf      []byte // the page being read, its header first
	off      int    // the chunk's bytes before the next page
	rowsLeft int64  // rows of the row group not yet seen in a page
	rows     int64
	hasDict  bool
	dict     Values
	dictBuf  []byte // the dictionary's bytes, which its values point into
	page     Page
	unz      []byte // decompressed page
	levels   []uint32
	defs     []uint8
	tmp      []uint64
	lens     []int64
	arena    []byte
	ints     []int64
}

// Reset makes c read column col (one of f.Columns, not Nested) of row
// group rg. Next reads the chunk's bytes a page at a time: a whole chunk
// is several megabytes (4.8 MB for 10⁶ doubles), which a reader of many
// columns on every core held at once (docs/performance.md, Memory).
func (c *Chunk) Reset(f *File, rg int, col *Column) error {
	if col.Nested {
		panic("pq: Chunk.Reset of a nested column")
	}
	g := f.RowGroup(rg)
	m := &g.chunks[col.Leaf]
	if m.typ != col.Type {
		return fmt.Errorf("the column chunk is of type %s, the schema says %s", m.typ, col.Type)
	}
	c.f, c.col, c.codec = f, col, m.codec
	c.start, c.size = m.start(), int(m.compressed)
	c.off, c.rowsLeft, c.rows, c.hasDict = 0, g.NumRows, g.NumRows, false
	return nil
}

// headerBytes is what Next reads of a page before its header says how
// long the page is: more than most headers (statistics included), and
// the whole of a small page.
const headerBytes = 4 << 10

// readPage reads the next page of the chunk into c.buf: its header, and
// its body, of which it returns the bytes.
func (c *Chunk) readPage() (*pageHeader, []byte, error) {
	left := c.size - c.off
	at := c.start + int64(c.off)
	n := min(left, headerBytes)
	var h *pageHeader
	var head int // the header's bytes
	for {
		c.buf = grow(c.buf, n)
		if err := c.f.readAt(c.buf, at); err != nil {
			return nil, nil, err
		}
		t := thrift{b: c.buf}
		var err error
		if h, err = readPageHeader(&t); err == nil {
			head = t.off
			break
		}
		if n == left {
			return nil, nil, fmt.Errorf("a page header at byte %d of the column chunk: %w", c.off, err)
		}
		n = min(left, 4*n) // a header longer than headerBytes
	}
	c.off += head
	if int64(h.compressed) > int64(left-head) {
		return nil, nil, fmt.Errorf("a page of %d bytes where the column chunk has %d left", h.compressed, left-head)
	}
	if int64(h.uncompressed) > c.f.maxAlloc {
		return nil, nil, fmt.Errorf("a page of %d bytes decompressed, more than the file can hold", h.uncompressed)
	}
	end := head + int(h.compressed)
	if end > n {
		c.buf = slices.Grow(c.buf[:n], end-n)[:end]
		if err := c.f.readAt(c.buf[n:], at+int64(n)); err != nil {
			return nil, nil, err
		}
	}
	return h, c.buf[head:end], nil
}

// Next decodes the next data page; io.EOF after the last. The page and
// its values are valid until the next call.
func (c *Chunk) Next() (*Page, error) {
	for {
		if c.off >= c.size {
			if c.rowsLeft > 0 {
				return nil, fmt.Errorf("the column chunk ends after %d of its %d rows", c.rows-c.rowsLeft, c.rows)
			}
			return nil, io.EOF
		}
		h, body, err := c.readPage()
		if err != nil {
			return nil, err
		}
		if err := h.checkCRC(body); err != nil {
			return nil, fmt.Errorf("the page at byte %d of the column chunk: %w", c.off, err)
		}
		c.off += int(h.compressed)
		switch h.typ {
		case dictionaryPage:
			if err := c.readDict(h, body); err != nil {
				return nil, fmt.Errorf("the dictionary page: %w", err)
			}
		case dataPage, dataPageV2:
			if err := c.readData(h, body); err != nil {
				return nil, err
			}
			return &c.page, nil
		}
		// Index pages and page types newer than the reader are skipped.
	}
}

func (c *Chunk) readDict(h *pageHeader, body []byte) error {
	if c.hasDict {
		return errors.New("a second dictionary in the column chunk")
	}
	if h.encoding != Plain && h.encoding != PlainDictionary {
		return fmt.Errorf("%w: a dictionary in encoding %d", ErrUnsupported, h.encoding)
	}
	b, err := decompress(c.codec, c.unz, body, int(h.uncompressed))
	if err != nil {
		return err
	}
	// The values point into their bytes: keep them apart from the pages'.
	c.dictBuf = append(c.dictBuf[:0], b...)
	if err := plain(&c.dict, c.col.Type, int(c.col.TypeLength), c.dictBuf, int(h.numValues)); err != nil {
		return err
	}
	c.hasDict = true
	return nil
}

func (c *Chunk) readData(h *pageHeader, body []byte) error {
	n := int(h.numValues)
	if int64(n) > c.rowsLeft {
		return fmt.Errorf("a page of %d rows where the row group has %d left", n, c.rowsLeft)
	}
	if int64(n) > c.f.maxAlloc/8 {
		return fmt.Errorf("a page of %d rows, more than the file can hold", n)
	}
	c.rowsLeft -= int64(n)
	p := &c.page
	*p = Page{Rows: n, Values: p.Values}
	optional := c.col.Repetition == Optional
	var b, defs []byte // the values' bytes; the definition levels' (RLE hybrid)
	var err error
	if h.typ == dataPageV2 {
		// The levels come first, never compressed.
		if int64(h.repLength)+int64(h.defLength) > int64(len(body)) || h.repLength+h.defLength > h.uncompressed {
			return fmt.Errorf("levels of %d bytes in a page of %d", int64(h.repLength)+int64(h.defLength), len(body))
		}
		defs = body[h.repLength : h.repLength+h.defLength]
		values := body[h.repLength+h.defLength:]
		size := int(h.uncompressed - h.repLength - h.defLength)
		if h.compressV2 {
			b, err = c.inflate(values, size)
		} else if b = values; len(b) != size {
			err = fmt.Errorf("uncompressed values of %d bytes, the header says %d", len(b), size)
		}
		if err != nil {
			return err
		}
	} else {
		if b, err = c.inflate(body, int(h.uncompressed)); err != nil {
			return err
		}
		if optional {
			switch h.defEncoding {
			case RLE:
				if defs, b, err = lengthPrefixed(b); err != nil {
					return fmt.Errorf("the definition levels: %w", err)
				}
			case BitPacked:
				c.levels = grow(c.levels, n)
				k, err := bitPackedMSB(c.levels, b, 1)
				if err != nil {
					return fmt.Errorf("the definition levels: %w", err)
				}
				defs, b = b[:k], b[k:]
			default:
				return fmt.Errorf("%w: definition levels in encoding %d", ErrUnsupported, h.defEncoding)
			}
		}
	}
	values := n
	if optional {
		if h.typ == dataPageV2 || h.defEncoding == RLE {
			c.levels = grow(c.levels, n)
			if _, err := hybrid(c.levels, defs, 1); err != nil {
				return fmt.Errorf("the definition levels: %w", err)
			}
		}
		if values, err = c.setDefs(c.levels[:n]); err != nil {
			return err
		}
	}
	if err := c.values(h.encoding, b, values); err != nil {
		return fmt.Errorf("the values: %w", err)
	}
	return nil
}

// inflate decompresses a page's bytes, n decompressed, into c.unz.
func (c *Chunk) inflate(src []byte, n int) ([]byte, error) {
	if c.codec == Uncompressed {
		return src, nil
	}
	b, err := decompress(c.codec, c.unz, src, n)
	if err == nil {
		c.unz = b
	}
	return b, err
}

// setDefs makes the definition levels c.page.Defs, left nil when no row
// is null, and returns the number of values.
func (c *Chunk) setDefs(levels []uint32) (int, error) {
	c.defs = grow(c.defs, len(levels))
	values := 0
	for i, l := range levels {
		if l > 1 {
			return 0, fmt.Errorf("a definition level of %d in a column of at most 1", l)
		}
		c.defs[i] = uint8(l)
		values += int(l)
	}
	if values < len(levels) {
		c.page.Defs = c.defs
	}
	return values, nil
}

// values decodes the page's n values.
func (c *Chunk) values(enc Encoding, b []byte, n int) error {
	p := &c.page
	t, size := c.col.Type, int(c.col.TypeLength)
	switch enc {
	case Plain:
		return plain(&p.Values, t, size, b, n)
	case PlainDictionary, RLEDictionary:
		if !c.hasDict {
			return errors.New("dictionary indices without a dictionary")
		}
		if len(b) < 1 {
			return errValuesShort
		}
		c.levels = grow(c.levels, n)
		if _, err := hybrid(c.levels, b[1:], int(b[0])); err != nil {
			return err
		}
		dl := uint32(c.dict.Len())
		for _, k := range c.levels {
			if k >= dl {
				return fmt.Errorf("the dictionary index %d is beyond its %d values", k, dl)
			}
		}
		p.Index, p.Dict = c.levels, &c.dict
		return nil
	case RLE:
		if t != Boolean {
			break
		}
		data, _, err := lengthPrefixed(b)
		if err != nil {
			return err
		}
		c.levels = grow(c.levels, n)
		if _, err := hybrid(c.levels, data, 1); err != nil {
			return err
		}
		p.Values.reset(Boolean)
		p.Values.Bool = grow(p.Values.Bool, n)
		for i, x := range c.levels {
			p.Values.Bool[i] = x == 1
		}
		return nil
	case DeltaBinaryPacked:
		if t != Int32 && t != Int64 {
			break
		}
		c.ints = grow(c.ints, n)
		if _, err := deltaBinaryPacked(c.ints, b, n, t == Int32, &c.tmp); err != nil {
			return err
		}
		p.Values.reset(t)
		if t == Int64 {
			p.Values.Int64 = append(p.Values.Int64, c.ints...)
		} else {
			p.Values.Int32 = grow(p.Values.Int32, n)
			for i, x := range c.ints {
				p.Values.Int32[i] = int32(x)
			}
		}
		return nil
	case DeltaLengthByteArray, DeltaByteArray:
		if t != ByteArray && !(t == FixedLenByteArray && enc == DeltaByteArray) {
			break
		}
		if err := byteArrays(&p.Values, enc, b, n, c.f.maxAlloc, &c.lens, &c.tmp, &c.arena); err != nil {
			return err
		}
		if t == FixedLenByteArray {
			p.Values.Type = t
			for _, v := range p.Values.Bytes {
				if len(v) != size {
					return fmt.Errorf("a value of %d bytes in a FIXED_LEN_BYTE_ARRAY(%d) column", len(v), size)
				}
			}
		}
		return nil
	case ByteStreamSplit:
		width := t.width(size)
		if width == 0 || t == Int96 {
			break
		}
		return byteStreamSplit(&p.Values, t, width, b, n, &c.arena)
	}
	return fmt.Errorf("%w: %s values in encoding %d", ErrUnsupported, t, enc)
}

// checkCRC compares the page's stored bytes with the checksum its header
// gives, if any (parquet.thrift, PageHeader.crc: CRC-32 of the page as
// written, without its header).
func (h *pageHeader) checkCRC(body []byte) error {
	if !h.hasCRC {
		return nil
	}
	if got := crc32.ChecksumIEEE(body); got != uint32(h.crc) {
		return fmt.Errorf("its checksum is %08x, its bytes give %08x", uint32(h.crc), got)
	}
	return nil
}
