package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

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

// TestParquetNegativeRowCount: a row group whose footer gives a
// negative row count panicked ("slice bounds out of range"). Every byte
// of the footer that holds the row groups' count of 2 rows (zigzag
// varint 0x04, Thrift's compact encoding) is set to −1 (0x01) in turn:
// no panic, and where it is a row group's count the error names the file
// and row group.
func TestParquetNegativeRowCount(t *testing.T) {
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

// TestArrowSchemaDamagedLength: a 1 KB file whose ARROW:schema metadata
// holds a damaged length made arrow-go allocate 29.5 GB and end the
// process. Each 4-byte word of the serialised schema that holds its
// field count (1) is set to 0x6e000000: checkArrowSchema refuses it, and
// Read returns ErrCorrupt naming the file.
func TestArrowSchemaDamagedLength(t *testing.T) {
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

// TestTimestampRange: timestamps past 2262-04-11 (or before
// 1677-09-21) overflow Unix nanoseconds; 7285-03-01T10:00:05Z was read as
// 445,741.6 s. They are ErrOutOfRange naming file, row and column, and
// --drop-invalid drops them, counted.
func TestTimestampRange(t *testing.T) {
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

// TestBinCountsAndOverlap: binned input with a count of 1e300 became
// "-9223372036854775808 rows"; overlapping bins and fractional counts
// were accepted. Counts are whole numbers up to MaxBinCount, all bins
// together hold at most MaxBinCount items, and the bins of a segment do
// not overlap.
func TestBinCountsAndOverlap(t *testing.T) {
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

// TestQuoteCutsAtCharacter: quote cuts at a character boundary.
func TestQuoteCutsAtCharacter(t *testing.T) {
	if got, want := quote("abc"), `"abc"`; got != want {
		t.Errorf("quote(abc) = %s", got)
	}
	got := quote(strings.Repeat("a", 63) + "é" + strings.Repeat("b", 10))
	if want := `"` + strings.Repeat("a", 63) + `"… (75 bytes)`; got != want {
		t.Errorf("quote = %s, want %s", got, want)
	}
}
