package ingest

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"
)

// checkArrowSchema checks, before arrowDurations reads it, the ARROW:schema
// value of a Parquet file's metadata (the Arrow schema pyarrow and
// arrow-go store there, base64 of an Arrow IPC schema message). Readers
// that trust the lengths in it fail badly: a damaged vector length made
// arrow-go, which pollfit read Parquet through before ingest/internal/pq,
// allocate 29.5 GB (make([]arrow.Field, n) in ipc.schemaFromFB) and end the
// process, which no recover catches, and a damaged offset could send a
// recursion over the children of nested fields round a cycle.
//
// Every vector the decoder sizes a slice by (a schema's fields, features
// and metadata, a field's children and metadata, a union's type ids)
// must fit in the bytes that follow it, the message's metadata and body
// lengths must fit in the value (arrow-go allocated 34 GB for a damaged
// body length, found by FuzzParquetMutation), nesting is at most maxSchemaDepth deep, and the fields
// visited are fewer than the value's bytes (each real field takes some).
// A value that is not valid base64 or is too short to frame a message is
// left to arrowDurations, which returns an error for it.
//
// The layout read is the Arrow format's (format/Message.fbs,
// format/Schema.fbs): Message{version, header_type, header, bodyLength,
// custom_metadata}, Schema{endianness, fields, custom_metadata,
// features}, Field{name, nullable, type_type, type, dictionary, children,
// custom_metadata}, Union{mode, typeIds}.
func checkArrowSchema(value string) (err error) {
	var b []byte
	if len(value)%4 == 0 { // padded or not, as arrow-go's pqarrow.getOriginSchema decodes it
		b, err = base64.StdEncoding.DecodeString(value)
	}
	if len(b) == 0 || err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(value); err != nil {
			return nil
		}
	}
	if len(b) < 8 {
		return nil
	}
	// The message's framing: an optional continuation marker, then the
	// metadata's length.
	n, off := binary.LittleEndian.Uint32(b), 4
	if n == 0xFFFFFFFF {
		n, off = binary.LittleEndian.Uint32(b[4:]), 8
	}
	if int64(n) > int64(len(b)-off) {
		return fmt.Errorf("the message length %d is beyond its %d bytes", n, len(b)-off)
	}
	defer func() {
		if x := recover(); x != nil { // an offset out of the bytes
			err = fmt.Errorf("%v", x)
		}
	}()
	v := schemaCheck{buf: b[off : off+int(n)]}
	if len(v.buf) < 4 {
		return nil
	}
	msg := flatbuffers.Table{Bytes: v.buf, Pos: flatbuffers.GetUOffsetT(v.buf)}
	// The body follows the metadata; arrow-go allocates bodyLength bytes
	// for it (34 GB, in a file the fuzzer damaged).
	if body, rest := msg.GetInt64Slot(flatbuffers.VOffsetT(4+2*3), 0), int64(len(b)-off-int(n)); body < 0 || body > rest {
		return fmt.Errorf("the message body of %d bytes is beyond the %d bytes after it", body, rest)
	}
	v.vector(&msg, 4, 4) // custom_metadata
	if hdr, ok := v.table(&msg, 2); ok {
		v.vector(&hdr, 1, 4) // fields
		v.vector(&hdr, 2, 4) // custom_metadata
		v.vector(&hdr, 3, 8) // features
		v.fields(&hdr, 1, 1)
	}
	return v.err
}

// maxSchemaDepth bounds the nesting of an Arrow schema's fields.
const maxSchemaDepth = 64

// schemaCheck walks a flatbuffer, recording the first fault.
type schemaCheck struct {
	buf     []byte
	visited int
	err     error
}

// field returns the offset of field i of t, 0 when absent.
func field(t *flatbuffers.Table, i int) flatbuffers.UOffsetT {
	return flatbuffers.UOffsetT(t.Offset(flatbuffers.VOffsetT(4 + 2*i)))
}

// table returns the table that field i of t points to.
func (v *schemaCheck) table(t *flatbuffers.Table, i int) (flatbuffers.Table, bool) {
	o := field(t, i)
	if o == 0 {
		return flatbuffers.Table{}, false
	}
	return flatbuffers.Table{Bytes: v.buf, Pos: t.Indirect(t.Pos + o)}, true
}

// vector checks that the vector in field i of t, of elements of size
// elem, fits in the buffer, and returns its start and length.
func (v *schemaCheck) vector(t *flatbuffers.Table, i, elem int) (flatbuffers.UOffsetT, int) {
	o := field(t, i)
	if o == 0 || v.err != nil {
		return 0, 0
	}
	n, start := t.VectorLen(o), t.Vector(o)
	if n < 0 || int64(start)+int64(n)*int64(elem) > int64(len(v.buf)) {
		v.err = errors.New("a vector is longer than the schema")
		return 0, 0
	}
	return start, n
}

// fields checks the Field tables of the vector in field i of t.
func (v *schemaCheck) fields(t *flatbuffers.Table, i, depth int) {
	start, n := v.vector(t, i, 4)
	if depth > maxSchemaDepth {
		v.err = fmt.Errorf("fields nested more than %d deep", maxSchemaDepth)
		return
	}
	for j := 0; j < n && v.err == nil; j++ {
		if v.visited++; v.visited > len(v.buf) {
			v.err = errors.New("more fields than the schema can hold")
			return
		}
		f := flatbuffers.Table{Bytes: v.buf, Pos: t.Indirect(start + flatbuffers.UOffsetT(j)*4)}
		v.vector(&f, 6, 4)                                        // custom_metadata
		if f.GetUint8Slot(flatbuffers.VOffsetT(4+2*2), 0) == 14 { // type_type Union
			if u, ok := v.table(&f, 3); ok {
				v.vector(&u, 1, 4) // typeIds
			}
		}
		v.fields(&f, 5, depth+1) // children
	}
}

// arrowDurations returns, from a checked ARROW:schema value (see
// checkArrowSchema), the unit in nanoseconds of each top-level field whose
// Arrow type is a duration: pyarrow stores a pandas timedelta column as
// a bare Parquet INT64 and says only there that it is a duration[ns].
// Schema.fbs: Field{name 0, nullable 1, type_type 2, type 3, …}, the type
// union's Duration is 18, Duration{unit 0} in TimeUnit (SECOND 0,
// MILLISECOND 1 the default, MICROSECOND 2, NANOSECOND 3).
func arrowDurations(value string) (durs map[string]int64, err error) {
	b, err := base64.StdEncoding.DecodeString(value)
	if err != nil || len(b) == 0 {
		if b, err = base64.RawStdEncoding.DecodeString(value); err != nil {
			return nil, errors.New("it is not base64")
		}
	}
	if len(b) < 8 {
		return nil, errors.New("it is too short for an Arrow schema message")
	}
	n, off := binary.LittleEndian.Uint32(b), 4
	if n == 0xFFFFFFFF {
		n, off = binary.LittleEndian.Uint32(b[4:]), 8
	}
	if int64(n) > int64(len(b)-off) || n < 4 {
		return nil, fmt.Errorf("the message length %d is beyond its %d bytes", n, len(b)-off)
	}
	defer func() {
		if x := recover(); x != nil { // an offset out of the bytes
			durs, err = nil, fmt.Errorf("%v", x)
		}
	}()
	v := schemaCheck{buf: b[off : off+int(n)]}
	msg := flatbuffers.Table{Bytes: v.buf, Pos: flatbuffers.GetUOffsetT(v.buf)}
	if msg.GetByteSlot(flatbuffers.VOffsetT(4+2*1), 0) != 1 { // header_type Schema
		return nil, errors.New("the message is not a schema")
	}
	hdr, ok := v.table(&msg, 2)
	if !ok {
		return nil, errors.New("the message has no schema")
	}
	start, count := v.vector(&hdr, 1, 4)
	if v.err != nil {
		return nil, v.err
	}
	for j := range count {
		f := flatbuffers.Table{Bytes: v.buf, Pos: hdr.Indirect(start + flatbuffers.UOffsetT(j)*4)}
		if f.GetUint8Slot(flatbuffers.VOffsetT(4+2*2), 0) != 18 { // type_type Duration
			continue
		}
		o := field(&f, 0)
		if o == 0 {
			continue
		}
		name := string(f.ByteVector(f.Pos + o))
		unit := int16(1)
		if t, ok := v.table(&f, 3); ok {
			unit = t.GetInt16Slot(flatbuffers.VOffsetT(4), 1)
		}
		if unit < 0 || unit > 3 {
			return nil, fmt.Errorf("the duration field %q has the unknown unit %d", name, unit)
		}
		if durs == nil {
			durs = make(map[string]int64)
		}
		durs[name] = [...]int64{1e9, 1e6, 1e3, 1}[unit]
	}
	return durs, nil
}
