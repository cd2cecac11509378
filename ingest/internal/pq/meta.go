package pq

import (
	"errors"
	"fmt"
)

// Type is a Parquet physical type (parquet.thrift, enum Type).
type Type int32

// The physical types.
const (
	Boolean Type = iota
	Int32
	Int64
	Int96
	Float
	Double
	ByteArray
	FixedLenByteArray
)

func (t Type) String() string {
	names := [...]string{"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"}
	if t >= 0 && int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("type %d", int32(t))
}

// Repetition is a field's repetition (parquet.thrift, FieldRepetitionType).
type Repetition int32

// The repetitions.
const (
	Required Repetition = iota
	Optional
	Repeated
)

// LogicalKind is the kind of a logical type annotation (parquet.thrift,
// union LogicalType); None when the column has none.
type LogicalKind int8

// The logical kinds. Legacy converted types (parquet.thrift,
// ConvertedType) are mapped to them as the format's LogicalTypes.md says.
const (
	None LogicalKind = iota
	String
	Map
	List
	Enum
	Decimal
	Date
	Time
	Timestamp
	Integer
	Unknown // the NULL type: every value is null
	JSON
	BSON
	UUID
	Float16
	Interval // the legacy INTERVAL converted type
	Other    // a logical type newer than this reader (VARIANT, GEOMETRY, …)
)

// Unit is the unit of a TIME or TIMESTAMP logical type.
type Unit int8

// The units.
const (
	Millis Unit = iota + 1
	Micros
	Nanos
)

// Nanos is the unit's length in nanoseconds.
func (u Unit) Nanos() int64 {
	switch u {
	case Millis:
		return 1e6
	case Micros:
		return 1e3
	}
	return 1
}

// Logical is a column's logical type.
type Logical struct {
	Kind LogicalKind
	// Unit and UTC (isAdjustedToUTC) are set for Time and Timestamp.
	Unit Unit
	UTC  bool
	// BitWidth (8, 16, 32 or 64) and Signed are set for Integer.
	BitWidth int8
	Signed   bool
	// Precision and Scale are set for Decimal.
	Precision, Scale int32
}

// Column is one top-level field of a file's schema.
type Column struct {
	Name string
	// Nested is set for a group (a struct, list or map) or a repeated
	// field: this reader reads flat columns only, and the other fields
	// below are then unset but Leaf.
	Nested     bool
	Type       Type
	TypeLength int32 // bytes of a FIXED_LEN_BYTE_ARRAY value
	Repetition Repetition
	Logical    Logical
	// Leaf is the index of the field's (first) leaf column, the column
	// chunks' order in each row group.
	Leaf int
}

// Codec is a column chunk's compression (parquet.thrift, CompressionCodec).
type Codec int32

// The codecs.
const (
	Uncompressed Codec = iota
	Snappy
	Gzip
	LZO
	Brotli
	LZ4 // the deprecated LZ4 with Hadoop framing (or raw, as some writers made it)
	Zstd
	LZ4Raw
)

func (c Codec) String() string {
	names := [...]string{"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"}
	if c >= 0 && int(c) < len(names) {
		return names[c]
	}
	return fmt.Sprintf("codec %d", int32(c))
}

// chunkMeta is what the reader uses of a ColumnChunk and its
// ColumnMetaData.
type chunkMeta struct {
	external   bool // file_path is set: the chunk is in another file
	hasMeta    bool
	typ        Type
	codec      Codec
	numValues  int64
	compressed int64 // total_compressed_size
	dataOff    int64 // data_page_offset
	dictOff    int64 // dictionary_page_offset, 0 when unset
}

// RowGroup is one row group of the footer.
type RowGroup struct {
	NumRows int64
	chunks  []chunkMeta
}

// schemaElement is a SchemaElement of the footer.
type schemaElement struct {
	typ         Type
	hasType     bool
	typeLength  int32
	repetition  Repetition
	name        string
	numChildren int32
	converted   int32 // -1 when unset
	scale       int32
	precision   int32
	logical     Logical
}

// fileMeta is the footer: FileMetaData.
type fileMeta struct {
	schema    []schemaElement
	rowGroups []RowGroup
	kv        map[string]string
}

func readFileMeta(b []byte) (*fileMeta, error) {
	t := &thrift{b: b}
	m := &fileMeta{}
	err := t.fields(func(id int16, typ byte) error {
		switch id {
		case 2:
			n, elem, err := t.list()
			if err != nil {
				return err
			}
			if elem != tStruct {
				return want(elem, tStruct, id)
			}
			m.schema = make([]schemaElement, n)
			for i := range m.schema {
				if err := t.schemaElement(&m.schema[i]); err != nil {
					return err
				}
			}
			return nil
		case 4:
			n, elem, err := t.list()
			if err != nil {
				return err
			}
			if elem != tStruct {
				return want(elem, tStruct, id)
			}
			m.rowGroups = make([]RowGroup, n)
			for i := range m.rowGroups {
				if err := t.rowGroup(&m.rowGroups[i]); err != nil {
					return err
				}
			}
			return nil
		case 5:
			n, elem, err := t.list()
			if err != nil {
				return err
			}
			if elem != tStruct {
				return want(elem, tStruct, id)
			}
			m.kv = make(map[string]string)
			for range n {
				var k, v string
				err := t.fields(func(id int16, typ byte) error {
					switch {
					case id == 1 && typ == tBinary:
						var err error
						k, err = t.str()
						return err
					case id == 2 && typ == tBinary:
						var err error
						v, err = t.str()
						return err
					}
					return t.skip(typ)
				})
				if err != nil {
					return err
				}
				m.kv[k] = v
			}
			return nil
		}
		return t.skip(typ)
	})
	if err != nil {
		return nil, err
	}
	// Bytes may follow the metadata: a signature, in files with a
	// plaintext footer and encrypted columns.
	return m, nil
}

func (t *thrift) schemaElement(e *schemaElement) error {
	e.converted = -1
	return t.fields(func(id int16, typ byte) error {
		switch id {
		case 1:
			e.hasType = true
			return t.i32Field(typ, id, (*int32)(&e.typ))
		case 2:
			return t.i32Field(typ, id, &e.typeLength)
		case 3:
			return t.i32Field(typ, id, (*int32)(&e.repetition))
		case 4:
			if err := want(typ, tBinary, id); err != nil {
				return err
			}
			var err error
			e.name, err = t.str()
			return err
		case 5:
			return t.i32Field(typ, id, &e.numChildren)
		case 6:
			return t.i32Field(typ, id, &e.converted)
		case 7:
			return t.i32Field(typ, id, &e.scale)
		case 8:
			return t.i32Field(typ, id, &e.precision)
		case 10:
			if err := want(typ, tStruct, id); err != nil {
				return err
			}
			return t.logicalType(&e.logical)
		}
		return t.skip(typ)
	})
}

// logicalType reads the LogicalType union.
func (t *thrift) logicalType(l *Logical) error {
	return t.fields(func(id int16, typ byte) error {
		if typ != tStruct {
			return t.skip(typ)
		}
		kinds := map[int16]LogicalKind{1: String, 2: Map, 3: List, 4: Enum, 5: Decimal, 6: Date, 7: Time, 8: Timestamp, 10: Integer, 11: Unknown, 12: JSON, 13: BSON, 14: UUID, 15: Float16}
		k, ok := kinds[id]
		if !ok {
			l.Kind = Other
			return t.skip(typ)
		}
		l.Kind = k
		return t.fields(func(fid int16, ftyp byte) error {
			switch {
			case k == Decimal && fid == 1:
				return t.i32Field(ftyp, fid, &l.Scale)
			case k == Decimal && fid == 2:
				return t.i32Field(ftyp, fid, &l.Precision)
			case (k == Time || k == Timestamp) && fid == 1:
				l.UTC = ftyp == tTrue
				return want(ftyp, tTrue, fid)
			case (k == Time || k == Timestamp) && fid == 2:
				if err := want(ftyp, tStruct, fid); err != nil {
					return err
				}
				return t.fields(func(uid int16, utyp byte) error {
					if uid >= 1 && uid <= 3 {
						l.Unit = Unit(uid)
					}
					return t.skip(utyp)
				})
			case k == Integer && fid == 1:
				if err := want(ftyp, tByte, fid); err != nil {
					return err
				}
				w, err := t.byte1()
				l.BitWidth = int8(w)
				return err
			case k == Integer && fid == 2:
				l.Signed = ftyp == tTrue
				return want(ftyp, tTrue, fid)
			}
			return t.skip(ftyp)
		})
	})
}

func (t *thrift) rowGroup(g *RowGroup) error {
	return t.fields(func(id int16, typ byte) error {
		switch id {
		case 1:
			n, elem, err := t.list()
			if err != nil {
				return err
			}
			if elem != tStruct {
				return want(elem, tStruct, id)
			}
			g.chunks = make([]chunkMeta, n)
			for i := range g.chunks {
				if err := t.columnChunk(&g.chunks[i]); err != nil {
					return err
				}
			}
			return nil
		case 3:
			return t.i64Field(typ, id, &g.NumRows)
		}
		return t.skip(typ)
	})
}

func (t *thrift) columnChunk(c *chunkMeta) error {
	return t.fields(func(id int16, typ byte) error {
		switch id {
		case 1:
			c.external = true
			return t.skip(typ)
		case 3:
			if err := want(typ, tStruct, id); err != nil {
				return err
			}
			c.hasMeta = true
			return t.fields(func(id int16, typ byte) error {
				switch id {
				case 1:
					return t.i32Field(typ, id, (*int32)(&c.typ))
				case 4:
					return t.i32Field(typ, id, (*int32)(&c.codec))
				case 5:
					return t.i64Field(typ, id, &c.numValues)
				case 7:
					return t.i64Field(typ, id, &c.compressed)
				case 9:
					return t.i64Field(typ, id, &c.dataOff)
				case 11:
					return t.i64Field(typ, id, &c.dictOff)
				}
				return t.skip(typ)
			})
		}
		return t.skip(typ)
	})
}

// Page types (parquet.thrift, PageType).
const (
	dataPage       = 0
	indexPage      = 1
	dictionaryPage = 2
	dataPageV2     = 3
)

// pageHeader is what the reader uses of a PageHeader.
type pageHeader struct {
	typ          int32
	uncompressed int32
	compressed   int32
	numValues    int32 // levels, for data pages; values, for dictionaries
	encoding     Encoding
	defEncoding  Encoding // v1 only
	// v2 only:
	numNulls   int32
	defLength  int32
	repLength  int32
	compressV2 bool
	hasHeader  bool // the header of the page's type is present
	// crc is the CRC-32 (IEEE, as gzip's) of the page's bytes as stored,
	// after the header, when the writer gave one (hasCRC).
	crc    int32
	hasCRC bool
}

func readPageHeader(t *thrift) (*pageHeader, error) {
	h := &pageHeader{compressV2: true}
	err := t.fields(func(id int16, typ byte) error {
		switch id {
		case 1:
			return t.i32Field(typ, id, &h.typ)
		case 2:
			return t.i32Field(typ, id, &h.uncompressed)
		case 3:
			return t.i32Field(typ, id, &h.compressed)
		case 4:
			h.hasCRC = true
			return t.i32Field(typ, id, &h.crc)
		case 5, 7, 8:
			if err := want(typ, tStruct, id); err != nil {
				return err
			}
			h.hasHeader = h.hasHeader || id == 5 && h.typ == dataPage || id == 7 && h.typ == dictionaryPage || id == 8 && h.typ == dataPageV2
			return t.fields(func(fid int16, ftyp byte) error {
				switch {
				case fid == 1:
					return t.i32Field(ftyp, fid, &h.numValues)
				case fid == 2 && id == 8:
					return t.i32Field(ftyp, fid, &h.numNulls)
				case fid == 2 || fid == 4 && id == 8:
					return t.i32Field(ftyp, fid, (*int32)(&h.encoding))
				case fid == 3 && id == 5:
					return t.i32Field(ftyp, fid, (*int32)(&h.defEncoding))
				case fid == 5 && id == 8:
					return t.i32Field(ftyp, fid, &h.defLength)
				case fid == 6 && id == 8:
					return t.i32Field(ftyp, fid, &h.repLength)
				case fid == 7 && id == 8:
					h.compressV2 = ftyp == tTrue
					return want(ftyp, tTrue, fid)
				}
				return t.skip(ftyp)
			})
		}
		return t.skip(typ)
	})
	if err != nil {
		return nil, err
	}
	switch {
	case h.uncompressed < 0 || h.compressed < 0:
		return nil, fmt.Errorf("a page size is negative (%d, %d)", h.compressed, h.uncompressed)
	case h.numValues < 0 || h.numNulls < 0 || h.defLength < 0 || h.repLength < 0:
		return nil, errors.New("a page header count is negative")
	case (h.typ == dataPage || h.typ == dictionaryPage || h.typ == dataPageV2) && !h.hasHeader:
		return nil, fmt.Errorf("a page of type %d lacks its header", h.typ)
	}
	return h, nil
}

// Encoding is a page encoding (parquet.thrift, Encoding).
type Encoding int32

// The encodings.
const (
	Plain                Encoding = 0
	PlainDictionary      Encoding = 2
	RLE                  Encoding = 3
	BitPacked            Encoding = 4
	DeltaBinaryPacked    Encoding = 5
	DeltaLengthByteArray Encoding = 6
	DeltaByteArray       Encoding = 7
	RLEDictionary        Encoding = 8
	ByteStreamSplit      Encoding = 9
)
