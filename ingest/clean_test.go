package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkCounts fails unless every row read is used, excluded or dropped.
func checkCounts(t *testing.T, rep *Report) {
	t.Helper()
	if rep.Read != rep.Used+rep.Excluded+rep.DroppedTotal() {
		t.Errorf("report does not add up: %v", rep)
	}
}

// TestIssue15Dedupe: --dedupe keeps the first row used of each id, in
// input order across blocks and files, and counts the others as dropped.
func TestIssue15Dedupe(t *testing.T) {
	in := "id,settle_s,status,m\n" +
		"a,1,ok,x\n" +
		"b,2,pending,y\n" +
		"a,3,ok,y\n" + // a again: dropped
		"c,4,cancelled,x\n" + // excluded: its id is not taken
		"c,5,ok,x\n" +
		"b,6,ok,x\n" + // b again (the first was censored): dropped
		"d,,ok,x\n" + // empty value: dropped as empty, id not taken
		"d,7,ok,y\n" +
		" a ,8,ok,x\n" // ids are trimmed like every field
	opt := ReadOptions{Column: "settle_s", Dedupe: "id", Status: "status", Pending: []string{"pending"},
		ExcludeStatus: []string{"cancelled"}, Segment: "m", DropInvalid: true}
	for _, chunk := range []int{1 << 21, 7, 16} {
		chunkSize = chunk
		s, rep, err := ReadCSV(strings.NewReader(in), "dedupe", opt)
		chunkSize = 1 << 21
		if err != nil {
			t.Fatal(err)
		}
		if want := []float64{1, 2, 5, 7}; !slices.Equal(s.Times, want) {
			t.Errorf("chunk %d: Times = %v, want %v", chunk, s.Times, want)
		}
		if want := []bool{false, true, false, false}; !slices.Equal(s.Censored, want) {
			t.Errorf("chunk %d: Censored = %v, want %v", chunk, s.Censored, want)
		}
		if segs, want := segmentsOf(s), []string{"x", "y", "x", "y"}; !slices.Equal(segs, want) {
			t.Errorf("chunk %d: segments %v, want %v", chunk, segs, want)
		}
		if rep.Read != 9 || rep.Used != 4 || rep.Censored != 1 || rep.Excluded != 1 || rep.Dropped["duplicate id"] != 3 || rep.Dropped["empty"] != 1 {
			t.Errorf("chunk %d: report %v, want read 9, used 4 (censored 1), excluded 1, dropped 4 (duplicate id 3, empty 1)", chunk, rep)
		}
		checkCounts(t, rep)
		if rep.Repeated != 0 {
			t.Errorf("chunk %d: Repeated = %d with Dedupe, want 0 (not counted)", chunk, rep.Repeated)
		}
	}
	// Without DropInvalid an empty id is an error naming it.
	_, _, err := ReadCSV(strings.NewReader("id,t\na,1\n,2\n"), "x.csv", ReadOptions{Column: "t", Dedupe: "id"})
	if want := `x.csv: row 3, column "id": empty value`; err == nil || err.Error() != want {
		t.Errorf("empty id: %v, want %s", err, want)
	}
	// Across files, and with Parquet integer ids.
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	writeParquet(t, p1, 2, []string{"id", "t"}, map[string]any{"id": []int64{1, 2, 1}, "t": []float64{1, 2, 3}})
	writeParquet(t, p2, 2, []string{"id", "t"}, map[string]any{"id": []int64{2, 3}, "t": []float64{4, 5}})
	s, rep, err := Read([]string{p1, p2}, ReadOptions{Column: "t", Dedupe: "id"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 2, 5}; !slices.Equal(s.Times, want) || rep.Dropped["duplicate id"] != 2 {
		t.Errorf("parquet: Times %v, report %v; want %v and 2 duplicate ids", s.Times, rep, want)
	}
	checkCounts(t, rep)
	// Binned input has no rows to deduplicate.
	if _, _, err := ReadCSV(strings.NewReader("lower,upper,count\n0,1,2\n"), "b", ReadOptions{Binned: true, Dedupe: "id"}); !errors.Is(err, ErrOption) {
		t.Errorf("binned with Dedupe: %v, want ErrOption", err)
	}
}

// TestIssue15RepeatedRows: rows that repeat an earlier row exactly are
// counted and warned about: exactly up to repeatCap distinct rows, and
// estimated beyond.
func TestIssue15RepeatedRows(t *testing.T) {
	// The issue's case: every line written twice (the second copy after
	// the whole first).
	lines := []string{"a,1.5,x", "b,0.25,y", "c,1.5,x", "d,2,y"}
	in := "id,t,m\n" + strings.Join(lines, "\n") + "\n" + strings.Join(lines, "\r\n") + "\n"
	for _, chunk := range []int{1 << 21, 5} {
		chunkSize = chunk
		_, rep, err := ReadCSV(strings.NewReader(in), "twice.csv", ReadOptions{Column: "t"})
		chunkSize = 1 << 21
		if err != nil {
			t.Fatal(err)
		}
		want := "4 of the 8 rows repeat an earlier row exactly (50%): if each row is one item, --dedupe COLUMN keeps the first row per id"
		if rep.Repeated != 4 || !rep.RepeatedExact || !slices.Contains(rep.Warnings, want) {
			t.Errorf("chunk %d: Repeated %d (exact %v), warnings %q; want 4, exact, %q", chunk, rep.Repeated, rep.RepeatedExact, rep.Warnings, want)
		}
	}
	// Quoted fields: the same record written with and without quotes is
	// not the same line; written alike twice, it is.
	q := "id,t\n\"a\",1\na,1\n\"b,c\",2\n\"b,c\",2\n"
	if _, rep, err := ReadCSV(strings.NewReader(q), "q.csv", ReadOptions{Column: "t"}); err != nil || rep.Repeated != 1 {
		t.Errorf("quoted: Repeated %v, %v; want 1", rep, err)
	}
	// One column: equal lines are ties, not repeats, and are not counted.
	if _, rep, err := ReadCSV(strings.NewReader("t\n1\n1\n1\n"), "one.csv", ReadOptions{Column: "t"}); err != nil || rep.Repeated != 0 || len(rep.Warnings) != 0 {
		t.Errorf("one column: %v, %v; want nothing repeated", rep, err)
	}
	// A duration with the columns read beside it (status, segment): equal
	// lines are ties of rounded values, not counted. A column not read
	// (an id) makes them repeats.
	ties := "t,status,m\n0.25,done,x\n0.25,done,x\n1,pending,y\n"
	if _, rep, err := ReadCSV(strings.NewReader(ties), "ties.csv", ReadOptions{Column: "t", Status: "status", Pending: []string{"pending"}, Segment: "m"}); err != nil || rep.Repeated != 0 || len(rep.Warnings) != 0 {
		t.Errorf("columns in use only: %v, %v; want nothing repeated", rep, err)
	}
	if _, rep, err := ReadCSV(strings.NewReader(ties), "ties.csv", ReadOptions{Column: "t", Status: "status", Pending: []string{"pending"}}); err != nil || rep.Repeated != 1 {
		t.Errorf("a column not read: %v, %v; want 1 repeated", rep, err)
	}
	// Parquet: by the columns in use, with timestamps; not with a
	// duration column alone.
	dir := t.TempDir()
	pq := filepath.Join(dir, "r.parquet")
	writeParquet(t, pq, 2, []string{"t", "created_at", "settled_at"}, map[string]any{
		"t":          []float64{1, 1, 2},
		"created_at": []*time.Time{at(0), at(0), at(0)},
		"settled_at": []*time.Time{at(time.Second), at(time.Second), at(2 * time.Second)},
	})
	if _, rep, err := Read([]string{pq}, ReadOptions{Start: "created_at", End: "settled_at"}); err != nil || rep.Repeated != 1 || len(rep.Warnings) != 1 {
		t.Errorf("parquet timestamps: %v, %v; want 1 repeated and its warning", rep, err)
	}
	if _, rep, err := Read([]string{pq}, ReadOptions{Column: "t"}); err != nil || rep.Repeated != 0 {
		t.Errorf("parquet duration column: %v, %v; want nothing counted", rep, err)
	}
}

// TestRepeatedRowsEstimate: beyond repeatCap distinct rows the count is
// estimated from a sample. With n distinct rows of which a share q is
// written twice, the true count is about q·n; the estimate counts the
// repeats among the sampled distinct rows (between repeatCap/2 and
// repeatCap of them when the sampling stops), so its relative standard
// error is at most 1/√(q·repeatCap/2): 4.9% at q = 0.2, 2.2% at q = 0.5.
// The test allows 4 standard errors.
func TestRepeatedRowsEstimate(t *testing.T) {
	const n = 200_000
	for _, q := range []float64{0.2, 0.5} {
		r := rand.New(rand.NewPCG(15, 1))
		var b bytes.Buffer
		b.WriteString("id,t,m\n")
		twice := 0
		var again []string
		for i := range n {
			line := fmt.Sprintf("pay_%08d,%.3f,card", i, r.ExpFloat64()*20)
			b.WriteString(line + "\n")
			if r.Float64() < q {
				again = append(again, line)
				twice++
			}
			if len(again) > 0 && r.Float64() < 0.3 { // repeats come a little later, interleaved
				b.WriteString(again[0] + "\n")
				again = again[1:]
			}
		}
		for _, l := range again {
			b.WriteString(l + "\n")
		}
		data := b.Bytes()
		_, rep, err := ReadCSV(bytes.NewReader(data), "big.csv", ReadOptions{Column: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.RepeatedExact {
			t.Errorf("q %v: %d distinct rows: count marked exact", q, n)
		}
		se := 1 / math.Sqrt(q*repeatCap/2)
		if rel := math.Abs(float64(rep.Repeated-twice)) / float64(twice); rel > 4*se {
			t.Errorf("q %v: Repeated = %d, want %d within %.0f%% (off by %.1f%%)", q, rep.Repeated, twice, 400*se, 100*rel)
		}
		if !strings.HasPrefix(strings.Join(rep.Warnings, "\n"), "about ") {
			t.Errorf("q %v: warnings %q, want an estimate (\"about …\")", q, rep.Warnings)
		}
		// The estimate does not depend on how the input is cut into blocks.
		chunkSize = 1 << 16
		_, rep2, err := ReadCSV(bytes.NewReader(data), "big.csv", ReadOptions{Column: "t", Workers: 1})
		chunkSize = 1 << 21
		if err != nil || rep2.Repeated != rep.Repeated {
			t.Errorf("q %v: 64 KB blocks, 1 worker: Repeated = %d, %v; want %d as with 2 MB blocks", q, rep2.Repeated, err, rep.Repeated)
		}
	}
	// No repeats, no warning, at any size.
	var u bytes.Buffer
	u.WriteString("id,t\n")
	for i := range n {
		fmt.Fprintf(&u, "%d,%d\n", i, i%100)
	}
	if _, rep, err := ReadCSV(&u, "unique.csv", ReadOptions{Column: "t"}); err != nil || rep.Repeated != 0 || len(rep.Warnings) != 0 {
		t.Errorf("unique rows: Repeated %d, warnings %q, %v", rep.Repeated, rep.Warnings, err)
	}
}

// TestIssue15Negative: negative durations and ends before starts fail,
// are dropped or are made 0, and are counted either way.
func TestIssue15Negative(t *testing.T) {
	dur := "id,t\na,1\nb,-0.02\nc,2\nd,-0.5\n"
	ts := "id,created_at,settled_at\n" +
		"a,2025-03-01T00:00:00Z,2025-03-01T00:00:01Z\n" +
		"b,2025-03-01T00:00:10.030Z,2025-03-01T00:00:10Z\n"
	tests := []struct {
		name   string
		in     string
		opt    ReadOptions
		times  []float64
		zeroed int
		lowest float64
		drops  map[string]int
		err    string
	}{
		{"error", dur, ReadOptions{Column: "t"}, nil, 0, 0, nil, `dur: row 3, column "t": negative duration: "-0.02"`},
		{"drop-invalid", dur, ReadOptions{Column: "t", DropInvalid: true}, []float64{1, 2}, 0, 0, map[string]int{"negative": 2}, ""},
		{"drop", dur, ReadOptions{Column: "t", Negative: NegativeDrop}, []float64{1, 2}, 0, 0, map[string]int{"negative": 2}, ""},
		{"zero", dur, ReadOptions{Column: "t", Negative: NegativeZero}, []float64{1, 0, 2, 0}, 2, -0.5, map[string]int{}, ""},
		{"zero in ms", strings.ReplaceAll(dur, "t\n", "t_ms\n"), ReadOptions{Column: "t_ms", Negative: NegativeZero}, []float64{0.001, 0, 0.002, 0}, 2, -0.0005, map[string]int{}, ""},
		{"timestamps, error", ts, ReadOptions{Start: "created_at", End: "settled_at"}, nil, 0, 0, nil,
			`dur: row 3, column "settled_at": end before start: start 2025-03-01T00:00:10.03Z, end 2025-03-01T00:00:10Z`},
		{"timestamps, drop", ts, ReadOptions{Start: "created_at", End: "settled_at", Negative: NegativeDrop}, []float64{1}, 0, 0, map[string]int{"end before start": 1}, ""},
		{"timestamps, zero", ts, ReadOptions{Start: "created_at", End: "settled_at", Negative: NegativeZero}, []float64{1, 0}, 1, -0.03, map[string]int{}, ""},
	}
	for _, tt := range tests {
		s, rep, err := ReadCSV(strings.NewReader(tt.in), "dur", tt.opt)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || !(errors.Is(err, ErrNegative) || errors.Is(err, ErrEndBeforeStart)) {
				t.Errorf("%s: error %v, want %s", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(s.Times, tt.times) || rep.Zeroed != tt.zeroed || rep.Lowest != tt.lowest || !mapsEqual(rep.Dropped, tt.drops) {
			t.Errorf("%s: Times %v, zeroed %d (lowest %v), dropped %v; want %v, %d (%v), %v", tt.name, s.Times, rep.Zeroed, rep.Lowest, rep.Dropped, tt.times, tt.zeroed, tt.lowest, tt.drops)
		}
		checkCounts(t, rep)
	}
	// The count is in the report's line.
	_, rep, _ := ReadCSV(strings.NewReader(dur), "dur", ReadOptions{Column: "t", Negative: NegativeZero})
	if want := "read 4 rows: used 4 (censored 0; 2 negative set to 0, lowest -500ms), excluded 0, dropped 0"; rep.String() != want {
		t.Errorf("String() = %q, want %q", rep, want)
	}
	// More than clock skew: below −1 s, whether the rows are made 0 or
	// dropped (by --negative drop or --drop-invalid).
	const skew = "the lowest %s: more than clock skew explains; check the columns and their time zones"
	for _, c := range []struct {
		in   string
		opt  ReadOptions
		warn string
	}{
		{"t\n5\n-1.5\n", ReadOptions{Negative: NegativeZero}, "1 negative duration was set to 0 (--negative zero), " + fmt.Sprintf(skew, "-1.5s")},
		{"t\n5\n-1\n", ReadOptions{Negative: NegativeZero}, ""},
		{"t\n5\n-0.01\n-0.2\n", ReadOptions{Negative: NegativeZero}, ""}, // half the rows: skew still, on sub-second data
		{"t\n5\n-1.5\n", ReadOptions{Negative: NegativeDrop}, "1 negative duration was dropped (--negative drop), " + fmt.Sprintf(skew, "-1.5s")},
		{"t\n5\n-3\n-90\n-0.5\n", ReadOptions{Negative: NegativeDrop}, "3 negative durations were dropped (--negative drop), " + fmt.Sprintf(skew, "-90s")},
		{"t\n5\n-3\nabc\n", ReadOptions{DropInvalid: true}, "1 negative duration was dropped (--drop-invalid), " + fmt.Sprintf(skew, "-3s")},
		{"t\n5\n-1\n", ReadOptions{Negative: NegativeDrop}, ""},
		{"t\n5\n-0.01\n-0.2\n", ReadOptions{Negative: NegativeDrop}, ""},
	} {
		c.opt.Column = "t"
		_, rep, err := ReadCSV(strings.NewReader(c.in), "skew", c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(rep.Warnings, "\n"); got != c.warn {
			t.Errorf("%q, --negative %v: warnings %q, want %q", c.in, c.opt.Negative, got, c.warn)
		}
	}
	// An end 5 s before its start, dropped: warned the same way.
	_, rep, err := ReadCSV(strings.NewReader(ts+"c,2025-03-01T00:00:20Z,2025-03-01T00:00:15Z\n"), "dur", ReadOptions{Start: "created_at", End: "settled_at", Negative: NegativeDrop})
	if want := []string{"2 negative durations were dropped (--negative drop), " + fmt.Sprintf(skew, "-5s")}; err != nil || !slices.Equal(rep.Warnings, want) {
		t.Errorf("ends before starts, dropped: %q, %v; want %q", rep.Warnings, err, want)
	}
	// Binned bounds must not be negative, whatever Negative says.
	if _, _, err := ReadCSV(strings.NewReader("lower,upper,count\n-1,1,2\n"), "b", ReadOptions{Binned: true, Negative: NegativeZero}); !errors.Is(err, ErrNegative) {
		t.Errorf("negative bound: %v, want ErrNegative", err)
	}
	if _, err := ParseNegative("clamp"); err == nil {
		t.Error(`ParseNegative("clamp") = nil error`)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestIssue15Epoch: epoch numbers in s, ms, µs and ns give the same
// instants exactly; a unit that makes them implausible warns or, without
// --epoch, the error names the unit that fits.
func TestIssue15Epoch(t *testing.T) {
	// 2025-03-01T00:00:04.280123456Z and 12.5 s later.
	start, end := int64(1740787204280123456), int64(1740787216780123456)
	for _, u := range []Unit{Second, Millisecond, Microsecond, Nanosecond} {
		f := func(ns int64) string { // the number in unit u, as a decimal
			per := int64(u)
			s := fmt.Sprint(ns / per)
			if r := ns % per; r != 0 {
				digits := len(fmt.Sprint(per)) - 1
				s += strings.TrimRight(fmt.Sprintf(".%0*d", digits, r), "0")
			}
			return s
		}
		in := fmt.Sprintf("a,b\n%s,%s\n", f(start), f(end))
		s, rep, err := ReadCSV(strings.NewReader(in), "e", ReadOptions{Start: "a", End: "b", Epoch: u})
		if err != nil || !slices.Equal(s.Times, []float64{12.5}) || len(rep.Warnings) != 0 {
			t.Errorf("epoch %v (%q): %v, %v, %q; want 12.5 s", u, in, s, err, rep.Warnings)
		}
		for _, x := range []int64{start, end} {
			got, err := parseEpoch([]byte(f(x)), int64(u))
			if err != nil || got != x {
				t.Errorf("parseEpoch(%s, %v) = %d, %v; want %d", f(x), u, got, err, x)
			}
			tm, err := ParseTime(f(x), u)
			if err != nil || tm.UnixNano() != x {
				t.Errorf("ParseTime(%s, %v) = %v, %v", f(x), u, tm, err)
			}
		}
	}
	// ms read as µs: 1970; the warning names ms.
	_, rep, err := ReadCSV(strings.NewReader("a,b\n1740787204280,1740787204380\n"), "e", ReadOptions{Start: "a", End: "b", Epoch: Microsecond})
	want := "the first start timestamp, 1740787204280 read as epoch µs, is 1970-01-21: is it in ms? --epoch ms"
	if err != nil || len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Errorf("ms as µs: %q, %v; want %q", rep.Warnings, err, want)
	}
	// Without --epoch, the error says which unit fits.
	_, _, err = ReadCSV(strings.NewReader("a,b\n1740787204280,1740787204380\n"), "e", ReadOptions{Start: "a", End: "b"})
	if want := `e: row 2, column "a": bad timestamp: want RFC 3339 like 2006-01-02T15:04:05Z, found "1740787204280" (as epoch ms it is 2025-03-01: set --epoch ms)`; err == nil || err.Error() != want {
		t.Errorf("no epoch: %v, want %s", err, want)
	}
	// ms read as s overflows: the error says so and which unit fits.
	_, _, err = ReadCSV(strings.NewReader("a,b\n1740787204280,1740787204380\n"), "e", ReadOptions{Start: "a", End: "b", Epoch: Second})
	if want := `e: row 2, column "a": bad timestamp: want epoch seconds (--epoch s applies to --start and --end alike) or RFC 3339 like 2006-01-02T15:04:05Z, found "1740787204280" (as epoch ms it is 2025-03-01: set --epoch ms)`; err == nil || err.Error() != want {
		t.Errorf("ms as s: %v, want %s", err, want)
	}
	// Parquet integer epochs in ns stay exact (a float64 would round to
	// 256 ns).
	pq := filepath.Join(t.TempDir(), "e.parquet")
	writeParquet(t, pq, 2, []string{"a", "b"}, map[string]any{"a": []int64{start}, "b": []int64{start + 1}})
	s, _, err := Read([]string{pq}, ReadOptions{Start: "a", End: "b", Epoch: Nanosecond})
	if err != nil || !slices.Equal(s.Times, []float64{1e-9}) {
		t.Errorf("parquet ns epochs: %v, %v; want [1e-09]", s, err)
	}
}

// TestBlankLinesCounted: blank lines are skipped, not rows, and counted
// in the report, on the unquoted and the quoted paths, and at every
// chunking.
func TestBlankLinesCounted(t *testing.T) {
	for _, c := range []struct{ name, in string }{
		{"plain", "t\n1\n\n2\r\n\r\n3\n\n"},
		{"quoted", "t\n\"1\"\n\n2\r\n\r\n3\n\n"},
	} {
		for _, chunk := range []int{1 << 21, 3} {
			chunkSize = chunk
			s, rep, err := ReadCSV(strings.NewReader(c.in), "b.csv", ReadOptions{Column: "t"})
			chunkSize = 1 << 21
			if err != nil {
				t.Fatal(err)
			}
			if rep.Read != 3 || s.Len() != 3 || rep.BlankLines != 3 || !strings.HasSuffix(rep.String(), "; skipped 3 blank lines") {
				t.Errorf("%s, chunk %d: %d rows, report %q (blank %d); want 3 rows, 3 blank lines", c.name, chunk, s.Len(), rep.String(), rep.BlankLines)
			}
		}
	}
}

// TestParquetNamedTextFile: a CSV file named .parquet says so and what to
// do, instead of failing on Parquet's magic bytes; binary junk so named
// still fails as a damaged Parquet file.
func TestParquetNamedTextFile(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "x.parquet")
	if err := os.WriteFile(txt, []byte("id,settle_s\na,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Read([]string{txt}, ReadOptions{Column: "settle_s"})
	if err == nil || !strings.Contains(err.Error(), `x.parquet is named as Parquet but holds text ("id,settle_s\na,1\n"): if it is CSV, name it .csv`) {
		t.Errorf("text named .parquet: %v", err)
	}
	bin := filepath.Join(dir, "y.parquet")
	if err := os.WriteFile(bin, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8}, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read([]string{bin}, ReadOptions{Column: "settle_s"}); err == nil || strings.Contains(err.Error(), "holds text") {
		t.Errorf("binary named .parquet: %v", err)
	}
}
