package pq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrUnsupported marks a valid file this reader does not read: an
// encrypted footer, a column chunk in another file, LZO, an encoding
// beyond the format's list.
var ErrUnsupported = errors.New("unsupported")

// RowGroupError is an error about one row group.
type RowGroupError struct {
	RowGroup int
	Err      error
}

func (e *RowGroupError) Error() string { return e.Err.Error() }
func (e *RowGroupError) Unwrap() error { return e.Err }

// File is an open Parquet file: its footer read and checked.
type File struct {
	r    io.ReaderAt
	size int64
	meta *fileMeta
	// Columns are the schema's top-level fields, in order.
	Columns []Column
	leaves  int
	// maxAlloc bounds any one buffer a length in the file asks for.
	maxAlloc int64
}

// MinAllocBound is the least bound File puts on any one buffer that a
// length in the file asks for (a page, a decompressed page, a count of
// values); the bound is 16 times the file's size when that is more.
// Real pages are far smaller (writers cut them at about 1 MB), and page
// compression rarely expands data 16-fold; a damaged length in a small
// file asked other readers for 265 GB and ended the process.
const MinAllocBound = 256 << 20

// Open reads the footer of the Parquet file of size bytes in r: the
// magic bytes at both ends, the footer's length and the FileMetaData it
// frames (parquet-format, README "File format"). Errors describe what in
// the file is wrong; ErrUnsupported marks files this reader cannot read.
func Open(r io.ReaderAt, size int64) (*File, error) {
	if size < 12 {
		return nil, fmt.Errorf("a Parquet file is at least 12 bytes, this one %d", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	switch string(tail[4:]) {
	case "PAR1":
	case "PARE":
		return nil, fmt.Errorf("%w: the footer is encrypted", ErrUnsupported)
	default:
		return nil, fmt.Errorf("the file does not end with the Parquet magic bytes PAR1")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return nil, fmt.Errorf("the footer's length %d is beyond the file's %d bytes", n, size)
	}
	var head [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	if string(head[:]) != "PAR1" {
		return nil, fmt.Errorf("the file does not start with the Parquet magic bytes PAR1")
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, size-8-n); err != nil {
		return nil, err
	}
	m, err := readFileMeta(b)
	if err != nil {
		return nil, fmt.Errorf("the footer: %w", err)
	}
	f := &File{r: r, size: size, meta: m, maxAlloc: max(MinAllocBound, min(size, math.MaxInt64/16)*16)}
	if err := f.readSchema(); err != nil {
		return nil, err
	}
	dataEnd := size - 8 - n
	for i, g := range m.rowGroups {
		if g.NumRows < 0 {
			return nil, &RowGroupError{i, fmt.Errorf("the footer gives the row group %d rows", g.NumRows)}
		}
		if len(g.chunks) != f.leaves {
			return nil, fmt.Errorf("row group %d has %d column chunks for the schema's %d columns", i, len(g.chunks), f.leaves)
		}
		if g.NumRows == 0 {
			// No page is read: arrow-go writes an empty record batch as a
			// row group whose chunks start at byte 0 (a dictionary page
			// alone, or nothing).
			continue
		}
		for j := range g.chunks {
			c := &g.chunks[j]
			switch {
			case c.external:
				return nil, fmt.Errorf("%w: row group %d keeps a column chunk in another file", ErrUnsupported, i)
			case !c.hasMeta:
				return nil, fmt.Errorf("%w: row group %d has a column chunk without metadata (encrypted?)", ErrUnsupported, i)
			}
			start := c.start()
			if start < 4 || c.compressed < 0 || c.compressed > dataEnd-start || c.numValues < 0 {
				return nil, fmt.Errorf("row group %d: column chunk %d lies at bytes %d to %d, outside the file's data (4 to %d)", i, j, start, start+c.compressed, dataEnd)
			}
		}
	}
	return f, nil
}

// start is the offset of the chunk's first page: its dictionary page,
// when it has one.
func (c *chunkMeta) start() int64 {
	if c.dictOff > 0 && c.dictOff < c.dataOff {
		return c.dictOff
	}
	return c.dataOff
}

// maxSchemaDepth bounds the nesting of the schema's groups, so that a
// damaged footer cannot recurse the reader out of stack.
const maxSchemaDepth = 100

// readSchema turns the footer's flattened schema tree (depth first, each
// group giving its number of children) into the top-level Columns.
func (f *File) readSchema() error {
	s := f.meta.schema
	if len(s) == 0 {
		return errors.New("the footer has no schema")
	}
	root := s[0]
	if root.numChildren < 0 || int(root.numChildren) > len(s)-1 {
		return fmt.Errorf("the schema's root has %d fields, more than the schema's %d elements", root.numChildren, len(s)-1)
	}
	next := 1
	// walk skips the subtree at next, depth levels below the root, and
	// returns its number of leaves.
	var walk func(depth int) (int, error)
	walk = func(depth int) (int, error) {
		if next >= len(s) {
			return 0, errors.New("the schema ends early")
		}
		if depth > maxSchemaDepth {
			return 0, fmt.Errorf("the schema nests more than %d deep", maxSchemaDepth)
		}
		e := s[next]
		next++
		if e.numChildren <= 0 && e.hasType {
			return 1, nil
		}
		if e.numChildren < 0 || int(e.numChildren) > len(s)-next {
			return 0, fmt.Errorf("the schema field %q has %d children, more than the schema holds", e.name, e.numChildren)
		}
		leaves := 0
		for range e.numChildren {
			n, err := walk(depth + 1)
			if err != nil {
				return 0, err
			}
			leaves += n
		}
		return leaves, nil
	}
	for range root.numChildren {
		if next >= len(s) {
			return errors.New("the schema ends early")
		}
		e := s[next]
		c := Column{Name: e.name, Leaf: f.leaves}
		n, err := walk(1)
		if err != nil {
			return err
		}
		f.leaves += n
		if e.numChildren > 0 || !e.hasType || e.repetition == Repeated {
			c.Nested = true
		} else {
			c.Type, c.TypeLength, c.Repetition = e.typ, e.typeLength, e.repetition
			c.Logical = logical(&e)
			if c.Type < Boolean || c.Type > FixedLenByteArray {
				return fmt.Errorf("the column %q has the unknown physical type %d", c.Name, int32(c.Type))
			}
			if c.Type == FixedLenByteArray && c.TypeLength <= 0 {
				return fmt.Errorf("the column %q is a FIXED_LEN_BYTE_ARRAY of length %d", c.Name, c.TypeLength)
			}
			if c.Repetition != Required && c.Repetition != Optional {
				return fmt.Errorf("the column %q has the unknown repetition %d", c.Name, int32(c.Repetition))
			}
		}
		f.Columns = append(f.Columns, c)
	}
	if next != len(s) {
		return fmt.Errorf("the schema has %d elements beyond its fields", len(s)-next)
	}
	return nil
}

// logical is the element's logical type, from its converted type when it
// has no LogicalType (parquet-format, LogicalTypes.md, "Backward
// compatibility").
func logical(e *schemaElement) Logical {
	if e.logical.Kind != None {
		return e.logical
	}
	switch e.converted {
	case 0:
		return Logical{Kind: String}
	case 1, 2:
		return Logical{Kind: Map}
	case 3:
		return Logical{Kind: List}
	case 4:
		return Logical{Kind: Enum}
	case 5:
		return Logical{Kind: Decimal, Precision: e.precision, Scale: e.scale}
	case 6:
		return Logical{Kind: Date}
	case 7:
		return Logical{Kind: Time, Unit: Millis, UTC: true}
	case 8:
		return Logical{Kind: Time, Unit: Micros, UTC: true}
	case 9:
		return Logical{Kind: Timestamp, Unit: Millis, UTC: true}
	case 10:
		return Logical{Kind: Timestamp, Unit: Micros, UTC: true}
	case 11, 12, 13, 14:
		return Logical{Kind: Integer, BitWidth: 8 << (e.converted - 11)}
	case 15, 16, 17, 18:
		return Logical{Kind: Integer, BitWidth: 8 << (e.converted - 15), Signed: true}
	case 19:
		return Logical{Kind: JSON}
	case 20:
		return Logical{Kind: BSON}
	case 21:
		return Logical{Kind: Interval}
	}
	return Logical{}
}

// NumRowGroups is the number of row groups.
func (f *File) NumRowGroups() int { return len(f.meta.rowGroups) }

// RowGroup returns row group i's rows.
func (f *File) RowGroup(i int) *RowGroup { return &f.meta.rowGroups[i] }

// Metadata returns the value of key in the footer's key-value metadata.
func (f *File) Metadata(key string) (string, bool) {
	v, ok := f.meta.kv[key]
	return v, ok
}

// readAt reads len(b) bytes at off.
func (f *File) readAt(b []byte, off int64) error {
	n, err := f.r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// grow returns b with length n, reusing its memory when it can.
func grow[T any](b []T, n int) []T {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]T, n)
}
