package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestUnitInName(t *testing.T) {
	tests := []struct {
		name string
		want Unit
	}{
		// Brackets, as pandas users name columns.
		{"Latency(ms)", Millisecond},
		{"latency [ms]", Millisecond},
		{"wait (in seconds)", Second},
		{"time(h)", Hour},
		{"Latency (µs)", Microsecond},
		{"Latency (μs)", Microsecond}, // Greek mu
		{"latency (p99) ms", Millisecond},
		// Last word, split at _ - . / : and spaces.
		{"settle_ms", Millisecond},
		{"settle_s", Second},
		{"duration_us", Microsecond},
		{"t_ns", Nanosecond},
		{"run_time_s", Second},
		{"age-hours", Hour},
		{"latency.ms", Millisecond},
		{"latency/ms", Millisecond},
		{"time taken minutes", Minute},
		{"elapsed_days", Day},
		{"duration_min", Minute},
		{"wait_sec", Second},
		{"wait_secs", Second},
		{"wait_millis", Millisecond},
		{"wait_micros", Microsecond},
		{"wait_nanos", Nanosecond},
		{"wait_minutes", Minute},
		{"wait_hours", Hour},
		{"wait_hrs", Hour},
		{"ms", Millisecond},
		{"seconds", Second},
		// Prometheus and OpenTelemetry metric names.
		{"http_request_duration_seconds", Second},
		{"http_request_duration_seconds_sum", Second},
		{"http_server_duration_milliseconds", Millisecond},
		// camelCase.
		{"elapsedMillis", Millisecond},
		{"latencyMs", Millisecond},
		{"LatencyMS", Millisecond},
		{"durationSeconds", Second},
		{"HTTPLatencyUs", Microsecond},
		{"timeNs", Nanosecond},
		{"p99Ms", Millisecond},
		// A statistic after the unit keeps it; "min" after a unit is one.
		{"latency_ms_p99", Millisecond},
		{"latency_ms_max", Millisecond},
		{"latency_ms_min", Millisecond},
		{"duration_seconds_total", Second},
		{"settle_ms_mean", Millisecond},
		// False positives: no unit as a whole word.
		{"status", 0},
		{"ms_count", 0},
		{"http_request_duration_seconds_count", 0},
		{"items", 0},
		{"latency", 0},
		{"latency_p99", 0},
		{"duration", 0},
		{"timestamps", 0},
		{"msg", 0},
		{"hms", 0},
		{"minutes_since_start", 0},
		{"created_at", 0},
		{"Latency(p99)", 0},
		{"polls_per_second", 0},
		{"requests per s", 0},
		{"latencyMsec2", 0},
		{"", 0},
		// One-letter units need a word before them or brackets.
		{"m", 0},
		{"s", 0},
		{"h", 0},
		{"(s)", Second},
		{"x_m", Minute},
	}
	for _, tt := range tests {
		if got := UnitInName(tt.name); got != tt.want {
			t.Errorf("UnitInName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseUnit(t *testing.T) {
	tests := []struct {
		in   string
		want Unit
	}{
		{"", 0}, {"ns", Nanosecond}, {"us", Microsecond}, {"µs", Microsecond}, {"μs", Microsecond},
		{"ms", Millisecond}, {"s", Second}, {"m", Minute}, {"min", Minute}, {"h", Hour}, {"d", Day},
	}
	for _, tt := range tests {
		got, err := ParseUnit(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseUnit(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
		if tt.want == 0 {
			continue
		}
		// The symbol parses back to the unit.
		var back Unit
		text, _ := tt.want.MarshalText()
		if err := back.UnmarshalText(text); err != nil || back != tt.want {
			t.Errorf("Unit %v: %q parses to %v, %v", tt.want, text, back, err)
		}
	}
	for _, bad := range []string{"sec", "MS", "y", "1s"} {
		if _, err := ParseUnit(bad); err == nil {
			t.Errorf("ParseUnit(%q) = nil error, want one", bad)
		}
	}
}

// TestSameSecondsInEveryUnit: a value written in s, ms, µs or ns
// reads as the very same float64, the one strconv gives for the decimal
// in seconds: sub-second units divide (1234 ms is 1234/1000, rounded
// once), they do not multiply by 0.001 (rounded twice).
func TestSameSecondsInEveryUnit(t *testing.T) {
	// Each value in seconds, as text; the others are the same decimal
	// with the point moved.
	for _, sec := range []string{"1.234", "0.1", "0.3", "2.675", "0.000123", "900", "0.0005", "4.768", "123456.789", "1e-3", "0.885"} {
		want, err := strconv.ParseFloat(sec, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []struct {
			unit  Unit
			shift int
		}{{Second, 0}, {Millisecond, 3}, {Microsecond, 6}, {Nanosecond, 9}} {
			text := moveDecimal(sec, u.shift)
			// The fast path (parseSecondsBytes on plain decimals), the
			// general path (ParseSeconds, exponents) and numbers in
			// exponent form all agree.
			ins := []string{text, "+" + text}
			if !strings.ContainsAny(text, "eE") {
				ins = append(ins, text+"e0")
			}
			for _, in := range ins {
				sc := newScale(u.unit.seconds())
				got, err := parseSecondsBytes([]byte(in), &sc)
				if err != nil || got != want {
					t.Errorf("%q %s = %v (%b), %v; want %v (%b), as %q s", in, u.unit, got, math.Float64bits(got), err, want, math.Float64bits(want), sec)
				}
				got, err = ParseSeconds(in, u.unit.seconds())
				if err != nil || got != want {
					t.Errorf("ParseSeconds(%q, %v) = %v, %v; want %v", in, u.unit.seconds(), got, err, want)
				}
			}
		}
	}
	// What the division avoids: 2675 × 0.001 rounds twice and misses
	// 2.675 by an ulp (2.6750000000000003).
	if x := 2675.0; x*0.001 == 2.675 || x/1000 != 2.675 {
		t.Errorf("2675 ms: ×0.001 = %v, /1000 = %v; the test values no longer show the difference", x*0.001, x/1000)
	}
	// Minutes and hours multiply: 1.5 m is 90 s exactly.
	if got, err := ParseSeconds("1.5", Minute.seconds()); err != nil || got != 90 {
		t.Errorf("ParseSeconds(1.5 m) = %v, %v, want 90", got, err)
	}
}

// moveDecimal writes the decimal s (digits, one optional point, or an
// exponent) times 10^k without arithmetic, as a test reference.
func moveDecimal(s string, k int) string {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, _ := strconv.Atoi(s[i+1:])
		return s[:i] + "e" + strconv.Itoa(e+k)
	}
	ip, fp, _ := strings.Cut(s, ".")
	fp += strings.Repeat("0", k)
	ip += fp[:k]
	fp = strings.TrimRight(fp[k:], "0")
	ip = strings.TrimLeft(ip, "0")
	if ip == "" {
		ip = "0"
	}
	if fp == "" {
		return ip
	}
	return ip + "." + fp
}

// latencyIn returns fixtures/latency.csv's 'Latency(ms)' column as a CSV
// with one column named name holding the values in a unit of 10^shift ms
// (shift -3: seconds), written by moving the decimal point.
func latencyIn(t *testing.T, name string, shift int) []byte {
	t.Helper()
	s, _, err := Read([]string{"../fixtures/latency.csv"}, ReadOptions{Column: "Latency(ms)", Unit: Second})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "id,%s\n", name)
	for i, v := range s.Times { // whole ms, read as "seconds": the ms text
		ms := strconv.FormatFloat(v, 'f', -1, 64)
		if shift >= 0 {
			ms = moveDecimal(ms, shift)
		} else {
			ms = shrinkDecimal(ms, -shift)
		}
		fmt.Fprintf(&b, "%d,%s\n", i, ms)
	}
	return b.Bytes()
}

// shrinkDecimal writes the whole number s divided by 10^k as a decimal.
func shrinkDecimal(s string, k int) string {
	s = strings.Repeat("0", k+1) + s
	ip, fp := strings.TrimLeft(s[:len(s)-k], "0"), strings.TrimRight(s[len(s)-k:], "0")
	if ip == "" {
		ip = "0"
	}
	if fp == "" {
		return ip
	}
	return ip + "." + fp
}

// TestSameSampleInEveryUnit: the latency fixture in s, ms and µs, with
// the unit set or only in the column name, and scaled down a thousandfold
// (values under 1 ms), gives bit-identical samples.
func TestSameSampleInEveryUnit(t *testing.T) {
	for _, down := range []int{0, 3} { // as is, and a thousand times shorter
		var ref []float64
		for _, c := range []struct {
			col   string
			shift int // the file's values are ms × 10^shift
			unit  Unit
		}{
			{"latency_s", -3, 0}, {"latency_s", -3, Second}, {"x", -3, 0},
			{"Latency(ms)", 0, 0}, {"x", 0, Millisecond}, {"latencyMs", 0, 0},
			{"latency [µs]", 3, 0}, {"x", 3, Microsecond}, {"latency_us", 3, 0},
			{"t_ns", 6, 0}, {"x", 6, Nanosecond},
		} {
			name := fmt.Sprintf("%s in 10^%d ms, unit %v, values /10^%d", c.col, c.shift, c.unit, down)
			data := latencyIn(t, c.col, c.shift-down)
			s, rep, err := ReadCSV(bytes.NewReader(data), name, ReadOptions{Column: c.col, Unit: c.unit})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if ref == nil {
				ref = s.Times
				if n := len(ref); n != 5000 {
					t.Fatalf("%s: %d values, want 5000", name, n)
				}
				continue
			}
			if i := firstDiff(s.Times, ref); i >= 0 {
				t.Errorf("%s: item %d = %v, want %v (as in seconds)", name, i, s.Times[i], ref[i])
			}
			if len(rep.Warnings) > 0 {
				t.Errorf("%s: warnings %q", name, rep.Warnings)
			}
		}
	}
}

func firstDiff(a, b []float64) int {
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestReadUnitReport: which unit a read uses and why, in the Report and
// its JSON, for CSV, binned and Parquet input.
func TestReadUnitReport(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "d.parquet")
	writeParquet(t, pq, 10, []string{"wait_ms", "wait", "f_us"}, map[string]any{
		"wait_ms": []int64{1500, 250}, "wait": []float64{1.5, 0.25}, "f_us": []float64{1.5e6, 2.5e5},
	})
	dur := filepath.Join(dir, "dur.parquet")
	writeDurationParquet(t, dur, arrow.Millisecond, []int64{1500, 250}) // column "wait", duration[ms]
	files := 0
	csvIn := func(s string) string {
		files++
		p := filepath.Join(dir, fmt.Sprintf("in%d.csv", files))
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	binned := csvIn("lower_ms,upper_ms,count\n0,1500,3\n1500,3000,1\n")
	tests := []struct {
		name     string
		path     string
		opt      ReadOptions
		unit     Unit
		from     UnitSource
		col      string
		times    []float64
		warnings int
	}{
		{"name", csvIn("id,Latency(ms)\na,1500\nb,250\n"), ReadOptions{Column: "Latency(ms)"}, Millisecond, UnitFromName, "Latency(ms)", []float64{1.5, 0.25}, 0},
		{"default", csvIn("id,latency\na,1.5\nb,0.25\n"), ReadOptions{Column: "latency"}, Second, UnitFromDefault, "", []float64{1.5, 0.25}, 0},
		{"option", csvIn("id,latency\na,1500\nb,250\n"), ReadOptions{Column: "latency", Unit: Millisecond}, Millisecond, UnitFromOption, "", []float64{1.5, 0.25}, 0},
		{"option against the name", csvIn("id,lat_s\na,1500\nb,250\n"), ReadOptions{Column: "lat_s", Unit: Millisecond}, Millisecond, UnitFromOption, "", []float64{1.5, 0.25}, 1},
		{"timestamps", "testdata/end_before_start.csv", ReadOptions{Start: "created_at", End: "settled_at", Negative: NegativeDrop}, 0, "", "", []float64{1.5}, 1}, // −5 s dropped (the status column unused says settled only)
		{"binned bounds", binned, ReadOptions{Binned: true, Bins: BinColumns{Lower: "lower_ms", Upper: "upper_ms"}}, Millisecond, UnitFromName, "lower_ms", nil, 0},
		{"parquet integer, name", pq, ReadOptions{Column: "wait_ms"}, Millisecond, UnitFromName, "wait_ms", []float64{1.5, 0.25}, 0},
		{"parquet float, name", pq, ReadOptions{Column: "f_us"}, Microsecond, UnitFromName, "f_us", []float64{1.5, 0.25}, 0},
		{"parquet float, default", pq, ReadOptions{Column: "wait"}, Second, UnitFromDefault, "", []float64{1.5, 0.25}, 0},
		{"parquet duration", dur, ReadOptions{Column: "wait"}, Millisecond, UnitFromType, "wait", []float64{1.5, 0.25}, 0},
		{"parquet duration, option ignored", dur, ReadOptions{Column: "wait", Unit: Minute}, Millisecond, UnitFromType, "wait", []float64{1.5, 0.25}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rep, err := Read([]string{tt.path}, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Unit != tt.unit || rep.UnitFrom != tt.from || rep.UnitColumn != tt.col {
				t.Errorf("Report unit = %v, %q, %q; want %v, %q, %q", rep.Unit, rep.UnitFrom, rep.UnitColumn, tt.unit, tt.from, tt.col)
			}
			if tt.times != nil && !slices.Equal(s.Times, tt.times) {
				t.Errorf("Times = %v, want %v", s.Times, tt.times)
			}
			if len(rep.Warnings) != tt.warnings {
				t.Errorf("warnings %q, want %d", rep.Warnings, tt.warnings)
			}
			js, _ := json.Marshal(rep)
			var back Report
			if err := json.Unmarshal(js, &back); err != nil || back.Unit != rep.Unit || back.UnitFrom != rep.UnitFrom {
				t.Errorf("JSON %s reads back as %v, %q, %v", js, back.Unit, back.UnitFrom, err)
			}
		})
	}
	// The binned bounds in seconds: [0, 1.5) holds 3 items, at the
	// midpoints of its thirds; [1.5, 3) one, at its lower bound
	// (BinColumns' rule).
	s, _, err := Read([]string{binned}, ReadOptions{Binned: true, Bins: BinColumns{Lower: "lower_ms", Upper: "upper_ms"}})
	if want := []float64{0.25, 0.75, 1.25, 1.5}; err != nil || !slices.Equal(s.Times, want) {
		t.Errorf("binned items %v, %v; want %v", s.Times, err, want)
	}
	// Bound columns that disagree need the unit set.
	bad := csvIn("lower_ms,upper_s,count\n0,1,3\n")
	if _, _, err := Read([]string{bad}, ReadOptions{Binned: true, Bins: BinColumns{Upper: "upper_s", Lower: "lower_ms"}}); !errors.Is(err, ErrOption) {
		t.Errorf("bounds in ms and s: error %v, want ErrOption", err)
	}
	if _, _, err := Read([]string{bad}, ReadOptions{Binned: true, Unit: Millisecond, Bins: BinColumns{Upper: "upper_s", Lower: "lower_ms"}}); err != nil {
		t.Errorf("bounds in ms and s with the unit set: %v", err)
	}
}

// TestImplausibleMagnitude: a median settle time above a day or
// below a microsecond warns, naming the units that make it plausible; a
// plain int64 Parquet column of nanoseconds read as seconds is the
// issue's case.
func TestImplausibleMagnitude(t *testing.T) {
	dir := t.TempDir()
	// Nanoseconds of settle times from 0.5 s to 157 s (max 1.57e11 ns),
	// median 1.2 s, in a column whose name says nothing.
	ns := []int64{5e8, 8e8, 1.2e9, 1.2e9, 1.5e9, 3e9, 1.57e11}
	pq := filepath.Join(dir, "ns.parquet")
	writeParquet(t, pq, 4, []string{"elapsed"}, map[string]any{"elapsed": ns})
	tests := []struct {
		name string
		opt  ReadOptions
		want string // "" for no warning
	}{
		{"ns read as s", ReadOptions{Column: "elapsed"},
			"the median settle time is about 38 years, implausibly long (values read as s, the default): is the unit wrong? --unit us reads it as 20min, --unit ns reads it as 1.2s"},
		{"ns read as ms", ReadOptions{Column: "elapsed", Unit: Millisecond},
			"the median settle time is about 14 days, implausibly long (values read as ms, as --unit says): is the unit wrong? --unit us reads it as 20min, --unit ns reads it as 1.2s"},
		{"ns read as µs", ReadOptions{Column: "elapsed", Unit: Microsecond}, ""}, // 20 min: plausible
		{"ns", ReadOptions{Column: "elapsed", Unit: Nanosecond}, ""},
	}
	for _, tt := range tests {
		_, rep, err := Read([]string{pq}, tt.opt)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(rep.Warnings, "\n")
		if got != tt.want {
			t.Errorf("%s: warnings\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
	// Seconds read as nanoseconds: a median of 1.2 ns.
	in := "id,t\na,0.5\nb,1.2\nc,3\n"
	_, rep, err := ReadCSV(strings.NewReader(in), "s.csv", ReadOptions{Column: "t", Unit: Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	want := "the median settle time is about 1.2ns, implausibly short (values read as ns, as --unit says): is the unit wrong? --unit ms reads it as 1.2ms, --unit s reads it as 1.2s"
	if len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Errorf("s read as ns: warnings %q, want %q", rep.Warnings, want)
	}
	// Nanoseconds in a column whose name says no unit, read as seconds
	// (the default): a median of 2·10⁶ s, 23 days. ms and µs are nearer,
	// but ns, the truth here, is offered too.
	in = "dur\n1900000\n2000000\n2300000\n"
	_, rep, err = ReadCSV(strings.NewReader(in), "ns.csv", ReadOptions{Column: "dur"})
	if err != nil {
		t.Fatal(err)
	}
	want = "the median settle time is about 23 days, implausibly long (values read as s, the default): is the unit wrong? --unit ms reads it as 33min, --unit us reads it as 2s, --unit ns reads it as 2ms"
	if len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Errorf("ns read as s: warnings %q, want %q", rep.Warnings, want)
	}
	// Binned input: the weighted median of the bins' items, here in
	// [1 s, 3 s) when the bounds are read as ns.
	bins := "lower,upper,count\n0,1000000000,5\n1000000000,3000000000,20\n"
	_, rep, err = ReadCSV(strings.NewReader(bins), "bins.csv", ReadOptions{Binned: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "implausibly long") || !strings.Contains(rep.Warnings[0], "--unit ns reads it as 1.") {
		t.Errorf("binned ns read as s: warnings %q, want one naming --unit ns (1.x s)", rep.Warnings)
	}
	if _, rep, err = ReadCSV(strings.NewReader(bins), "bins.csv", ReadOptions{Binned: true, Unit: Nanosecond}); err != nil || len(rep.Warnings) != 0 {
		t.Errorf("binned in ns: %q, %v; want no warning", rep.Warnings, err)
	}
	// The thresholds: a median of exactly a day or a microsecond is
	// plausible; just beyond, not.
	for _, c := range []struct {
		in   string
		warn bool
	}{{"86400", false}, {"86401", true}, {"0.000001", false}, {"0.00000099", true}, {"0", false}} {
		_, rep, err := ReadCSV(strings.NewReader("t\n"+c.in+"\n"), "x", ReadOptions{Column: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(rep.Warnings) > 0; got != c.warn {
			t.Errorf("median %s s: warned %v (%q), want %v", c.in, got, rep.Warnings, c.warn)
		}
	}
}

func ExampleUnitInName() {
	for _, name := range []string{"Latency(ms)", "settle_ms", "http_request_duration_seconds", "elapsedMillis", "latency_us_p99", "ms_count", "status"} {
		if u := UnitInName(name); u != 0 {
			fmt.Printf("%s: %v\n", name, u)
		} else {
			fmt.Printf("%s: says none (seconds unless ReadOptions.Unit is set)\n", name)
		}
	}
	// Output:
	// Latency(ms): ms
	// settle_ms: ms
	// http_request_duration_seconds: s
	// elapsedMillis: ms
	// latency_us_p99: µs
	// ms_count: says none (seconds unless ReadOptions.Unit is set)
	// status: says none (seconds unless ReadOptions.Unit is set)
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
