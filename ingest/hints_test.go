package ingest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDelimiterHint: a header that the delimiter in use does not split,
// but another common separator does, names the --delimiter that reads it,
// whether the header is quoted (a quoting error) or not (a missing
// column); a header the delimiter splits, or one without any separator,
// gets no hint.
func TestDelimiterHint(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		delim    rune
		sentinel error
		want     string
	}{
		{"quoted semicolons", "\"id\";\"settle_s\"\n\"a\";\"1.5\"\n", 0, ErrQuote,
			`x.csv: row 1: bad quoting: ';' after a closing quote, want ',' or a line break (the header is separated by ';', not ',': set --delimiter ';')`},
		{"semicolons", "id;settle_s\na;1.5\n", 0, ErrMissingColumn,
			`x.csv: row 1, column "settle_s": column not found; the header has id;settle_s (the header is separated by ';', not ',': set --delimiter ';')`},
		{"tabs", "id\tsettle_s\na\t1.5\n", 0, ErrMissingColumn,
			"x.csv: row 1, column \"settle_s\": column not found; the header has id\tsettle_s (the header is separated by tabs, not ',': set --delimiter tab)"},
		{"pipes", "id|settle_s\na|1.5\n", 0, ErrMissingColumn,
			`x.csv: row 1, column "settle_s": column not found; the header has id|settle_s (the header is separated by '|', not ',': set --delimiter '|')`},
		// The most frequent separator wins: a ';' file whose names hold a
		// '|' once.
		{"most frequent", "a|b;id;settle_s\n1;a;1.5\n", 0, ErrMissingColumn,
			`x.csv: row 1, column "settle_s": column not found; the header has a|b;id;settle_s (the header is separated by ';', not ',': set --delimiter ';')`},
		// A ';' inside quotes separates nothing.
		{"quoted semicolon in a name", "\"id;x\"\n1\n", 0, ErrMissingColumn,
			`x.csv: row 1, column "settle_s": column not found; the header has id;x`},
		{"comma file read with ';'", "id,settle_s\na,1.5\n", ';', ErrMissingColumn,
			`x.csv: row 1, column "settle_s": column not found; the header has id,settle_s (the header is separated by ',', not ';': set --delimiter ',')`},
		{"split by the delimiter", "id,wait;s\na,1.5\n", 0, ErrMissingColumn,
			`x.csv: row 1, column "settle_s": column not found; the header has id, wait;s`},
		{"one column", "wait\n1.5\n", 0, ErrMissingColumn,
			`x.csv: row 1, column "settle_s": column not found; the header has wait`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadCSV(strings.NewReader(tt.in), "x.csv", ReadOptions{Column: "settle_s", Delimiter: tt.delim})
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("ReadCSV(%q) error = %v, want %v", tt.in, err, tt.sentinel)
			}
			if err.Error() != tt.want {
				t.Errorf("ReadCSV(%q) error\n got %s\nwant %s", tt.in, err, tt.want)
			}
		})
	}
}

// TestDecimalCommaHint: a value that fails to parse and reads as a number
// with a decimal comma says how to write it; with three digits after the
// comma it may be a thousands separator, and both readings are given.
func TestDecimalCommaHint(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1,5", `not a number or duration: "1,5": a decimal comma? write decimal points, as in 1.5`},
		{"-0,25", `not a number or duration: "-0,25": a decimal comma? write decimal points, as in -0.25`},
		{"1,234", `not a number or duration: "1,234": a decimal comma or a thousands separator? write 1.234 or 1234`},
		{"1,234,567", `not a number or duration: "1,234,567"`},
		{",5", `not a number or duration: ",5"`},
		{"5,", `not a number or duration: "5,"`},
		{"1,5s", `not a number or duration: "1,5s"`},
		{"+-1,5", `not a number or duration: "+-1,5"`},
	}
	for _, tt := range tests {
		_, err := ParseSeconds(tt.in, 1)
		if !errors.Is(err, ErrNotNumber) || err.Error() != tt.want {
			t.Errorf("ParseSeconds(%q) error = %v, want %s", tt.in, err, tt.want)
		}
	}
	// In a file: the ';' file a European spreadsheet writes.
	_, _, err := ReadCSV(strings.NewReader("id;settle_s\na;\"1,5\"\n"), "x.csv", ReadOptions{Column: "settle_s", Delimiter: ';'})
	if want := `x.csv: row 2, column "settle_s": not a number or duration: "1,5": a decimal comma? write decimal points, as in 1.5`; err == nil || err.Error() != want {
		t.Errorf("decimal comma in a ';' file: %v\nwant %s", err, want)
	}
}

// TestEpochAppliesToBoth: --epoch is about numbers, so a column of RFC
// 3339 text beside one of epoch numbers reads as it says, either way
// round; a value neither reads as says that --epoch applies to both
// columns; and epoch columns in two units, which one --epoch cannot read,
// fail naming the column and the unit it fits, whatever --negative says.
func TestEpochAppliesToBoth(t *testing.T) {
	// 2025-12-02T06:00:16Z is 1764655216 s; the settles are 4 s and 40 s
	// later.
	for _, in := range []string{
		"id,created,finished\na,2025-12-02T06:00:16+00:00,1764655220\nb,2025-12-02T06:00:16Z,1764655256\n",
		"id,created,finished\na,1764655216,2025-12-02T06:00:20Z\nb,1764655216,2025-12-02 06:00:56\n",
	} {
		s, _, err := ReadCSV(strings.NewReader(in), "x.csv", ReadOptions{Start: "created", End: "finished", Epoch: Second})
		if err != nil || len(s.Times) != 2 || s.Times[0] != 4 || s.Times[1] != 40 {
			t.Errorf("ReadCSV(%q, --epoch s) = %v, %v; want [4 40]", in, s, err)
		}
	}
	_, _, err := ReadCSV(strings.NewReader("a,b\nyesterday,1764655220\n"), "x.csv", ReadOptions{Start: "a", End: "b", Epoch: Second})
	if want := `x.csv: row 2, column "a": bad timestamp: want epoch seconds (--epoch s applies to --start and --end alike) or RFC 3339 like 2006-01-02T15:04:05Z, found "yesterday"`; err == nil || err.Error() != want {
		t.Errorf("neither: %v\nwant %s", err, want)
	}
	// Start in ms, end in s, read as ms: the end is 1970-01-21.
	for _, neg := range []Negative{NegativeError, NegativeDrop, NegativeZero} {
		_, _, err := ReadCSV(strings.NewReader("a,b\n1764655216000,1764655220\n"), "x.csv", ReadOptions{Start: "a", End: "b", Epoch: Millisecond, Negative: neg})
		want := `x.csv: row 2, column "b": bad timestamp: the end 1970-01-21T10:10:55.22Z is before the start 2025-12-02T06:00:16Z, and column "b" read as epoch ms is in 1970 (it fits epoch s): --epoch applies to --start and --end alike, so the two columns must be in one unit; convert one`
		if !errors.Is(err, ErrBadTimestamp) || err.Error() != want {
			t.Errorf("units mixed, --negative %v: %v\nwant %s", neg, err, want)
		}
	}
}

// TestObservedBeforeStart: a pending row that starts after --observed-at
// is a wrong observation time, not clock skew: it fails saying so and
// what to set, with every --negative (drop would lose the pending rows,
// zero would give them age 0); --drop-invalid counts it.
func TestObservedBeforeStart(t *testing.T) {
	in := "id,created,finished,status\n" +
		"a,2025-03-01T00:00:00Z,2025-03-01T00:00:05Z,done\n" +
		"b,2025-03-01T00:10:00Z,,pending\n" +
		"c,2025-03-01T00:01:00Z,2025-03-01T00:01:07Z,done\n"
	opt := ReadOptions{Start: "created", End: "finished", Status: "status", Pending: []string{"pending"},
		ObservedAt: time.Date(2025, 3, 1, 0, 5, 0, 0, time.UTC)}
	want := `x.csv: row 3, column "finished": observation time before start: --observed-at 2025-03-01T00:05:00Z is before this pending row's start, 2025-03-01T00:10:00Z: a pending row's age runs from its start to the observation time; set --observed-at to when the log was taken, no earlier than the last start`
	for _, neg := range []Negative{NegativeError, NegativeDrop, NegativeZero} {
		o := opt
		o.Negative = neg
		_, _, err := ReadCSV(strings.NewReader(in), "x.csv", o)
		if !errors.Is(err, ErrObservedBeforeStart) || errors.Is(err, ErrEndBeforeStart) || err.Error() != want {
			t.Errorf("--negative %v: %v\nwant %s", neg, err, want)
		}
	}
	opt.DropInvalid = true
	_, rep, err := ReadCSV(strings.NewReader(in), "x.csv", opt)
	if err != nil || rep.Used != 2 || rep.Dropped["end before start"] != 1 {
		t.Errorf("--drop-invalid: %+v, %v; want 2 used, 1 dropped", rep, err)
	}
}

// TestZonelessTimestampsWarned: timestamps without a zone are still read
// as UTC, but counted per column and warned about once per column, with
// the first of them; every zone form (Z, ±hh, ±hhmm, ±hh:mm, " UTC")
// counts as a zone. Small blocks and several workers check the counts
// add up across batches.
func TestZonelessTimestampsWarned(t *testing.T) {
	in := "id,created,finished\n" +
		"a,2026-11-01T08:00:00,2026-11-01T08:00:05Z\n" +
		"b,2026-11-01 08:01:00,2026-11-01T08:01:07+00\n" +
		"c,2026-11-01T08:02:00.5,2026-11-01T08:02:09+0000\n" +
		"d,2026-11-01T08:03:00Z,2026-11-01 08:03:01 UTC\n" +
		"e,2026-11-01T09:04:00+01:00,2026-11-01T08:04:02\n"
	want := []string{
		`column "created": 3 timestamps without a time zone (the first "2026-11-01T08:00:00") were read as UTC; for local times, write the offset (as in 2026-11-01T08:00:00+01:00) or convert to UTC`,
		`column "finished": 1 timestamp without a time zone (the first "2026-11-01T08:04:02") was read as UTC; for local times, write the offset (as in 2026-11-01T08:00:00+01:00) or convert to UTC`,
	}
	defer func(n int) { chunkSize = n }(chunkSize)
	for _, size := range []int{1 << 21, 64} {
		chunkSize = size
		for _, epoch := range []Unit{0, Second} {
			s, rep, err := ReadCSV(strings.NewReader(in), "x.csv", ReadOptions{Start: "created", End: "finished", Epoch: epoch, Workers: 3})
			if err != nil {
				t.Fatal(err)
			}
			// By hand: 5 s, 7 s, 8.5 s, 1 s, 2 s (09:04+01:00 is 08:04Z).
			if wantT := []float64{5, 7, 8.5, 1, 2}; !slices.Equal(s.Times, wantT) {
				t.Errorf("chunk %d, epoch %v: Times = %v, want %v", size, epoch, s.Times, wantT)
			}
			if !slices.Equal(rep.Warnings, want) {
				t.Errorf("chunk %d, epoch %v: warnings\n%q\nwant\n%q", size, epoch, rep.Warnings, want)
			}
		}
	}
}

// TestUnitHintNamedFirst: when the unit is set against the column's name
// and the median is implausible, the unit the name says is suggested
// first, and said to be the name's; amounts are plain decimals.
func TestUnitHintNamedFirst(t *testing.T) {
	// Settle times of 0.25 s to 0.4 s in ns: the median 310 ms is
	// 3.1e8 ns, which read as s is 9.8 years and read as ms 3.6 days.
	in := "id,t_ns\na,250000000\nb,310000000\nc,400000000\n"
	for _, tt := range []struct {
		unit Unit
		want string
	}{
		{Second, "the median settle time is about 9.8 years, implausibly long (values read as s, as --unit says): is the unit wrong? --unit ns (as the column name says) reads it as 310ms, --unit us reads it as 5.2min"},
		// Without the name first, µs (the nearer unit) would come first.
		{Millisecond, "the median settle time is about 3.6 days, implausibly long (values read as ms, as --unit says): is the unit wrong? --unit ns (as the column name says) reads it as 310ms, --unit us reads it as 5.2min"},
	} {
		_, rep, err := ReadCSV(strings.NewReader(in), "ns.csv", ReadOptions{Column: "t_ns", Unit: tt.unit})
		if err != nil {
			t.Fatal(err)
		}
		// The first warning says the --unit contradicts the name.
		if len(rep.Warnings) != 2 || rep.Warnings[1] != tt.want {
			t.Errorf("--unit %v: warnings %q\nwant [_, %q]", tt.unit, rep.Warnings, tt.want)
		}
	}
}

// TestFmtDigits: durations to so many significant digits, never in
// exponent form.
func TestFmtDigits(t *testing.T) {
	for _, tt := range []struct {
		s      float64
		digits int
		want   string
	}{
		{0.3103, 2, "310ms"},
		{0.3103, 3, "310ms"},
		{0.31049, 4, "310.5ms"},
		{0.0523, 2, "52ms"},
		{9.96, 2, "10s"},
		{99.6, 2, "100s"},
		{1.25, 3, "1.25s"},
		{5, 2, "5s"},
		{312, 2, "5.2min"},
		{999.4e-6, 2, "1000µs"},
		{5e-10, 2, "0.5ns"},
		{4975.3 * 365.25 * 86400, 3, "4975 years"},
		{38.2 * 365.25 * 86400, 2, "38 years"},
	} {
		if got := fmtDigits(tt.s, tt.digits); got != tt.want {
			t.Errorf("fmtDigits(%g, %d) = %q, want %q", tt.s, tt.digits, got, tt.want)
		}
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

// TestZoneless: which instants ParseTime reads as UTC for want of a zone.
func TestZoneless(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"2026-11-01T08:00:00", true},
		{" 2026-11-01 08:00:00.25 ", true},
		{"2026-11-01T08:00:00Z", false},
		{"2026-11-01T08:00:00+01:00", false},
		{"2026-11-01 08:00:00 UTC", false},
		{"2026-11-01T08:00:00-0500", false},
		{"1764655216", false}, // an epoch number is UTC by definition
		{"yesterday", false},
	} {
		if got := Zoneless(tt.in); got != tt.want {
			t.Errorf("Zoneless(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
