package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestReadCSVStream(t *testing.T) {
	in := "a\tsettle_s\nx\t1\ny\t2ms\n"
	s, _, err := ReadCSV(strings.NewReader(in), "stream", ReadOptions{Column: "settle_s", Delimiter: '\t', Unit: Minute})
	if err != nil {
		t.Fatal(err)
	}
	// 1 minute = 60 s; "2ms" is a Go duration, so the unit does not apply.
	if want := []float64{60, 0.002}; !slices.Equal(s.Times, want) {
		t.Errorf("ReadCSV(%q).Times = %v, want %v", in, s.Times, want)
	}
}

// TestReadCSVChunkBoundaries parses the same input with blocks of every
// small size, so that block ends fall inside quoted fields, CRLFs and
// records, and checks that the result never changes.
func TestReadCSVChunkBoundaries(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,note,settle_s\r\n")
	var want []float64
	for i := range 60 {
		note := "plain"
		switch i % 4 {
		case 1:
			note = `"with, comma"`
		case 2:
			note = "\"two\nlines \"\"q\"\"\""
		case 3:
			note = `""`
		}
		fmt.Fprintf(&b, "%d,%s,%d.5\r\n", i, note, i)
		want = append(want, float64(i)+0.5)
	}
	in := b.String()
	defer func(n int) { chunkSize = n }(chunkSize)
	for _, size := range []int{1, 2, 3, 5, 8, 13, 21, 64, 1000} {
		chunkSize = size
		for _, workers := range []int{1, 2, 3} {
			s, rep, err := ReadCSV(strings.NewReader(in), "boundaries", ReadOptions{Column: "settle_s", Workers: workers})
			if err != nil {
				t.Fatalf("chunk %d, workers %d: %v", size, workers, err)
			}
			if !slices.Equal(s.Times, want) || rep.Read != 60 {
				t.Fatalf("chunk %d, workers %d: Times = %v (%v), want %v", size, workers, s.Times, rep, want)
			}
		}
	}
	// Errors name the same line whatever the block size: line 1 is the
	// header, record i starts on line 2+i+(number of two-line notes
	// before it); the bad value is in record 30 (notes 2, 6, …, 26: 7
	// two-line notes) so on line 2+30+7 = 39.
	bad := strings.Replace(in, "\r\n30,", "\r\n30,x,oops\r\n31,", 1)
	bad = strings.Replace(bad, "30.5\r\n31,", "", 1)
	for _, size := range []int{4, 16, 1 << 20} {
		chunkSize = size
		_, _, err := ReadCSV(strings.NewReader(bad), "boundaries", ReadOptions{Column: "settle_s"})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Row != 39 {
			t.Errorf("chunk %d: error %v, want one at row 39", size, err)
		}
	}
}

// FuzzReadCSV checks that no input makes ReadCSV panic, that small blocks
// give what one block gives, and that writing what was read and reading
// it again gives the same values.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"settle_s\n1\n2.5\n", "a,settle_s\r\nx,\"1\"\r\n", "settle_s\n\"1\n\"\n", "\ufeffsettle_s,b\n1,\"a,\"\"b\"\n",
		"settle_s\n1e3\n-1\nNaN\n1h\n", "x\n", "", "settle_s\n\"", "settle_s,m\n1,a\n2,b\n3,\n",
		"settle_s,m\n1,a\n-0.5,b\n1,a\n2,a\n", "m,settle_s\n\"a\",-1e-3\n\"a\",1\r\na,1\n",
		"created_at,settled_at,settle_s,status\n2025-03-01T00:00:00Z,2025-03-01T00:00:01.5Z,1.5,ok\n2025-03-01 00:00:02.25+01:00,,3,pending\n" +
			"1677-09-22T00:00:00Z,1677-09-22T00:00:00Z,48h,ok\n2262-04-10T00:00:00Z,,-1,pending\n2025-03-01T00:00:09Z,2025-03-01T00:00:08.5Z,-0.5,ok\n",
	} {
		f.Add([]byte(s))
	}
	paths, _ := filepath.Glob("../fixtures/*.csv")
	paths = append(paths, mustGlob(ingestDir+"/*.csv")...)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if len(data) > 4096 { // enough to seed the structure, small enough to mutate
			data = data[:bytes.LastIndexByte(data[:4096], '\n')+1]
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := ReadOptions{Column: "settle_s", Segment: "m", DropInvalid: true}
		if !bytes.Contains(data, []byte("m")) {
			opt.Segment = ""
		}
		s, rep, err := ReadCSV(bytes.NewReader(data), "fuzz", opt)
		defer func(n int) { chunkSize = n }(chunkSize)
		chunkSize = 7
		s2, _, err2 := ReadCSV(bytes.NewReader(data), "fuzz", opt)
		chunkSize = 1 << 21
		if (err == nil) != (err2 == nil) || (err == nil && !slices.Equal(s.Times, s2.Times)) {
			t.Fatalf("small blocks differ: %v vs %v", err, err2)
		}
		if err != nil {
			return
		}
		if rep.Read != rep.Used+rep.Excluded+rep.DroppedTotal() {
			t.Fatalf("report does not add up: %v", rep)
		}
		// Negatives made 0 and ids deduplicated: still every row counted,
		// and the same rows whatever the blocks.
		cl := ReadOptions{Column: "settle_s", Dedupe: opt.Segment, Negative: NegativeZero, DropInvalid: true}
		c1, crep, cerr := ReadCSV(bytes.NewReader(data), "fuzz", cl)
		chunkSize = 5
		c2, _, cerr2 := ReadCSV(bytes.NewReader(data), "fuzz", cl)
		chunkSize = 1 << 21
		if (cerr == nil) != (cerr2 == nil) || (cerr == nil && !slices.Equal(c1.Times, c2.Times)) {
			t.Fatalf("cleaning, small blocks differ: %v vs %v", cerr, cerr2)
		}
		if cerr == nil && (crep.Read != crep.Used+crep.Excluded+crep.DroppedTotal() || crep.Zeroed > crep.Used || slices.Min(c1.Times) < 0) {
			t.Fatalf("cleaning: report does not add up or a time is negative: %v", crep)
		}
		var out bytes.Buffer
		out.WriteString("settle_s,m\n")
		for i, x := range s.Times {
			seg := ""
			if s.HasSegments() {
				seg = s.SegmentNames[s.SegmentOf(i)]
			}
			fmt.Fprintf(&out, "%s,\"%s\"\n", formatFloat(x), strings.ReplaceAll(seg, `"`, `""`))
		}
		back, _, err := ReadCSV(&out, "fuzz-back", ReadOptions{Column: "settle_s", Segment: opt.Segment})
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if !slices.Equal(back.Times, s.Times) {
			t.Fatalf("round trip: %v, want %v", back.Times, s.Times)
		}
		if s.HasSegments() {
			for i := range s.Times {
				if a, b := s.SegmentNames[s.SegmentOf(i)], back.SegmentNames[back.SegmentOf(i)]; a != b && strings.TrimSpace(a) != b {
					t.Fatalf("round trip segment %d: %q, want %q", i, b, a)
				}
			}
		}
		fuzzCreated(t, data)
	})
}

func ExampleReadCSV() {
	in := "payment_id,created_at,settled_at,status\n" +
		"p1,2025-03-01T00:00:00Z,2025-03-01T00:00:02.5Z,succeeded\n" +
		"p2,2025-03-01T00:00:00Z,2025-03-01T00:01:00Z,failed\n" +
		"p3,2025-03-01T00:00:00Z,,pending\n"
	s, rep, err := ReadCSV(strings.NewReader(in), "payments.csv", ReadOptions{
		Start: "created_at", End: "settled_at",
		Status: "status", Pending: []string{"pending"},
		ObservedAt: time.Date(2025, 3, 1, 0, 15, 0, 0, time.UTC),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, t := range s.Times {
		fmt.Printf("%.4g s censored=%v\n", t, s.IsCensored(i))
	}
	fmt.Println(rep)
	// Output:
	// 2.5 s censored=false
	// 60 s censored=false
	// 900 s censored=true
	// read 3 rows: used 3 (censored 1), excluded 0, dropped 0
}

// TestSparseCSV: a sparse 50 GB CSV whose first block holds short
// rows made the reader reserve room for 29.5 G items. The guess is
// bounded (maxGuess), and the 64 MB "record" of zero bytes after the
// rows is an error.
func TestSparseCSV(t *testing.T) {
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

// TestCROnlyLineEnds: a 2 MB file with CR-only line ends was read as one
// header and printed whole in the error. The error says why, and no
// error message is longer than maxMessage.
func TestCROnlyLineEnds(t *testing.T) {
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
