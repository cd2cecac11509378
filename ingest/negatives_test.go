package ingest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestNegativePolicy: negative durations and ends before starts fail,
// are dropped or are made 0, and are counted either way.
func TestNegativePolicy(t *testing.T) {
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
