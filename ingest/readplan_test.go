package ingest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestReadOptionsMisuse(t *testing.T) {
	tests := []struct {
		opt  ReadOptions
		want string
	}{
		{ReadOptions{}, "set a duration column (--column), or start and end columns (--start and --end), or a duration column with one of them"},
		{ReadOptions{Column: "a", Start: "b", End: "c"}, "a duration column goes with a start or an end column, not both: set --column with --start or --end, or --start and --end"},
		{ReadOptions{Start: "b"}, "a start column alone gives no settle time: add the end column (--end) or a duration column (--column)"},
		{ReadOptions{End: "c"}, "an end column alone gives no settle time: add the start column (--start) or a duration column (--column)"},
		{ReadOptions{Column: "a", Pending: []string{"p"}}, "pending and excluded values need a status column (--status)"},
		{ReadOptions{Column: "a", Delimiter: '"'}, `delimiter '"': want one ASCII character other than a quote or line break`},
		{ReadOptions{Column: "a", Status: "s", Pending: []string{"x"}, ExcludeStatus: []string{"x"}}, `status "x" is both pending and excluded`},
	}
	for _, tt := range tests {
		_, _, err := ReadCSV(strings.NewReader("a\n1\n"), "x", tt.opt)
		if !errors.Is(err, ErrOption) || err.Error() != "invalid option: "+tt.want {
			t.Errorf("ReadCSV(%+v) error = %v, want ErrOption: %s", tt.opt, err, tt.want)
		}
	}
}

// TestMaxRows: more rows than ReadOptions.MaxRows, or than memory
// holds, fail with ErrTooManyRows naming the file, before the memory is
// asked for: Parquet by its footer's counts, CSV as it is read. A 3.9 MB
// gzip of valid rows that expands to a billion ran out of memory; here
// 20 million rows in 39 KB.
func TestMaxRows(t *testing.T) {
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
