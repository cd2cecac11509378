package ingest

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Issue 18: hostile files. Each test below is the reproducer of one kind
// of damage that crashed pollfit, destroyed memory or read a wrong value;
// the files are made here, not committed.

// wantParseError checks that err is a *ParseError wrapping sentinel,
// naming file, and whose message holds each of parts.
func wantParseError(t *testing.T, err error, sentinel error, file string, parts ...string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, sentinel) || pe.File != file {
		t.Fatalf("err = %v, want a *ParseError for %s wrapping %v", err, file, sentinel)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("err = %v, want it to say %q", err, p)
		}
	}
}

// footer returns the offset of a Parquet file's Thrift footer.
func footer(b []byte) int {
	n := binary.LittleEndian.Uint32(b[len(b)-8:])
	return len(b) - 8 - int(n)
}

// TestIssue18ParquetNegativeRowCount: a row group whose footer gives a
// negative row count panicked ("slice bounds out of range"). Every byte
// of the footer that holds the row groups' count of 2 rows (zigzag
// varint 0x04, Thrift's compact encoding) is set to −1 (0x01) in turn:
// no panic, and where it is a row group's count the error names the file
// and row group.
func TestIssue18ParquetNegativeRowCount(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ok.parquet")
	writeParquet(t, path, 2, []string{"settle_s"}, map[string]any{"settle_s": []float64{1.5, 2, 0.25, 4}})
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i := footer(orig); i < len(orig)-8; i++ {
		if orig[i] != 0x04 {
			continue
		}
		b := bytes.Clone(orig)
		b[i] = 0x01
		p := filepath.Join(dir, fmt.Sprintf("neg%d.parquet", i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Read([]string{p}, ReadOptions{Column: "settle_s"})
		var pe *ParseError
		if errors.As(err, &pe) && pe.RowGroup >= 0 && strings.Contains(err.Error(), "the footer gives the row group -1 rows") {
			found = true
			wantParseError(t, err, ErrCorrupt, p, "row group")
		}
	}
	if !found {
		t.Errorf("no byte of the footer was a row group's row count")
	}
}

// TestIssue18ArrowSchemaLength: a 1 KB file whose ARROW:schema metadata
// holds a damaged length made arrow-go allocate 29.5 GB and end the
// process. Each 4-byte word of the serialised schema that holds its
// field count (1) is set to 0x6e000000: checkArrowSchema refuses it, and
// Read returns ErrCorrupt naming the file.
func TestIssue18ArrowSchemaLength(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "wait", Type: &arrow.DurationType{Unit: arrow.Millisecond}}}, nil)
	ser := flight.SerializeSchema(schema, memory.DefaultAllocator)
	if err := checkArrowSchema(base64.StdEncoding.EncodeToString(ser)); err != nil {
		t.Fatalf("the intact schema: %v", err)
	}
	dir := t.TempDir()
	refused := 0
	for i := 8; i+4 <= len(ser); i += 4 {
		if binary.LittleEndian.Uint32(ser[i:]) != 1 {
			continue
		}
		bad := bytes.Clone(ser)
		binary.LittleEndian.PutUint32(bad[i:], 0x6e000000)
		value := base64.StdEncoding.EncodeToString(bad)
		if checkArrowSchema(value) == nil {
			continue // a word that is not a length
		}
		refused++
		path := filepath.Join(dir, fmt.Sprintf("schema%d.parquet", i))
		writeInt64Parquet(t, path, "wait", []int64{1500, 2000}, value)
		_, _, err := Read([]string{path}, ReadOptions{Column: "wait"})
		wantParseError(t, err, ErrCorrupt, path, "ARROW:schema")
	}
	if refused == 0 {
		t.Errorf("no damaged length was refused")
	}
}

// writeInt64Parquet writes one int64 column with the given ARROW:schema
// metadata value.
func writeInt64Parquet(t *testing.T, path, name string, v []int64, arrowSchema string) {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues(v, nil)
	stored := arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.PrimitiveTypes.Int64}}, nil)
	writeRecordParquet(t, path, array.NewRecordBatch(stored, []arrow.Array{b.NewArray()}, int64(len(v))), arrowSchema)
}

// writeRecordParquet writes rec with the given ARROW:schema metadata
// value in place of its own.
func writeRecordParquet(t *testing.T, path string, rec arrow.RecordBatch, arrowSchema string) {
	t.Helper()
	stored := rec.Schema()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(stored, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.AppendKeyValueMetadata("ARROW:schema", arrowSchema); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestIssue18MaxRows: more rows than ReadOptions.MaxRows, or than memory
// holds, fail with ErrTooManyRows naming the file, before the memory is
// asked for: Parquet by its footer's counts, CSV as it is read. A 3.9 MB
// gzip of valid rows that expands to a billion ran out of memory; here
// 20 million rows in 39 KB.
func TestIssue18MaxRows(t *testing.T) {
	pq := writeTestParquet(t) // 6 rows
	_, _, err := Read([]string{pq}, ReadOptions{Column: "settle_s", MaxRows: 5})
	wantParseError(t, err, ErrTooManyRows, pq, "6 rows", "above 5", "--max-rows")
	if _, rep, err := Read([]string{pq}, ReadOptions{Column: "settle_s", MaxRows: 6}); err != nil || rep.Read != 6 {
		t.Errorf("MaxRows 6 of 6: %v, %v", rep, err)
	}

	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write([]byte("t\n"))
	zw.Write(bytes.Repeat([]byte("1\n"), 20_000_000))
	zw.Close()
	if gz.Len() > 100_000 {
		t.Fatalf("the gzip is %d bytes", gz.Len())
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err = ReadCSV(bytes.NewReader(gz.Bytes()), "bomb.csv.gz", ReadOptions{Column: "t", MaxRows: 1_000_000})
	wantParseError(t, err, ErrTooManyRows, "bomb.csv.gz", "above 1000000")
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// Stopped within a block or two of the limit: 10⁶ items are 8 MB,
	// and the blocks, batches and copies of growth add up to some
	// hundreds of MB in all (TotalAlloc counts every allocation made).
	if d := after.TotalAlloc - before.TotalAlloc; d > 512<<20 {
		t.Errorf("reading up to the limit allocated %d MB", d>>20)
	}

	// The default limit and the growth check, under 64 MB of memory:
	// 4 Mi rows at BytesPerRow.
	defer func(f func() int64) { memAvailable = f }(memAvailable)
	memAvailable = func() int64 { return 64 << 20 }
	if got := DefaultMaxRows(); got != 4<<20 {
		t.Errorf("DefaultMaxRows under 64 MB = %d, want %d", got, 4<<20)
	}
	_, _, err = ReadCSV(bytes.NewReader(gz.Bytes()), "bomb.csv.gz", ReadOptions{Column: "t"})
	wantParseError(t, err, ErrTooManyRows, "bomb.csv.gz", "memory available")
	_, _, err = ReadCSV(bytes.NewReader(gz.Bytes()), "bomb.csv.gz", ReadOptions{Column: "t", MaxRows: 30_000_000})
	wantParseError(t, err, ErrTooManyRows, "bomb.csv.gz", "more than the 0.0625 GiB of memory available")
	if _, _, err := Read([]string{pq}, ReadOptions{Column: "settle_s", MaxRows: -1}); !errors.Is(err, ErrOption) {
		t.Errorf("MaxRows -1: %v, want ErrOption", err)
	}
}

// TestIssue18SparseCSV: a sparse 50 GB CSV whose first block holds short
// rows made the reader reserve room for 29.5 G items. The guess is
// bounded (maxGuess), and the 64 MB "record" of zero bytes after the
// rows is an error.
func TestIssue18SparseCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("t\n1\n2\n3\n")
	if err := f.Truncate(50 << 30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err = Read([]string{path}, ReadOptions{Column: "t"})
	runtime.ReadMemStats(&after)
	wantParseError(t, err, ErrQuote, path, "longer than")
	if d := after.TotalAlloc - before.TotalAlloc; d > 2<<30 {
		t.Errorf("reading allocated %d MB", d>>20)
	}
}

// TestIssue18CROnly: a 2 MB file with CR-only line ends was read as one
// header and printed whole in the error. The error says why, and no
// error message is longer than maxMessage.
func TestIssue18CROnly(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,settle_s\r")
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, "pay_%d,%d.5\r", i, i%100)
	}
	_, _, err := ReadCSV(strings.NewReader(b.String()), "mac.csv", ReadOptions{Column: "settle_s"})
	wantParseError(t, err, ErrLineEnds, "mac.csv", "lines end in CR only", "row 1")
	if len(err.Error()) > 400 {
		t.Errorf("error of %d bytes: %.200s…", len(err.Error()), err)
	}
	// A CR inside a data row: the field count error says so.
	_, _, err = ReadCSV(strings.NewReader("id,t\na,1\rb,2\n"), "mixed.csv", ReadOptions{Column: "t"})
	wantParseError(t, err, ErrFieldCount, "mixed.csv", "carriage return", "lines end in CR only")

	// Long values and long headers are cut.
	long := strings.Repeat("x", 1<<20)
	for _, c := range []struct{ name, in string }{
		{"value", "t\n" + long + "\n"},
		{"header", strings.Repeat("col,", 5000) + "last\n1\n"},
		{"column name", long + "\n1\n"},
	} {
		_, _, err := ReadCSV(strings.NewReader(c.in), "long.csv", ReadOptions{Column: "t"})
		if err == nil || len(err.Error()) > maxMessage+100 {
			t.Errorf("%s: error of %d bytes", c.name, len(fmt.Sprint(err)))
		}
	}
	if got := quote(strings.Repeat("é", 100)); !strings.HasSuffix(got, "… (200 bytes)") || len(got) > maxQuoted+30 {
		t.Errorf("quote = %q", got)
	}
}

// TestIssue18TimestampRange: timestamps past 2262-04-11 (or before
// 1677-09-21) overflow Unix nanoseconds; 7285-03-01T10:00:05Z was read as
// 445,741.6 s. They are ErrOutOfRange naming file, row and column, and
// --drop-invalid drops them, counted.
func TestIssue18TimestampRange(t *testing.T) {
	in := "created_at,settled_at\n2025-03-01T10:00:00Z,2025-03-01T10:00:05Z\n2025-03-01T10:00:00Z,7285-03-01T10:00:05Z\n1600-01-01T00:00:00Z,2025-03-01T10:00:05Z\n"
	opt := ReadOptions{Start: "created_at", End: "settled_at"}
	_, _, err := ReadCSV(strings.NewReader(in), "ts.csv", opt)
	wantParseError(t, err, ErrOutOfRange, "ts.csv", `row 3, column "settled_at"`, "7285-03-01T10:00:05Z")
	opt.DropInvalid = true
	s, rep, err := ReadCSV(strings.NewReader(in), "ts.csv", opt)
	if err != nil || len(s.Times) != 1 || s.Times[0] != 5 || rep.Dropped["out of range"] != 2 {
		t.Errorf("drop-invalid: %v, %v, %v; want [5] and 2 dropped out of range", s, rep, err)
	}
	if _, err := ParseTime("7285-03-01T10:00:05Z", 0); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("ParseTime(7285) = %v, want ErrOutOfRange", err)
	}
}

// TestIssue18ParquetSecondsOverflow: Parquet duration[s] and
// timestamp[s] values whose nanoseconds overflow an int64 came out as
// under a second; they are ErrOutOfRange naming row group and row, on the
// fast path (a duration column alone) and the general one.
func TestIssue18ParquetSecondsOverflow(t *testing.T) {
	dir := t.TempDir()
	dur := filepath.Join(dir, "dur.parquet")
	// 10¹⁰ s is 317 years: 10¹⁹ ns overflows.
	writeDurationParquet(t, dur, arrow.Second, []int64{5, 1e10, 7})
	_, _, err := Read([]string{dur}, ReadOptions{Column: "wait"})
	wantParseError(t, err, ErrOutOfRange, dur, "row group 0, row 2", "10000000000 units of 1s")
	// The general path: a status column beside it.
	withStatus := filepath.Join(dir, "status.parquet")
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{5, 1e10, 7}, nil)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"ok", "ok", "ok"}, nil)
	stored := arrow.NewSchema([]arrow.Field{{Name: "wait", Type: arrow.PrimitiveTypes.Int64}, {Name: "status", Type: arrow.BinaryTypes.String}}, nil)
	want := arrow.NewSchema([]arrow.Field{{Name: "wait", Type: &arrow.DurationType{Unit: arrow.Second}}, {Name: "status", Type: arrow.BinaryTypes.String}}, nil)
	writeRecordParquet(t, withStatus, array.NewRecordBatch(stored, []arrow.Array{ib.NewArray(), sb.NewArray()}, 3),
		base64.StdEncoding.EncodeToString(flight.SerializeSchema(want, mem)))
	_, _, err = Read([]string{withStatus}, ReadOptions{Column: "wait", Status: "status"})
	wantParseError(t, err, ErrOutOfRange, withStatus, "row group 0, row 2", "10000000000 units of 1s")
	s, rep, err := Read([]string{dur}, ReadOptions{Column: "wait", DropInvalid: true})
	if err != nil || len(s.Times) != 2 || s.Times[1] != 7 || rep.Dropped["out of range"] != 1 {
		t.Errorf("drop-invalid: %v, %v, %v", s, rep, err)
	}

	ts := filepath.Join(dir, "ts.parquet")
	typ := &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}
	cols := make([]arrow.Array, 2)
	for k, v := range [][]arrow.Timestamp{{1740823200, 1740823200}, {1740823205, 167_000_000_000}} {
		b := array.NewTimestampBuilder(mem, typ)
		b.AppendValues(v, nil)
		cols[k] = b.NewArray()
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "start", Type: typ}, {Name: "end", Type: typ}}, nil)
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{array.NewRecordBatch(schema, cols, 2)})
	f, err := os.Create(ts)
	if err != nil {
		t.Fatal(err)
	}
	if err := pqarrow.WriteTable(tbl, f, 2, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, _, err = Read([]string{ts}, ReadOptions{Start: "start", End: "end"})
	// 1.67·10¹¹ s is the year 7262: as seconds it holds, as nanoseconds
	// it does not.
	wantParseError(t, err, ErrOutOfRange, ts, `row group 0, row 2, column "end"`)
}

// TestIssue18HugeValues: values above MaxSeconds (1e300) passed the
// reader and failed in the fit without file or row. They are reader
// errors, and --drop-invalid drops them; Sample.Validate agrees.
func TestIssue18HugeValues(t *testing.T) {
	in := "t\n1.5\n1e301\n2\n"
	_, _, err := ReadCSV(strings.NewReader(in), "huge.csv", ReadOptions{Column: "t"})
	wantParseError(t, err, ErrOutOfRange, "huge.csv", `row 3, column "t"`, "1e+301")
	s, rep, err := ReadCSV(strings.NewReader(in), "huge.csv", ReadOptions{Column: "t", DropInvalid: true})
	if err != nil || len(s.Times) != 2 || rep.Dropped["out of range"] != 1 {
		t.Errorf("drop-invalid: %v, %v, %v", s, rep, err)
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
	if err := (&Sample{Times: []float64{1, 1e301}}).Validate(); err == nil {
		t.Error("Validate(1e301) = nil")
	}
	pq := filepath.Join(t.TempDir(), "huge.parquet")
	writeParquet(t, pq, 2, []string{"t"}, map[string]any{"t": []float64{1, 2, 3e300, 4}})
	_, _, err = Read([]string{pq}, ReadOptions{Column: "t", Unit: Minute}) // 3e300 min is 1.8e302 s
	wantParseError(t, err, ErrOutOfRange, pq, "row group 1, row 1")
}

// TestIssue18Bins: binned input with a count of 1e300 became
// "-9223372036854775808 rows"; overlapping bins and fractional counts
// were accepted. Counts are whole numbers up to MaxBinCount, all bins
// together hold at most MaxBinCount items, and the bins of a segment do
// not overlap.
func TestIssue18Bins(t *testing.T) {
	for _, c := range []struct {
		name, in string
		seg      string
		sentinel error
		want     string
	}{
		{"huge count", "lower,upper,count\n0,10,1e300\n", "", ErrOutOfRange, `row 2, column "count"`},
		{"fractional count", "lower,upper,count\n0,10,2.5\n", "", ErrBadBin, "not a whole number"},
		{"fractional censored", "lower,upper,count,censored\n0,10,3,0.5\n", "", ErrBadBin, "not a whole number"},
		{"too many items", "lower,upper,count\n0,10,5000000000000000\n10,20,5000000000000000\n", "", ErrOutOfRange, "1e+16 items"},
		{"overlap", "lower,upper,count\n0,10,5\n20,30,3\n5,15,2\n", "", ErrBadBin, "row 4, column \"lower\": bad bin: bin [5, 15) s overlaps bin [0, 10) s (bins.csv: row 2)"},
		{"inside", "lower,upper,count\n0,100,5\n10,20,3\n", "", ErrBadBin, "bin [10, 20) s overlaps bin [0, 100) s"},
		{"under an open bin", "lower,upper,count\n0,10,5\n10,,3\n60,70,1\n", "", ErrBadBin, "bin [60, 70) s overlaps bin [10, ∞) s"},
		{"point bin twice", "lower,upper,count\n0,0,5\n0,10,3\n0,0,1\n", "", ErrBadBin, "bin {0} s overlaps bin {0} s"},
		{"overlap in a segment", "m,lower,upper,count\na,0,10,5\nb,5,15,2\na,5,15,1\n", "m", ErrBadBin, `of segment "a"`},
		{"bound too large", "lower,upper,count\n0,1e301,5\n", "", ErrOutOfRange, `column "upper"`},
		// Segment names reach generated code: the row reader refuses
		// invalid UTF-8, and so do bins.
		{"segment not UTF-8", "m,lower,upper,count\na,0,10,5\nm\xffo,0,10,2\n", "m", ErrNotUTF8, `row 3, column "m": invalid UTF-8: found "m\xffo"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadCSV(strings.NewReader(c.in), "bins.csv", ReadOptions{Binned: true, Segment: c.seg})
			wantParseError(t, err, c.sentinel, "bins.csv", c.want)
		})
	}
	// Adjacent bins, a point bin inside a bin, the same bins in two
	// segments: accepted.
	ok := "m,lower,upper,count\na,0,0,5\na,0,10,5\na,10,20,3\na,20,,1\nb,0,10,4\nb,5,5,0\n"
	s, rep, err := ReadCSV(strings.NewReader(ok), "bins.csv", ReadOptions{Binned: true, Segment: "m"})
	if err != nil || rep.Items != 18 || s.TotalWeight() != 18 {
		t.Errorf("valid bins: %v, %v", rep, err)
	}
}

// TestIssue18Quote: quote cuts at a character boundary.
func TestIssue18Quote(t *testing.T) {
	if got, want := quote("abc"), `"abc"`; got != want {
		t.Errorf("quote(abc) = %s", got)
	}
	got := quote(strings.Repeat("a", 63) + "é" + strings.Repeat("b", 10))
	if want := `"` + strings.Repeat("a", 63) + `"… (75 bytes)`; got != want {
		t.Errorf("quote = %s, want %s", got, want)
	}
}
