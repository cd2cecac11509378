package ingest

import (
	"errors"
	"strings"
	"testing"
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
