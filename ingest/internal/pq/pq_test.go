package pq

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/google/go-cmp/cmp"
	"github.com/pierrec/lz4/v4"
)

// The reference writer is arrow-go's (Apache Arrow's Go implementation),
// in tests only: every file here is written by it, in each encoding,
// codec and page version it offers, and read back by this package.

// testRows is the number of rows of the test tables: several pages of
// 1 KB, and several row groups.
const testRows = 3000

// column is one column of a test table: its Arrow field, the values
// (nil: null) as this package decodes them, and the encoding to write.
type column struct {
	field arrow.Field
	want  []any
	enc   parquet.Encoding // -1: the writer's default
}

// testColumns makes the test columns, every fifth row null in the
// nullable ones, from a fixed-seed PCG.
func testColumns() []column {
	rng := rand.New(rand.NewPCG(13, 1))
	mk := func(name string, typ arrow.DataType, nullable bool, enc parquet.Encoding, gen func(i int) any) column {
		c := column{field: arrow.Field{Name: name, Type: typ, Nullable: nullable}, enc: enc}
		for i := range testRows {
			if nullable && i%5 == 3 {
				c.want = append(c.want, nil)
				continue
			}
			c.want = append(c.want, gen(i))
		}
		return c
	}
	words := []string{"succeeded", "failed", "pending", "cancelled", ""}
	t0 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	return []column{
		mk("f64", arrow.PrimitiveTypes.Float64, false, parquet.Encodings.Plain, func(int) any { return rng.ExpFloat64() * 10 }),
		mk("f64_null", arrow.PrimitiveTypes.Float64, true, -1, func(int) any { return float64(rng.IntN(50)) / 4 }),
		mk("f64_bss", arrow.PrimitiveTypes.Float64, true, parquet.Encodings.ByteStreamSplit, func(int) any { return rng.NormFloat64() }),
		mk("f32_bss", arrow.PrimitiveTypes.Float32, false, parquet.Encodings.ByteStreamSplit, func(int) any { return float32(rng.NormFloat64()) }),
		mk("f32", arrow.PrimitiveTypes.Float32, true, parquet.Encodings.Plain, func(int) any { return float32(rng.IntN(1000)) / 8 }),
		mk("i64_delta", arrow.PrimitiveTypes.Int64, true, parquet.Encodings.DeltaBinaryPacked, func(i int) any {
			// Large jumps and both signs: deltas of every bit width.
			return int64(i)*1000 - int64(rng.Uint64()>>uint(rng.IntN(64)))
		}),
		mk("i32_delta", arrow.PrimitiveTypes.Int32, false, parquet.Encodings.DeltaBinaryPacked, func(int) any { return int32(rng.Uint32()) }),
		mk("i64_dict", arrow.PrimitiveTypes.Int64, true, -1, func(int) any { return int64(rng.IntN(40)) - 20 }),
		mk("i32", arrow.PrimitiveTypes.Int32, false, parquet.Encodings.Plain, func(i int) any { return int32(i) - 1500 }),
		mk("u32", arrow.PrimitiveTypes.Uint32, false, parquet.Encodings.Plain, func(int) any { return int32(rng.Uint32()) }),
		mk("str_dict", arrow.BinaryTypes.String, true, -1, func(int) any { return words[rng.IntN(len(words))] }),
		mk("str_plain", arrow.BinaryTypes.String, true, parquet.Encodings.Plain, func(i int) any { return fmt.Sprintf("pay-%07d", i*7919%100003) }),
		mk("str_dlba", arrow.BinaryTypes.String, false, parquet.Encodings.DeltaLengthByteArray, func(i int) any { return strings.Repeat("x", rng.IntN(12)) }),
		mk("str_dba", arrow.BinaryTypes.String, true, parquet.Encodings.DeltaByteArray, func(i int) any { return fmt.Sprintf("2025-03-01T%02d:%02d", i/60%24, i%60) }),
		mk("bool", arrow.FixedWidthTypes.Boolean, true, -1, func(int) any { return rng.IntN(3) == 0 }),
		mk("ts_ms", &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, true, -1, func(i int) any { return t0 + int64(i)*1500 }),
		mk("date", arrow.FixedWidthTypes.Date32, false, parquet.Encodings.Plain, func(i int) any { return int32(20000 + i%400) }),
		mk("fixed", &arrow.FixedSizeBinaryType{ByteWidth: 3}, true, parquet.Encodings.Plain, func(i int) any { return string([]byte{byte(i), byte(i >> 8), 7}) }),
	}
}

// writeTable writes the columns with the writer properties and returns
// the file.
func writeTable(t testing.TB, cols []column, opts ...parquet.WriterProperty) []byte {
	t.Helper()
	mem := memory.DefaultAllocator
	var fields []arrow.Field
	var arrs []arrow.Array
	opts = append([]parquet.WriterProperty{parquet.WithDataPageSize(1 << 10), parquet.WithBatchSize(100), parquet.WithMaxRowGroupLength(1200), parquet.WithDictionaryPageSizeLimit(1 << 10)}, opts...)
	for _, c := range cols {
		b := array.NewBuilder(mem, c.field.Type)
		for _, v := range c.want {
			if v == nil {
				b.AppendNull()
				continue
			}
			switch b := b.(type) {
			case *array.Float64Builder:
				b.Append(v.(float64))
			case *array.Float32Builder:
				b.Append(v.(float32))
			case *array.Int64Builder:
				b.Append(v.(int64))
			case *array.Int32Builder:
				b.Append(v.(int32))
			case *array.Uint32Builder:
				b.Append(uint32(v.(int32)))
			case *array.StringBuilder:
				b.Append(v.(string))
			case *array.BooleanBuilder:
				b.Append(v.(bool))
			case *array.TimestampBuilder:
				b.Append(arrow.Timestamp(v.(int64)))
			case *array.Date32Builder:
				b.Append(arrow.Date32(v.(int32)))
			case *array.FixedSizeBinaryBuilder:
				b.Append([]byte(v.(string)))
			default:
				t.Fatalf("column %s: builder %T", c.field.Name, b)
			}
		}
		fields, arrs = append(fields, c.field), append(arrs, b.NewArray())
		if c.enc >= 0 {
			opts = append(opts, parquet.WithDictionaryFor(c.field.Name, false), parquet.WithEncodingFor(c.field.Name, c.enc))
		}
	}
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(schema, arrs, testRows)
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	var buf bytes.Buffer
	if err := pqarrow.WriteTable(tbl, &buf, 1200, parquet.NewWriterProperties(opts...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAll reads every flat column of the file as []any, nil for nulls,
// and the number of pages read.
func readAll(f *File) (map[string][]any, int, error) {
	out := make(map[string][]any)
	var ch Chunk
	pages := 0
	for i := range f.Columns {
		col := &f.Columns[i]
		if col.Nested {
			continue
		}
		for rg := range f.NumRowGroups() {
			if err := ch.Reset(f, rg, col); err != nil {
				return nil, 0, err
			}
			for {
				p, err := ch.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return nil, 0, fmt.Errorf("column %s, row group %d: %w", col.Name, rg, err)
				}
				pages++
				k := 0
				for r := range p.Rows {
					if p.Defs != nil && p.Defs[r] == 0 {
						out[col.Name] = append(out[col.Name], nil)
						continue
					}
					v, j := &p.Values, k
					if p.Index != nil {
						v, j = p.Dict, int(p.Index[k])
					}
					out[col.Name] = append(out[col.Name], value(v, j))
					k++
				}
			}
		}
	}
	return out, pages, nil
}

// value is value j of v as testColumns writes it.
func value(v *Values, j int) any {
	switch v.Type {
	case Boolean:
		return v.Bool[j]
	case Int32:
		return v.Int32[j]
	case Int64:
		return v.Int64[j]
	case Float:
		return v.Float[j]
	case Double:
		return v.Double[j]
	case Int96:
		return v.Int96[j]
	}
	return string(v.Bytes[j])
}

// TestRoundTrip reads what arrow-go writes, in every codec and both data
// page versions, with and without dictionaries, and compares every value
// and null with what was written.
func TestRoundTrip(t *testing.T) {
	cols := testColumns()
	codecs := []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Brotli, compress.Codecs.Zstd, compress.Codecs.Lz4Raw} // arrow-go writes no LZ4 (Hadoop)
	for _, codec := range codecs {
		for _, v2 := range []bool{false, true} {
			name := fmt.Sprintf("%s/v1", codec)
			version := parquet.DataPageV1
			if v2 {
				name, version = fmt.Sprintf("%s/v2", codec), parquet.DataPageV2
			}
			t.Run(name, func(t *testing.T) {
				b := writeTable(t, cols, parquet.WithCompression(codec), parquet.WithDataPageVersion(version))
				f, err := Open(bytes.NewReader(b), int64(len(b)))
				if err != nil {
					t.Fatal(err)
				}
				if f.NumRowGroups() != 3 {
					t.Errorf("%d row groups, want 3", f.NumRowGroups())
				}
				got, pages, err := readAll(f)
				if err != nil {
					t.Fatal(err)
				}
				if pages < 3*len(cols)*2 {
					t.Errorf("%d pages: the test wants several per chunk", pages)
				}
				for _, c := range cols {
					if d := cmp.Diff(c.want, got[c.field.Name]); d != "" {
						t.Errorf("column %s (-want +got):\n%s", c.field.Name, d)
					}
				}
			})
		}
	}
}

// TestSchema checks the columns' types as the footer gives them.
func TestSchema(t *testing.T) {
	b := writeTable(t, testColumns())
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Column{
		"f64":      {Type: Double, Repetition: Required},
		"f64_null": {Type: Double, Repetition: Optional},
		"u32":      {Type: Int32, Repetition: Required, Logical: Logical{Kind: Integer, BitWidth: 32}},
		"str_dict": {Type: ByteArray, Repetition: Optional, Logical: Logical{Kind: String}},
		"ts_ms":    {Type: Int64, Repetition: Optional, Logical: Logical{Kind: Timestamp, Unit: Millis, UTC: true}},
		"date":     {Type: Int32, Repetition: Required, Logical: Logical{Kind: Date}},
		"fixed":    {Type: FixedLenByteArray, TypeLength: 3, Repetition: Optional},
	}
	for i, c := range f.Columns {
		if c.Leaf != i {
			t.Errorf("column %s: leaf %d, want %d", c.Name, c.Leaf, i)
		}
		w, ok := want[c.Name]
		if !ok {
			continue
		}
		w.Name, w.Leaf = c.Name, i
		if c != w {
			t.Errorf("column %s = %+v, want %+v", c.Name, c, w)
		}
	}
	if _, ok := f.Metadata("ARROW:schema"); !ok {
		t.Errorf("no ARROW:schema metadata")
	}
}

// TestInt96 reads INT96 timestamps (Impala's, Spark's): 12 bytes, the
// nanoseconds of the day then the Julian day.
func TestInt96(t *testing.T) {
	tm := time.Date(2025, 3, 1, 12, 30, 0, 5, time.UTC)
	typ := &arrow.TimestampType{Unit: arrow.Nanosecond}
	b := array.NewTimestampBuilder(memory.DefaultAllocator, typ)
	b.Append(arrow.Timestamp(tm.UnixNano()))
	schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: typ}}, nil)
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, 1)})
	var buf bytes.Buffer
	if err := pqarrow.WriteTable(tbl, &buf, 10, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true))); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := readAll(f)
	if err != nil {
		t.Fatal(err)
	}
	v := got["t"][0].([12]byte)
	// 2025-03-01 is Julian day 2460736; 12:30:00.000000005 is 45000e9+5 ns.
	if nod, day := binary.LittleEndian.Uint64(v[:8]), binary.LittleEndian.Uint32(v[8:]); day != 2460736 || nod != 45000e9+5 {
		t.Errorf("INT96 = day %d, %d ns; want 2460736, 45000000000005", day, nod)
	}
}

// thriftWriter writes the compact protocol, for hand-made headers.
type thriftWriter struct {
	b    []byte
	last []int16
}

func (w *thriftWriter) field(id int16, typ byte) {
	d := id - w.last[len(w.last)-1]
	w.last[len(w.last)-1] = id
	if d > 0 && d <= 15 {
		w.b = append(w.b, byte(d)<<4|typ)
		return
	}
	w.b = append(w.b, typ)
	w.b = binary.AppendVarint(w.b, int64(id))
}

func (w *thriftWriter) i32(id int16, v int32) {
	w.field(id, tI32)
	w.b = binary.AppendVarint(w.b, int64(v))
}

func (w *thriftWriter) begin(id int16) { w.field(id, tStruct); w.last = append(w.last, 0) }
func (w *thriftWriter) end()           { w.b = append(w.b, tStop); w.last = w.last[:len(w.last)-1] }

// TestAllocationBound: a page header that asks for more memory
// than the file can hold is refused before anything is allocated (other
// readers allocated 265 GB for a damaged length in a 1 KB file and
// ended the process), as is a page longer than its column chunk.
func TestAllocationBound(t *testing.T) {
	page := func(uncompressed, compressed int32) []byte {
		w := thriftWriter{last: []int16{0}}
		w.i32(1, dataPage)
		w.i32(2, uncompressed)
		w.i32(3, compressed)
		w.begin(5)
		w.i32(1, 10)
		w.i32(2, int32(Plain))
		w.end()
		w.end()
		return append(w.b, make([]byte, 80)...)
	}
	col := &Column{Name: "x", Type: Double, Repetition: Required}
	for _, c := range []struct {
		name  string
		chunk []byte
		want  string
	}{
		{"2 GB decompressed", page(math.MaxInt32, 80), "more than the file can hold"},
		{"past the chunk", page(80, 1<<20), "where the column chunk has 80 left"},
		{"negative", page(-1, 80), "negative"},
	} {
		f := &File{r: bytes.NewReader(c.chunk), maxAlloc: MinAllocBound, meta: &fileMeta{rowGroups: []RowGroup{{NumRows: 10}}}}
		ch := Chunk{f: f, col: col, codec: Snappy, size: len(c.chunk), rowsLeft: 10, rows: 10}
		_, err := ch.Next()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if f := (&File{}); max(MinAllocBound, int64(1<<30)*16) != 16<<30 || f.maxAlloc != 0 {
		t.Errorf("bound of a 1 GB file is not 16 GB")
	}
}

// TestHybrid decodes the RLE / bit-packing hybrid of Encodings.md's
// example: the values 0 to 7 bit-packed in 3 bits are 0x88 0xC6 0xFA
// after the header 0x03 (one group of 8), then a run of 5 fours.
func TestHybrid(t *testing.T) {
	b := []byte{0x03, 0x88, 0xC6, 0xFA, 5 << 1, 4}
	got := make([]uint32, 13)
	n, err := hybrid(got, b, 3)
	want := []uint32{0, 1, 2, 3, 4, 5, 6, 7, 4, 4, 4, 4, 4}
	if err != nil || n != len(b) || !cmp.Equal(got, want) {
		t.Errorf("hybrid = %v, %d, %v; want %v, %d", got, n, err, want, len(b))
	}
	if _, err := hybrid(make([]uint32, 14), b, 3); err == nil {
		t.Errorf("hybrid past the data: no error")
	}
}

// FuzzOpen: files written by arrow-go with bytes flipped (the input is
// a seed's index and edits of 5 bytes each: a 4-byte offset modulo the
// file's length and a byte XORed there, as ingest's FuzzParquetMutation)
// open to a File or an error, never a panic, and read to their end or
// to an error.
func FuzzOpen(f *testing.F) {
	cols := testColumns()[:4]
	var seeds [][]byte
	for _, c := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Zstd, compress.Codecs.Uncompressed} {
		seeds = append(seeds, writeTable(f, cols, parquet.WithCompression(c)))
	}
	seeds = append(seeds, writeTable(f, testColumns()[10:15], parquet.WithDataPageVersion(parquet.DataPageV2)))
	for k := range seeds {
		f.Add(uint8(k), []byte(nil))
		f.Add(uint8(k), binary.LittleEndian.AppendUint32(nil, 300)[:4:4])
	}
	f.Fuzz(func(t *testing.T, seed uint8, edits []byte) {
		b := bytes.Clone(seeds[int(seed)%len(seeds)])
		for i := 0; i+5 <= len(edits) && i < 5*64; i += 5 {
			b[binary.LittleEndian.Uint32(edits[i:])%uint32(len(b))] ^= edits[i+4]
		}
		pf, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		readAll(pf)
	})
}

// TestBitPackedMSB decodes Encodings.md's BIT_PACKED example: 0 to 7 in
// 3 bits, from the most significant bit, are 00000101 00111001 01110111.
func TestBitPackedMSB(t *testing.T) {
	got := make([]uint32, 8)
	n, err := bitPackedMSB(got, []byte{0x05, 0x39, 0x77}, 3)
	if want := []uint32{0, 1, 2, 3, 4, 5, 6, 7}; err != nil || n != 3 || !cmp.Equal(got, want) {
		t.Errorf("bitPackedMSB = %v, %d, %v; want %v, 3", got, n, err, want)
	}
}

// TestLZ4Hadoop decodes the deprecated LZ4 codec as Hadoop frames it
// (each block after its big-endian decompressed and compressed sizes),
// in two blocks, and as a bare block.
func TestLZ4Hadoop(t *testing.T) {
	parts := [][]byte{bytes.Repeat([]byte("settle "), 40), []byte("pending pending pending")}
	var framed, whole []byte
	for _, p := range parts {
		blk := make([]byte, lz4.CompressBlockBound(len(p)))
		k, err := lz4.CompressBlock(p, blk, nil)
		if err != nil || k == 0 {
			t.Fatalf("CompressBlock: %d, %v", k, err)
		}
		framed = binary.BigEndian.AppendUint32(framed, uint32(len(p)))
		framed = binary.BigEndian.AppendUint32(framed, uint32(k))
		framed = append(framed, blk[:k]...)
		whole = append(whole, p...)
	}
	got, err := decompress(LZ4, nil, framed, len(whole))
	if err != nil || !bytes.Equal(got, whole) {
		t.Errorf("Hadoop-framed LZ4 = %q, %v", got, err)
	}
	blk := make([]byte, lz4.CompressBlockBound(len(whole)))
	k, _ := lz4.CompressBlock(whole, blk, nil)
	got, err = decompress(LZ4, nil, blk[:k], len(whole))
	if err != nil || !bytes.Equal(got, whole) {
		t.Errorf("bare LZ4 block = %q, %v", got, err)
	}
}

// TestPageByPage: Next reads a chunk a page at a time (not the
// whole chunk at once), a header first: a page whose header, with
// 10 KB of statistics, is longer than the bytes read first (headerBytes),
// a page whose body is, and pages smaller than that, back to back; every
// page's values come out as written, and the chunk ends where it should.
func TestPageByPage(t *testing.T) {
	page := func(values []float64, stats int) []byte {
		body := make([]byte, 0, 8*len(values))
		for _, v := range values {
			body = binary.LittleEndian.AppendUint64(body, math.Float64bits(v))
		}
		w := thriftWriter{last: []int16{0}}
		w.i32(1, dataPage)
		w.i32(2, int32(len(body)))
		w.i32(3, int32(len(body)))
		w.begin(5)
		w.i32(1, int32(len(values)))
		w.i32(2, int32(Plain))
		if stats > 0 { // Statistics.max_value
			w.begin(5)
			w.field(5, tBinary)
			w.b = binary.AppendUvarint(w.b, uint64(stats))
			w.b = append(w.b, make([]byte, stats)...)
			w.end()
		}
		w.end()
		w.end()
		return append(w.b, body...)
	}
	var chunk []byte
	var want [][]float64
	for k, c := range []struct{ values, stats int }{{100, 10 << 10}, {2560, 0}, {3, 0}, {5, 0}, {300, 3000}} {
		v := make([]float64, c.values)
		for i := range v {
			v[i] = float64(k*10000 + i)
		}
		want = append(want, v)
		chunk = append(chunk, page(v, c.stats)...)
	}
	if len(page(want[0], 10<<10)) <= 2*headerBytes || len(page(want[1], 0)) <= 4*headerBytes {
		t.Fatal("the pages are not longer than headerBytes")
	}
	rows := int64(0)
	for _, v := range want {
		rows += int64(len(v))
	}
	col := &Column{Name: "x", Type: Double, Repetition: Required}
	f := &File{r: bytes.NewReader(chunk), maxAlloc: MinAllocBound}
	for round := range 2 { // buffers kept from chunk to chunk
		ch := Chunk{f: f, col: col, codec: Uncompressed, size: len(chunk), rowsLeft: rows, rows: rows}
		for k, v := range want {
			p, err := ch.Next()
			if err != nil {
				t.Fatalf("round %d, page %d: %v", round, k, err)
			}
			if p.Rows != len(v) || !cmp.Equal(p.Values.Double, v) {
				t.Fatalf("round %d, page %d: %d rows %v…, want %d from %v", round, k, p.Rows, p.Values.Double[:min(3, len(p.Values.Double))], len(v), v[0])
			}
		}
		if _, err := ch.Next(); err != io.EOF {
			t.Fatalf("round %d: after the last page: %v, want io.EOF", round, err)
		}
	}
}
