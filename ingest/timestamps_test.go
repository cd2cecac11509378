package ingest

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEpochUnits: epoch numbers in s, ms, µs and ns give the same
// instants exactly; a unit that makes them implausible warns or, without
// --epoch, the error names the unit that fits.
func TestEpochUnits(t *testing.T) {
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

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339 as time.Parse reads it
	}{
		{"2025-03-01T00:00:04.280Z", "2025-03-01T00:00:04.28Z"},
		{"2025-03-01T00:00:04Z", "2025-03-01T00:00:04Z"},
		{"2025-03-01 00:00:04", "2025-03-01T00:00:04Z"},
		{"2025-03-01T00:00:04.123456789+05:30", "2025-03-01T00:00:04.123456789+05:30"},
		{"2024-02-29T23:59:59-0800", "2024-02-29T23:59:59-08:00"},
		{"1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59.5Z"},
		{"2000-03-01T00:00:00+01", "2000-03-01T00:00:00+01:00"},
		{"2025-03-01 00:00:04 UTC", "2025-03-01T00:00:04Z"},
		// Digits past nanoseconds are dropped (found by FuzzParseTimestamp).
		{"2000-01-01T00:00:00,1234567891234Z", "2000-01-01T00:00:00.123456789Z"},
	}
	for _, tt := range tests {
		got, err := parseTimestamp([]byte(tt.in))
		ref, _ := time.Parse(time.RFC3339Nano, tt.want)
		if err != nil || got != ref.UnixNano() {
			t.Errorf("parseTimestamp(%q) = %d, %v, want %d", tt.in, got, err, ref.UnixNano())
		}
	}
	for _, bad := range []string{"", "2025-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-03-01T24:00:00Z", "2025-03-01T00:00:60Z", "2025-03-01", "2025-03-01T00:00:00.Z", "2025-03-01T00:00:00+5", "1700000000", "2025-03-01T00:00:00+00:60", "2025-03-01T0:00:00Z"} {
		if _, err := parseTimestamp([]byte(bad)); !errors.Is(err, ErrBadTimestamp) {
			t.Errorf("parseTimestamp(%q) error = %v, want ErrBadTimestamp", bad, err)
		}
	}
	// Epoch numbers: 1740787204 s is 2025-03-01T00:00:04Z.
	for _, tt := range []struct {
		in   string
		unit Unit
	}{{"1740787204", Second}, {"1740787204000", Millisecond}, {"1740787204.0", Second}} {
		got, err := parseEpoch([]byte(tt.in), int64(tt.unit))
		if want := int64(1740787204e9); err != nil || got != want {
			t.Errorf("parseEpoch(%q, %v) = %d, %v, want %d", tt.in, tt.unit, got, err, want)
		}
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2025, 3, 2, 1, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in    string
		epoch Unit
	}{
		{"2025-03-02T01:00:00Z", 0}, {"2025-03-02 01:00:00", 0}, {"2025-03-02T02:00:00+01:00", 0},
		{"1740877200", Second}, {"1740877200000", Millisecond}, {" 2025-03-02T01:00:00Z ", Second},
	} {
		got, err := ParseTime(c.in, c.epoch)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q, %v) = %v, %v; want %v", c.in, c.epoch, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "1740877200", ""} {
		if _, err := ParseTime(bad, 0); !errors.Is(err, ErrBadTimestamp) {
			t.Errorf("ParseTime(%q) error = %v, want ErrBadTimestamp", bad, err)
		}
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
