package pq

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
)

// TestPageCRC: a page header's crc (field 4, parquet.thrift) is read, and
// a page whose stored bytes do not give it is refused. The header is
// written by hand in Thrift's compact protocol: field headers
// (delta<<4 | type), i32 as zigzag varints; CRC-32 of "abc" is 0x352441c2
// (the IEEE check value of RFC 1952's CRC).
func TestPageCRC(t *testing.T) {
	const i32, strct = 5, 12
	zz := func(b []byte, v int32) []byte { return binary.AppendUvarint(b, uint64(uint32(v<<1^v>>31))) }
	field := func(b []byte, delta, typ byte) []byte { return append(b, delta<<4|typ) }
	header := func(crc int32) []byte {
		var b []byte
		b = zz(field(b, 1, i32), 0) // type DATA_PAGE
		b = zz(field(b, 1, i32), 3) // uncompressed size
		b = zz(field(b, 1, i32), 3) // compressed size
		b = zz(field(b, 1, i32), crc)
		b = field(b, 1, strct)      // data_page_header
		b = zz(field(b, 1, i32), 0) // num_values
		b = zz(field(b, 1, i32), 0) // encoding PLAIN
		b = zz(field(b, 1, i32), 3) // definition levels RLE
		b = zz(field(b, 1, i32), 3) // repetition levels RLE
		return append(b, 0, 0)      // stops
	}
	if c := crc32.ChecksumIEEE([]byte("abc")); c != 0x352441c2 {
		t.Fatalf("crc32(abc) = %08x", c)
	}
	h, err := readPageHeader(&thrift{b: header(0x352441c2)})
	if err != nil {
		t.Fatal(err)
	}
	if !h.hasCRC || uint32(h.crc) != 0x352441c2 || h.compressed != 3 {
		t.Fatalf("header %+v", h)
	}
	if err := h.checkCRC([]byte("abc")); err != nil {
		t.Errorf("matching page: %v", err)
	}
	err = h.checkCRC([]byte("abd"))
	if err == nil || !strings.Contains(err.Error(), "checksum is 352441c2") {
		t.Errorf("damaged page: %v, want a checksum error", err)
	}
	// A header without field 4 checks nothing.
	var b []byte
	b = zz(field(b, 1, i32), 0)
	b = zz(field(b, 1, i32), 3)
	b = zz(field(b, 1, i32), 3)
	b = field(b, 2, strct)
	b = zz(field(b, 1, i32), 0)
	b = append(b, 0, 0)
	h, err = readPageHeader(&thrift{b: b})
	if err != nil {
		t.Fatal(err)
	}
	if h.hasCRC || h.checkCRC([]byte("abd")) != nil {
		t.Errorf("header without a crc: %+v", h)
	}
}
