package ingest

import (
	"errors"
	"os"
	"path/filepath"
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
