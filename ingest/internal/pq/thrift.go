package pq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Parquet's footer and page headers are Thrift structs in the compact
// protocol (Apache Thrift, doc/specs/thrift-compact-protocol.md): each
// field is a header byte (the field id's delta from the previous field's
// in the high nibble, or 0 and a zigzag varint id after it, and the type
// in the low nibble), then the value: zigzag varints for integers,
// a varint length and the bytes for binary, a size-and-type header then
// the elements for lists, fields until a 0 byte for structs.

// Thrift compact type codes.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
)

// maxThriftDepth bounds the nesting of Thrift structs: Parquet's deepest
// (a page header's statistics) is 3 levels; a damaged footer must not
// recurse without end.
const maxThriftDepth = 32

var errShort = errors.New("the metadata ends early")

// thrift reads compact-protocol values from a byte slice. Every length is
// checked against the bytes left, so that a damaged length cannot make
// it allocate more than the input holds.
type thrift struct {
	b     []byte
	off   int
	depth int
}

func (t *thrift) byte1() (byte, error) {
	if t.off >= len(t.b) {
		return 0, errShort
	}
	c := t.b[t.off]
	t.off++
	return c, nil
}

func (t *thrift) uvarint() (uint64, error) {
	v, n := binary.Uvarint(t.b[t.off:])
	if n <= 0 {
		return 0, errShort
	}
	t.off += n
	return v, nil
}

func (t *thrift) varint() (int64, error) {
	u, err := t.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

func (t *thrift) i32() (int32, error) {
	v, err := t.varint()
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = fmt.Errorf("a 32-bit integer holds %d", v)
	}
	return int32(v), err
}

// binary returns the next binary value, a slice of the input.
func (t *thrift) binary() ([]byte, error) {
	n, err := t.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(t.b)-t.off) {
		return nil, errShort
	}
	s := t.b[t.off : t.off+int(n)]
	t.off += int(n)
	return s, nil
}

func (t *thrift) str() (string, error) {
	b, err := t.binary()
	return string(b), err
}

// list reads a list header: its length and element type. The length is
// at most the bytes left, as every element takes at least one.
func (t *thrift) list() (n int, elem byte, err error) {
	h, err := t.byte1()
	if err != nil {
		return 0, 0, err
	}
	size := uint64(h >> 4)
	if size == 15 {
		if size, err = t.uvarint(); err != nil {
			return 0, 0, err
		}
	}
	if size > uint64(len(t.b)-t.off) {
		return 0, 0, errShort
	}
	return int(size), h & 15, nil
}

// fields calls field for each field of the struct that starts at the
// reader's position, with its id and type; field must read or skip the
// value. A bool field's value is in its type (tTrue or tFalse).
func (t *thrift) fields(field func(id int16, typ byte) error) error {
	if t.depth++; t.depth > maxThriftDepth {
		return errors.New("the metadata nests too deep")
	}
	defer func() { t.depth-- }()
	var id int16
	for {
		h, err := t.byte1()
		if err != nil {
			return err
		}
		if h == tStop {
			return nil
		}
		typ := h & 15
		if d := h >> 4; d != 0 {
			id += int16(d)
		} else {
			v, err := t.varint()
			if err != nil {
				return err
			}
			if v < math.MinInt16 || v > math.MaxInt16 {
				return fmt.Errorf("a field id is %d", v)
			}
			id = int16(v)
		}
		if err := field(id, typ); err != nil {
			return err
		}
	}
}

// skip skips a value of type typ.
func (t *thrift) skip(typ byte) error {
	switch typ {
	case tTrue, tFalse:
		return nil
	case tByte:
		_, err := t.byte1()
		return err
	case tI16, tI32, tI64:
		_, err := t.uvarint()
		return err
	case tDouble:
		if len(t.b)-t.off < 8 {
			return errShort
		}
		t.off += 8
		return nil
	case tBinary:
		_, err := t.binary()
		return err
	case tList, tSet:
		n, elem, err := t.list()
		if err != nil {
			return err
		}
		return t.skipN(n, elem)
	case tMap:
		n, err := t.uvarint()
		if err != nil || n == 0 {
			return err
		}
		if n > uint64(len(t.b)-t.off) {
			return errShort
		}
		kv, err := t.byte1()
		if err != nil {
			return err
		}
		for range n {
			if err := t.skipN(1, kv>>4); err != nil {
				return err
			}
			if err := t.skipN(1, kv&15); err != nil {
				return err
			}
		}
		return nil
	case tStruct:
		return t.fields(func(_ int16, typ byte) error { return t.skip(typ) })
	}
	return fmt.Errorf("unknown Thrift type %d", typ)
}

// skipN skips n list elements of type elem; a bool element is a byte.
func (t *thrift) skipN(n int, elem byte) error {
	if elem == tTrue || elem == tFalse {
		elem = tByte
	}
	if t.depth++; t.depth > maxThriftDepth {
		return errors.New("the metadata nests too deep")
	}
	defer func() { t.depth-- }()
	for range n {
		if err := t.skip(elem); err != nil {
			return err
		}
	}
	return nil
}

// want checks that a field has the type its id has in parquet.thrift.
func want(typ, w byte, id int16) error {
	if typ == w || (w == tTrue && typ == tFalse) {
		return nil
	}
	return fmt.Errorf("field %d has Thrift type %d, want %d", id, typ, w)
}

// i32Field reads an i32 field into dst.
func (t *thrift) i32Field(typ byte, id int16, dst *int32) error {
	if err := want(typ, tI32, id); err != nil {
		return err
	}
	v, err := t.i32()
	*dst = v
	return err
}

// i64Field reads an i64 field into dst.
func (t *thrift) i64Field(typ byte, id int16, dst *int64) error {
	if err := want(typ, tI64, id); err != nil {
		return err
	}
	v, err := t.varint()
	*dst = v
	return err
}
