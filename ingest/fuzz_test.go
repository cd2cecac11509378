package ingest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// checkShortDecimal fails t unless parseShortDecimal, on s (at most 8
// bytes) in a word's low lanes, gives what parseSimpleDecimal gives.
func checkShortDecimal(t *testing.T, s string, shift int) {
	t.Helper()
	var v uint64
	for i := len(s) - 1; i >= 0; i-- {
		v = v<<8 | uint64(s[i])
	}
	got, gok := parseShortDecimal(v, len(s), shift)
	want, wok := parseSimpleDecimal([]byte(s), shift)
	if got != want || gok != wok {
		t.Fatalf("parseShortDecimal(%q, %d) = %v, %v; parseSimpleDecimal: %v, %v", s, shift, got, gok, want, wok)
	}
}

// parseSimpleDecimalSwitch is parseSimpleDecimal as it was before issue
// 13's rewrite, a switch per byte: the reference of the fuzz test.
func parseSimpleDecimalSwitch(b []byte, shift int) (float64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var mant uint64
	digits, frac := 0, -1
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
		case c == '.' && frac < 0:
			frac = i
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	if frac < 0 && shift == 0 {
		return float64(mant), true
	}
	n := shift
	if frac >= 0 {
		n += len(b) - frac - 1
	}
	if n >= len(pow10) {
		return 0, false
	}
	return float64(mant) / pow10[n], true
}

// decimalNumber is a decimal number: sign and digits (m[1]), exponent (m[2]).
var decimalNumber = regexp.MustCompile(`^([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))([eE][+-]?[0-9]+)?$`)

// FuzzUnitInName: no name panics, and a name whose last word is a unit
// word keeps its unit behind any prefix.
func FuzzUnitInName(f *testing.F) {
	for _, s := range []string{"Latency(ms)", "settle_ms", "latencyMs", "ms_count", "status", "(", "[ms", "a)b(", "http_request_duration_seconds_sum", "µs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u := UnitInName(s)
		if u != 0 && !slices.ContainsFunc(units, func(n struct {
			u    Unit
			name string
		}) bool {
			return n.u == u
		}) {
			t.Fatalf("UnitInName(%q) = %v, not a named unit", s, u)
		}
		for w, want := range unitWords {
			if got := UnitInName(strings.Map(func(r rune) rune {
				if strings.ContainsRune("()[]", r) {
					return -1
				}
				return r
			}, s) + "_x_" + w); got != want && !strings.HasSuffix(strings.ToLower(s), "per") {
				t.Fatalf("UnitInName(%q) = %v, want %v", s+"_x_"+w, got, want)
			}
		}
	})
}

// FuzzParseTimestamp: every RFC 3339 timestamp time.Parse accepts
// parses to the same instant where Unix nanoseconds hold it (1677-09-21
// to 2262-04-11) and to outOfRange elsewhere (7285-03-01 was read as
// 445,741.6 s after 1970), and no input panics.
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2025-03-01T00:00:28.538Z", "2025-03-01 00:00:28", "2025-03-01T09:42:09.526+05:30", "2024-02-29T23:59:59.999999999-01:00",
		"2025-03-01T00:00:60Z", "2025-13-01T00:00:00Z", "1970-01-01T00:00:00Z", "2025-03-01T00:00:00 UTC", "9999-12-31T23:59:59Z",
		"7285-03-01T10:00:05Z", "2262-04-11T23:47:16.854775807Z", "2262-04-11T23:47:16.854775808Z", "1677-09-21T00:12:43.145224192Z", "1677-09-21T00:12:43.145224191Z", "0000-01-01T00:00:00Z", "1677-09-21T00:12:43,2Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseTimestampOK([]byte(s))
		ref, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return
		}
		// time.Parse also takes one-digit hours ("T0:00:00Z"), which
		// RFC 3339 does not: compare only the two-digit form.
		if len(s) < 19 || strings.ToUpper(s[:19]) != ref.Format("2006-01-02T15:04:05") {
			return
		}
		// It also takes zone offsets of 24 hours or 60 minutes and more
		// ("+00:60"), which RFC 3339 does not.
		if _, off := ref.Zone(); off <= -24*3600 || off >= 24*3600 || (len(s) >= 6 && s[len(s)-3] == ':' && s[len(s)-2] >= '6') {
			return
		}
		if ref.Before(time.Unix(0, math.MinInt64+1)) || ref.After(time.Unix(0, math.MaxInt64)) {
			if !ok || got != outOfRange {
				t.Fatalf("parseTimestamp(%q) = %d, %v; want outOfRange (time.Parse: %v)", s, got, ok, ref)
			}
			return
		}
		if !ok || got != ref.UnixNano() {
			t.Fatalf("parseTimestamp(%q) = %d, %v; time.Parse: %d", s, got, ok, ref.UnixNano())
		}
	})
}

// FuzzParseEpoch: no input panics, and decimal numbers ([-]digits[.digits])
// in s, ms, µs or ns are exact: the number times the unit, truncated to
// whole nanoseconds toward zero (big.Rat arithmetic), whenever that fits
// well inside an int64.
func FuzzParseEpoch(f *testing.F) {
	for _, s := range []string{"1740787228", "1740787228538", "1740787228538123", "1740787228538123456", "-1", "1.5", "1740787228.538123456789", ".5", "1e300", "NaN", "", "-", "9223372036854775807"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, k uint8) {
		unit := []int64{1e9, 1e6, 1e3, 1}[k%4]
		got, err := parseEpoch([]byte(s), unit)
		if !plainDecimal.MatchString(s) {
			return
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return
		}
		r.Mul(r, new(big.Rat).SetInt64(unit))
		want := new(big.Int).Quo(r.Num(), r.Denom()) // truncated toward zero
		if want.CmpAbs(big.NewInt(1<<62)) >= 0 {
			return
		}
		if err != nil || got != want.Int64() {
			t.Fatalf("parseEpoch(%q, %d) = %d, %v; want %d", s, unit, got, err, want)
		}
	})
}

var plainDecimal = regexp.MustCompile(`^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)

// FuzzReadParquet: a damaged Parquet file (any bytes, seeded from valid
// files) gives a sample or an error, never a panic, and the report adds up.
func FuzzReadParquet(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "seed.parquet")
	writeParquet(f, path, 2, []string{"settle_s", "status"}, map[string]any{
		"settle_s": []float64{1.5, 2, 0.25, 4},
		"status":   []string{"succeeded", "failed", "succeeded", "pending"},
	})
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed, true)
	f.Add(seed[:len(seed)/2], false)
	f.Add([]byte("PAR1"), false)
	f.Fuzz(func(t *testing.T, data []byte, status bool) {
		p := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opt := ReadOptions{Column: "settle_s", DropInvalid: true}
		if status {
			opt.Status, opt.Pending = "status", []string{"pending"}
		}
		s, rep, err := Read([]string{p}, opt)
		if err != nil {
			if s != nil {
				t.Fatalf("sample and error both returned: %v", err)
			}
			return
		}
		if rep.Read != rep.Used+rep.Excluded+rep.DroppedTotal() || len(s.Times) != rep.Used {
			t.Fatalf("report does not add up: %+v, %d times", rep, len(s.Times))
		}
		if !bytes.HasPrefix(data, []byte("PAR1")) {
			t.Fatalf("read a file without the Parquet magic")
		}
	})
}

// pqSeeds are Parquet files as real writers make them, from the first
// 300 rows of fixtures/payments.csv: arrow-go's pqarrow with the Arrow
// schema stored (as pyarrow does), dictionary pages, Snappy, Zstandard
// or no compression, several row groups, a nullable timestamp, and a
// duration column that only the ARROW:schema metadata says is one.
func pqSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	rows, _, err := ReadCSVFile("../fixtures/payments.csv", ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}, Segment: "method"})
	if err != nil {
		tb.Fatal(err)
	}
	n := 300
	settle := rows.Times[:n]
	ms := make([]int64, n)
	status, method := make([]string, n), make([]string, n)
	created, settled := make([]*time.Time, n), make([]*time.Time, n)
	for i, v := range settle {
		ms[i] = int64(v * 1000)
		status[i], method[i] = "succeeded", rows.SegmentNames[rows.SegmentOf(i)]
		created[i] = at(time.Duration(i) * time.Second)
		if rows.IsCensored(i) {
			status[i] = "pending"
		} else {
			settled[i] = at(time.Duration(i)*time.Second + time.Duration(ms[i])*time.Millisecond)
		}
	}
	dir := tb.TempDir()
	var out [][]byte
	add := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	for i, c := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Zstd, compress.Codecs.Uncompressed} {
		path := filepath.Join(dir, fmt.Sprintf("seed%d.parquet", i))
		writeParquetWith(tb, path, int64(100*(i+1)), []string{"settle_s", "wait_ms", "created_at", "settled_at", "status", "method"}, map[string]any{
			"settle_s": settle, "wait_ms": ms, "created_at": created, "settled_at": settled, "status": status, "method": method,
		}, parquet.WithCompression(c), parquet.WithDictionaryDefault(i != 2))
		add(path)
	}
	dur := filepath.Join(dir, "dur.parquet")
	writeDurationParquet(tb, dur, arrow.Millisecond, ms[:50])
	add(dur)
	return out
}

// pqOptions are the reads FuzzParquetMutation tries, by the columns of
// pqSeeds: the fast path (a duration column alone), statuses and
// segments, timestamps, the Arrow duration.
var pqOptions = []ReadOptions{
	{Column: "settle_s"},
	{Column: "wait_ms", Status: "status", Pending: []string{"pending"}, Segment: "method"},
	{Start: "created_at", End: "settled_at", Status: "status", Pending: []string{"pending"}, ObservedAt: pqT0.Add(time.Hour)},
	{Column: "wait"},
	{Start: "created_at", Column: "settle_s", Status: "status", Pending: []string{"pending"}},
	{End: "settled_at", Column: "wait_ms", Status: "status", Pending: []string{"pending"}, ObservedAt: pqT0.Add(time.Hour), Negative: NegativeZero},
}

// FuzzParquetMutation: real Parquet files (pqSeeds) with bytes flipped —
// in the footer, the page headers, the pages or the ARROW:schema metadata
// — are read without a panic or a runaway allocation (either ends the
// fuzzing process), as a sample whose report adds up or an error; an
// error about the data names the file. The input is the seed's index and
// a list of edits, 5 bytes each: a 4-byte offset (modulo the file's
// length, little-endian) and a byte XORed there. It found both Parquet
// crashes reported against the reader: a negative row count, and an
// ARROW:schema length arrow-go allocated 29.5 GB for.
func FuzzParquetMutation(f *testing.F) {
	seeds := pqSeeds(f)
	edit := func(off int, x byte) []byte { return append(binary.LittleEndian.AppendUint32(nil, uint32(off)), x) }
	for k := range seeds {
		for _, o := range [][]byte{nil, edit(len(seeds[k])-20, 0x07), edit(len(seeds[k])-200, 0x80), edit(200, 0xff)} {
			f.Add(uint8(k), uint8(k), o)
		}
	}
	f.Fuzz(func(t *testing.T, seed, opt uint8, edits []byte) {
		b := bytes.Clone(seeds[int(seed)%len(seeds)])
		for i := 0; i+5 <= len(edits) && i < 5*64; i += 5 {
			b[binary.LittleEndian.Uint32(edits[i:])%uint32(len(b))] ^= edits[i+4]
		}
		p := filepath.Join(t.TempDir(), "m.parquet")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		o := pqOptions[int(opt)%len(pqOptions)]
		o.DropInvalid = opt&0x80 != 0
		s, rep, err := Read([]string{p}, o)
		if err != nil {
			var pe *ParseError
			if s != nil || (errors.As(err, &pe) && pe.File != p) {
				t.Fatalf("sample %v with error %v", s != nil, err)
			}
			return
		}
		if rep.Read != rep.Used+rep.Excluded+rep.DroppedTotal() || len(s.Times) != rep.Used {
			t.Fatalf("report does not add up: %+v, %d times", rep, len(s.Times))
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("the sample read is not valid: %v", err)
		}
		if timed := o.Start != "" || o.End != ""; timed != (s.Created != nil) {
			t.Fatalf("%d creation instants read with start %q, end %q", len(s.Created), o.Start, o.End)
		}
	})
}
