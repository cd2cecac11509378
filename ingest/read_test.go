package ingest

import (
	"bytes"
	stdcmp "cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const ingestDir = "testdata"

func ingestPath(name string) string { return filepath.Join(ingestDir, name) }

// observed is the end of observation used with payments_small.csv.
var observed = time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC)

func TestReadInputForms(t *testing.T) {
	// Every file holds the items 1.5 s, 2 s and 0.25 s (written by hand in
	// testdata).
	want := []float64{1.5, 2, 0.25}
	tests := []struct {
		name string
		path string
		opt  ReadOptions
	}{
		{"plain", "basic.csv", ReadOptions{Column: "settle_s"}},
		{"gzip", "basic.csv.gz", ReadOptions{Column: "settle_s"}},
		{"zstd (written by the zstd command, v1.5.4, -19)", "basic.csv.zst", ReadOptions{Column: "settle_s"}},
		{"BOM, CRLF and a blank line", "bom_crlf.csv", ReadOptions{Column: "settle_s"}},
		{"quotes, embedded line break, delimiter", "quoted_semicolon.csv", ReadOptions{Column: "settle_s", Delimiter: ';'}},
		{"glob", "basic.csv*", ReadOptions{Column: "settle_s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rep, err := Read([]string{ingestPath(tt.path)}, tt.opt)
			if err != nil {
				t.Fatalf("Read(%s) error: %v", tt.path, err)
			}
			got := s.Times
			if tt.path == "basic.csv*" {
				want := slices.Concat(want, want, want) // basic.csv, basic.csv.gz, basic.csv.zst
				if !slices.Equal(got, want) {
					t.Errorf("Read(%s).Times = %v, want %v", tt.path, got, want)
				}
				return
			}
			if !slices.Equal(got, want) {
				t.Errorf("Read(%s).Times = %v, want %v", tt.path, got, want)
			}
			if rep.Read != 3 || rep.Used != 3 {
				t.Errorf("Read(%s) report = %v, want 3 read, 3 used", tt.path, rep)
			}
		})
	}
}

func TestReadStatusCensoringSegments(t *testing.T) {
	path := ingestPath("payments_small.csv")
	base := ReadOptions{Status: "status", Pending: []string{"pending"}, ExcludeStatus: []string{"cancelled"}, Segment: "method"}
	span := base
	span.Start, span.End, span.ObservedAt = "created_at", "settled_at", observed
	// By hand from payments_small.csv: p1 3.5 s; p2 failed at 60.5 s (a
	// settle); p3 pending since 2025-03-01 00:00:20 UTC, observed until
	// 2025-03-02 00:00:00 → 86380 s censored; p4 01:00:00+01:00 is
	// 00:00:00Z → 0.4 s; p5 cancelled, excluded; p6 pending with an end
	// 60 s after its start → 60 s censored.
	s, rep, err := Read([]string{path}, span)
	if err != nil {
		t.Fatal(err)
	}
	wantTimes := []float64{3.5, 60.5, 86380, 0.4, 60}
	wantCens := []bool{false, false, true, false, true}
	if diff := cmp.Diff(wantTimes, s.Times, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("Times (-want +got):\n%s", diff)
	}
	if !slices.Equal(s.Censored, wantCens) {
		t.Errorf("Censored = %v, want %v", s.Censored, wantCens)
	}
	if segs, want := segmentsOf(s), []string{"card", "momo", "momo", "wallet", "bank"}; !slices.Equal(segs, want) {
		t.Errorf("segments = %v, want %v", segs, want)
	}
	// p3's start has no zone: read as UTC, warned.
	wantRep := Report{Read: 6, Used: 5, Censored: 2, Excluded: 1, Files: 1, Dropped: map[string]int{},
		Warnings: []string{`column "created_at": 1 timestamp without a time zone (the first "2025-03-01 00:00:20") was read as UTC; for local times, write the offset (as in 2026-11-01T08:00:00+01:00) or convert to UTC`}}
	if diff := cmp.Diff(wantRep, *rep); diff != "" {
		t.Errorf("Report (-want +got):\n%s", diff)
	}

	// The duration column: p3's age is empty, so it is dropped when asked.
	dur := base
	dur.Column, dur.DropInvalid = "settle_s", true
	s, rep, err = Read([]string{path}, dur)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{3.5, 60.5, 0.4, 60}; !slices.Equal(s.Times, want) {
		t.Errorf("duration Times = %v, want %v", s.Times, want)
	}
	if want := "read 6 rows: used 4 (censored 1), excluded 1, dropped 1 (empty 1)"; rep.String() != want {
		t.Errorf("duration report = %q, want %q", rep, want)
	}

	// Without ObservedAt, p3 cannot get an age.
	span.ObservedAt = time.Time{}
	_, _, err = Read([]string{path}, span)
	if want := `testdata/payments_small.csv: row 4, column "settled_at": pending row without end time or observation time: its age runs to when the log was taken: give that instant (--observed-at, in RFC 3339), or the column of ages with --start (--column)`; err == nil || err.Error() != want {
		t.Errorf("without ObservedAt: error %v, want %s", err, want)
	}
}

func TestReadHiveDirectory(t *testing.T) {
	// hive/method=card/part-0.csv holds 3; method=momo 10 and 20; _SUCCESS
	// and _tmp/ are skipped. Files are read in lexical order.
	s, rep, err := Read([]string{ingestPath("hive")}, ReadOptions{Column: "settle_s", Segment: "method"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{3, 10, 20}; !slices.Equal(s.Times, want) {
		t.Errorf("Times = %v, want %v", s.Times, want)
	}
	names, parts, _ := s.Segments(1)
	if !slices.Equal(names, []string{"card", "momo"}) || parts[1].Len() != 2 {
		t.Errorf("Segments = %v, want card (1), momo (2)", names)
	}
	if rep.Files != 2 {
		t.Errorf("Files = %d, want 2", rep.Files)
	}
}

// TestReadErrors checks the exact message of every kind of bad input.
func TestReadErrors(t *testing.T) {
	pq := writeTestParquet(t)
	trunc := filepath.Join(t.TempDir(), "truncated.parquet")
	data, _ := os.ReadFile(pq)
	os.WriteFile(trunc, data[:len(data)/2], 0o644)
	d := func(s string) string { return filepath.Join(ingestDir, s) }
	col := ReadOptions{Column: "settle_s"}
	tests := []struct {
		name     string
		paths    []string
		opt      ReadOptions
		sentinel error
		want     string
	}{
		{"missing column", []string{d("basic.csv")}, ReadOptions{Column: "wait"}, ErrMissingColumn,
			`testdata/basic.csv: row 1, column "wait": column not found; the header has id, settle_s`},
		{"duplicate column", []string{d("duplicate_column.csv")}, col, ErrDuplicateColumn,
			`testdata/duplicate_column.csv: row 1, column "settle_s": ambiguous column: fields 2 and 3 of the header both have this name`},
		{"empty file", []string{d("empty.csv")}, col, ErrNoRows,
			`testdata/empty.csv: no data rows: the file is empty`},
		{"header only", []string{d("header_only.csv")}, col, ErrNoRows,
			`testdata/header_only.csv: no data rows: the file has a header only`},
		{"ragged row", []string{d("ragged.csv")}, col, ErrFieldCount,
			`testdata/ragged.csv: row 3: wrong number of fields: want 2, found 1`},
		{"not a number", []string{d("bad_values.csv")}, col, ErrNotNumber,
			`testdata/bad_values.csv: row 3, column "settle_s": not a number or duration: "abc"`},
		{"not UTF-8", []string{d("not_utf8.csv")}, ReadOptions{Column: "settle_s", Segment: "method"}, ErrNotUTF8,
			`testdata/not_utf8.csv: row 2, column "method": invalid UTF-8: found "m\xffo"`},
		{"unclosed quote", []string{d("unclosed_quote.csv")}, col, ErrQuote,
			`testdata/unclosed_quote.csv: row 2: bad quoting: quoted field not closed`},
		{"bare quote", []string{d("bare_quote.csv")}, col, ErrQuote,
			`testdata/bare_quote.csv: row 2: bad quoting: bare " in an unquoted field`},
		{"end before start", []string{d("end_before_start.csv")}, ReadOptions{Start: "created_at", End: "settled_at"}, ErrEndBeforeStart,
			`testdata/end_before_start.csv: row 3, column "settled_at": end before start: start 2025-03-01T00:00:10Z, end 2025-03-01T00:00:05Z`},
		{"bad timestamp", []string{d("bad_timestamp.csv")}, ReadOptions{Start: "created_at", End: "settled_at"}, ErrBadTimestamp,
			`testdata/bad_timestamp.csv: row 2, column "settled_at": bad timestamp: want RFC 3339 like 2006-01-02T15:04:05Z, found "yesterday"`},
		{"glob matching nothing", []string{d("nothing*.csv")}, col, ErrNoFiles,
			`no input files: pattern "testdata/nothing*.csv" matches no file`},
		{"parquet missing column", []string{pq}, ReadOptions{Column: "wait"}, ErrMissingColumn,
			pq + `, column "wait": column not found; the file has settle_s, wait_ms, age, created_at, settled_at, status, method`},
		{"parquet wrong type", []string{pq}, ReadOptions{Column: "created_at"}, ErrWrongType,
			pq + `, column "created_at": wrong column type: want a number, duration or string, found timestamp[ms, tz=UTC]`},
		{"parquet epoch needed", []string{pq}, ReadOptions{Start: "wait_ms", End: "settled_at"}, ErrWrongType,
			pq + `, column "wait_ms": wrong column type: want a timestamp, date or string (or --epoch s|ms|us|ns for epoch numbers), found int64`},
		{"parquet negative", []string{pq}, ReadOptions{Column: "age"}, ErrNegative,
			pq + `: row group 1, row 2, column "age": negative duration: -1`},
		{"parquet truncated", []string{trunc}, col, ErrCorrupt, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Read(tt.paths, tt.opt)
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("Read(%v) error = %v, want %v", tt.paths, err, tt.sentinel)
			}
			if tt.want != "" && err.Error() != tt.want {
				t.Errorf("Read(%v) error\n got %s\nwant %s", tt.paths, err, tt.want)
			}
		})
	}
}

func TestReadBinned(t *testing.T) {
	// binned.csv: a point bin at 0 (5), [0,1) 10, [1,2) 20 of which 4
	// censored, and an open bin [2,∞) of 3, all censored.
	s, rep, err := Read([]string{ingestPath("binned.csv")}, ReadOptions{Binned: true, Segment: "method"})
	if err != nil {
		t.Fatal(err)
	}
	if s.TotalWeight() != 38 || rep.Items != 38 || rep.Censored != 7 || rep.Used != 4 {
		t.Errorf("total weight %v, report %+v; want 38 items, 7 censored, 4 bins", s.TotalWeight(), rep)
	}
	// [0,1) with count 10 becomes 10 items of weight 1 at 0.05, 0.15, …;
	// [1,2) becomes 16 events of weight 1 at 1+(j+½)/16 and 16 censored
	// items of weight 4/16 at the same places.
	var at0, events, cens float64
	for i, x := range s.Times {
		switch {
		case x == 0:
			at0 += s.Weight(i)
		case s.IsCensored(i):
			cens += s.Weight(i)
		default:
			events += s.Weight(i)
		}
	}
	if at0 != 5 || events != 10+16 || cens != 7 {
		t.Errorf("weights at 0 %v, events after 0 %v, censored %v; want 5, 26, 7", at0, events, cens)
	}
	// Items 0…4 are the point bin (5 items of weight 1 at 0: a point bin
	// repeats its value, which marks it for the atom test), items 5… are
	// [0,1).
	if got, want := s.Times[5], 0.05; math.Abs(got-want) > 1e-12 || s.Times[4] != 0 {
		t.Errorf("first item of [0,1) at %v, want %v", got, want)
	}
}

// TestBinnedMatchesRaw bins a raw sample the way docs/scale.md's queries
// do, at 10 log-spaced bins per decade (the docs give 30; 10 is the
// coarser case), and checks that the weighted
// quantiles of the binned sample are those of the raw one to within one
// bin: a bin spans a factor 10^0.1 ≈ 1.26.
func TestBinnedMatchesRaw(t *testing.T) {
	raw, _, err := Read([]string{"../fixtures/payments.csv"}, ReadOptions{Column: "settle_s"})
	if err != nil {
		t.Skip("fixtures/payments.csv:", err)
	}
	counts := map[int]int{}
	zeros := 0
	for _, x := range raw.Times {
		if x == 0 {
			zeros++
			continue
		}
		counts[int(math.Floor(10*math.Log10(x)))]++
	}
	var b strings.Builder
	b.WriteString("lower,upper,count\n")
	if zeros > 0 {
		fmt.Fprintf(&b, "0,0,%d\n", zeros)
	}
	for k, n := range counts {
		fmt.Fprintf(&b, "%v,%v,%d\n", math.Pow(10, float64(k)/10), math.Pow(10, float64(k+1)/10), n)
	}
	binned, _, err := ReadCSV(strings.NewReader(b.String()), "binned", ReadOptions{Binned: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []float64{0.05, 0.25, 0.5, 0.75, 0.9, 0.99} {
		r, q := weightedQuantile(raw, p), weightedQuantile(binned, p)
		if ratio := q / r; ratio < 1/math.Pow(10, 0.1) || ratio > math.Pow(10, 0.1) {
			t.Errorf("quantile %v: binned %v, raw %v; want within a factor 10^0.1", p, q, r)
		}
	}
}

// weightedQuantile is the smallest time whose weighted empirical CDF
// reaches p, censoring ignored.
func weightedQuantile(s *Sample, p float64) float64 {
	idx := make([]int, s.Len())
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return stdcmp.Compare(s.Times[a], s.Times[b]) })
	total, acc := s.TotalWeight(), 0.0
	for _, i := range idx {
		acc += s.Weight(i)
		if acc >= p*total {
			return s.Times[i]
		}
	}
	return math.Inf(1)
}

// fuzzObserved is the observation time of fuzzCreated's reads.
var fuzzObserved = time.Date(2025, 3, 2, 1, 0, 0, 0, time.UTC)

// fuzzCreated checks, for FuzzReadCSV, the forms with timestamps (issue
// 14): each gives one creation instant an item, the same in small blocks
// as in one, settle instants Created + Times that fit an int64, and what
// it read, written as creation instants (RFC 3339) and settle times,
// reads back the same by start and duration.
func fuzzCreated(t *testing.T, data []byte) {
	for _, o := range []ReadOptions{
		{Start: "created_at", End: "settled_at", ObservedAt: fuzzObserved},
		{Start: "created_at", Column: "settle_s", Negative: NegativeZero},
		{End: "settled_at", Column: "settle_s", ObservedAt: fuzzObserved, Negative: NegativeDrop},
		{End: "settled_at", Column: "settle_s", Status: "status", Pending: []string{"pending"}, Negative: NegativeZero, Dedupe: "settle_s"},
	} {
		o.DropInvalid = true
		s, rep, err := ReadCSV(bytes.NewReader(data), "fuzz", o)
		chunkSize = 5
		s2, _, err2 := ReadCSV(bytes.NewReader(data), "fuzz", o)
		chunkSize = 1 << 21
		if (err == nil) != (err2 == nil) || (err == nil && (!slices.Equal(s.Times, s2.Times) || !slices.Equal(s.Created, s2.Created))) {
			t.Fatalf("%+v: small blocks differ: %v vs %v", o, err, err2)
		}
		if err != nil {
			continue
		}
		if len(s.Created) != len(s.Times) || rep.Read != rep.Used+rep.Excluded+rep.DroppedTotal() {
			t.Fatalf("%+v: %d creation instants for %d items; report %v", o, len(s.Created), len(s.Times), rep)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		var out bytes.Buffer
		out.WriteString("created_at,settle_s\n")
		for i, c := range s.Created {
			if end := c + int64(math.Round(s.Times[i]*1e9)); o.Column != "" && end < c {
				t.Fatalf("%+v: item %d: created %d + %v s overflows", o, i, c, s.Times[i])
			}
			fmt.Fprintf(&out, "%s,%s\n", time.Unix(0, c).UTC().Format(time.RFC3339Nano), formatFloat(s.Times[i]))
		}
		// By start and end, Times is End − Start rounded to a float64: the
		// settle instant Start + Times may then be a few ns past 2262.
		back, brep, err := ReadCSV(&out, "fuzz-back", ReadOptions{Start: "created_at", Column: "settle_s", DropInvalid: true})
		if err != nil || (brep.DroppedTotal() > 0 && (o.Column != "" || brep.DroppedTotal() != brep.Dropped["out of range"])) {
			t.Fatalf("%+v: reading back: %v, %v", o, err, brep)
		}
		if brep.DroppedTotal() == 0 && (!slices.Equal(back.Times, s.Times) || !slices.Equal(back.Created, s.Created)) {
			t.Fatalf("%+v: round trip: %v %v, want %v %v", o, back.Times, back.Created, s.Times, s.Created)
		}
	}
}

func mustGlob(p string) []string {
	m, _ := filepath.Glob(p)
	return m
}

// TestReadTruncatedGzip: a .csv.gz cut anywhere is an error, never a
// shorter sample (io.ReadFull reports a short gzip stream and the end of a
// block alike; decoded.wrap tells them apart), with or without
// DropInvalid; and a file named .gz that is not gzip data says so.
// TestCorruptCompressed does the same for zstd.
func TestReadTruncatedGzip(t *testing.T) {
	var csvData bytes.Buffer
	csvData.WriteString("settle_s\n")
	for i := range 200000 {
		fmt.Fprintf(&csvData, "%d.%03d\n", i%100, i%1000)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(csvData.Bytes())
	w.Close()
	dir := t.TempDir()
	whole := gz.Bytes()
	for _, cut := range []int{len(whole) / 7, len(whole) / 2, len(whole) - 9, len(whole) - 1} {
		for _, drop := range []bool{false, true} {
			p := filepath.Join(dir, fmt.Sprintf("cut%d.csv.gz", cut))
			if err := os.WriteFile(p, whole[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			_, rep, err := Read([]string{p}, ReadOptions{Column: "settle_s", DropInvalid: drop})
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p+": corrupt or truncated file: gzip") {
				t.Errorf("cut at %d of %d (drop %v): err = %v (read %v), want a truncated-gzip error", cut, len(whole), drop, err, rep)
			}
		}
	}
	p := filepath.Join(dir, "plain.csv.gz")
	os.WriteFile(p, []byte("settle_s\n1\n"), 0o644)
	if _, _, err := Read([]string{p}, ReadOptions{Column: "settle_s"}); err == nil || err.Error() != p+": corrupt or truncated file: named .gz but not gzip data" {
		t.Errorf("plain text named .gz: err = %v", err)
	}
}

// TestReadMistakenInputs: Parquet on stdin (read as CSV), an empty .gz,
// and a pending row whose status is not among the pending values each say
// what went wrong.
func TestReadMistakenInputs(t *testing.T) {
	pq, err := os.ReadFile(writeTestParquet(t))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ReadCSV(bytes.NewReader(pq), "stdin", ReadOptions{Column: "settle_s"})
	if want := "stdin: this is Parquet data, not CSV: give Parquet as a file named *.parquet or *.pq (not on stdin)"; err == nil || err.Error() != want {
		t.Errorf("Parquet on stdin: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "e.csv.gz")
	os.WriteFile(empty, nil, 0o644)
	if _, _, err := Read([]string{empty}, ReadOptions{Column: "settle_s"}); !errors.Is(err, ErrNoRows) {
		t.Errorf("empty .csv.gz: %v, want ErrNoRows", err)
	}
	in := "created_at,settled_at,status\n2025-03-01T00:00:00Z,2025-03-01T00:00:05Z,succeeded\n2025-03-01T00:00:00Z,,pending\n"
	_, _, err = ReadCSV(strings.NewReader(in), "x.csv", ReadOptions{Start: "created_at", End: "settled_at", Status: "status", Pending: []string{"pendng"}})
	if want := `x.csv: row 3, column "settled_at": empty value, and status "pending" is not a pending one (pendng)`; err == nil || err.Error() != want {
		t.Errorf("misspelt pending: %v\nwant %s", err, want)
	}
}

// TestReadInputMistakes: a file named twice is read once, a missing file
// says so, and a "status" column left unused is pointed out.
func TestReadInputMistakes(t *testing.T) {
	p := ingestPath("basic.csv")
	_, rep, err := Read([]string{p, p, filepath.Join(ingestDir, "basic*.csv")}, ReadOptions{Column: "settle_s"})
	if err != nil || rep.Files != 1 {
		t.Errorf("basic.csv named three times: %d files read, %v; want 1", rep.Files, err)
	}
	missing := filepath.Join(ingestDir, "missing.csv")
	if _, _, err := Read([]string{missing}, ReadOptions{Column: "settle_s"}); !errors.Is(err, ErrNoFiles) || err.Error() != "no input files: "+missing+" does not exist" {
		t.Errorf("missing file: %v", err)
	}
	_, rep, err = Read([]string{ingestPath("payments_small.csv")}, ReadOptions{Column: "settle_s", DropInvalid: true})
	want := `the input has a "status" column whose values include pending (values seen: cancelled, failed, pending, succeeded), but no status column is set (--status): every row counts as settled, those included; set --status status --pending pending`
	if err != nil || !slices.Contains(rep.Warnings, want) {
		t.Errorf("unused status column: warnings %q, %v", rep.Warnings, err)
	}
}

// TestReportSingular: a count of one reads "1 row", not "1 rows".
func TestReportSingular(t *testing.T) {
	for _, tt := range []struct {
		rep  Report
		want string
	}{
		{Report{Read: 1, Used: 1}, "read 1 row: used 1 (censored 0), excluded 0, dropped 0"},
		{Report{Read: 2, Used: 2}, "read 2 rows: used 2 (censored 0), excluded 0, dropped 0"},
		{Report{Read: 1, Used: 1, Items: 5}, "read 1 row (bins): used 1, holding 5 items (censored 0), excluded 0, dropped 0"},
	} {
		if got := tt.rep.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.rep, got, tt.want)
		}
	}
}
