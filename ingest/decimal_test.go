package ingest

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestParseSimpleDecimal(t *testing.T) {
	// The fast path must agree with strconv.ParseFloat bit for bit.
	for _, s := range []string{"0", "1", "0.1", "14.485", "123456789012345", "0.00000000000001", "9.99999999999999", ".5", "5.", "86380"} {
		v, ok := parseSimpleDecimal([]byte(s), 0)
		ref, err := ParseSeconds(s, 1)
		if !ok || err != nil || v != ref {
			t.Errorf("parseSimpleDecimal(%q) = %v, %v, want %v", s, v, ok, ref)
		}
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

// FuzzParseSimpleDecimal: whatever the fast decimal parser accepts, it
// parses to exactly the float strconv gives, in seconds and in units of
// 10^-k s (the decimal with its exponent lowered by k); and the general
// path (ParseSeconds) agrees with strconv in those units too.
func FuzzParseSimpleDecimal(f *testing.F) {
	for _, s := range []string{"0", "1.5", "61.163", "3600.001", "0.1", "999999999999999", "12345678.9012345", ".5", "5.", "1e3", "-1", "2675", "-0.02", "1.234e3"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, k uint8) {
		shift := []int{0, 3, 6, 9}[k%4]
		v, ok := parseSimpleDecimal([]byte(s), shift)
		if ok {
			ref, err := strconv.ParseFloat(s+"e-"+strconv.Itoa(shift), 64)
			if err != nil || ref != v {
				t.Fatalf("parseSimpleDecimal(%q, %d) = %v, strconv: %v, %v", s, shift, v, ref, err)
			}
		}
		// The loop per part accepts what the switch per byte
		// accepted, no more, no less.
		if wv, wok := parseSimpleDecimalSwitch([]byte(s), shift); ok != wok || v != wv {
			t.Fatalf("parseSimpleDecimal(%q, %d) = %v, %v; the switch per byte gave %v, %v", s, shift, v, ok, wv, wok)
		}
		m := decimalNumber.FindStringSubmatch(s)
		if m == nil {
			return
		}
		e := 0
		if m[2] != "" {
			var err error
			if e, err = strconv.Atoi(m[2][1:]); err != nil || e < -1000 || e > 1000 {
				return
			}
		}
		ref, err := strconv.ParseFloat(m[1]+"e"+strconv.Itoa(e-shift), 64)
		if err != nil {
			return // out of range
		}
		got, gerr := parseSigned(s, newScale(1/pow10[shift]))
		if gerr != nil || got != ref {
			t.Fatalf("parseSigned(%q, 10^-%d s) = %v, %v; strconv: %v", s, shift, got, gerr, ref)
		}
	})
}

// FuzzParseShortDecimal: on text of up to 8 bytes, in a word's lanes,
// parseShortDecimal accepts what parseSimpleDecimal accepts and gives
// the same value.
func FuzzParseShortDecimal(f *testing.F) {
	for _, s := range []string{"0", "1.5", "14.485", "61.163", ".5", "5.", "1.2.3", "12345678", "1234567.", ".1234567", "-1", "1e3", "", ".", "9:5", "/9", "\xb1.5", "0.000001"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, k uint8) {
		if len(s) > 8 {
			s = s[:8]
		}
		checkShortDecimal(t, s, int(k%10))
	})
}

// TestParseShortDecimal compares parseShortDecimal with
// parseSimpleDecimal on every text of up to 6 bytes over digits, the
// point, the bytes either side of the digits ('/', ':') and one above
// 0x7f, and on texts of 7 and 8 bytes.
func TestParseShortDecimal(t *testing.T) {
	const alphabet = "059./:\xb0"
	check := func(s string, shift int) { checkShortDecimal(t, s, shift) }
	var walk func(prefix string)
	walk = func(prefix string) {
		check(prefix, 0)
		check(prefix, 3)
		if len(prefix) < 6 {
			for i := range len(alphabet) {
				walk(prefix + alphabet[i:i+1])
			}
		}
	}
	walk("")
	for _, s := range []string{"12345678", "99999999", "1234567.", ".1234567", "1234.567", "00000000", "0000000.", "1234567", "9.999999", "12345.6/", "1234567:"} {
		for shift := range 10 {
			check(s, shift)
		}
	}
}
