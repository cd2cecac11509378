package ingest

import (
	"errors"
	"fmt"
)

// delimiterCandidates are the field separators looked for in a header
// that holds no field delimiter: what spreadsheets and databases write.
var delimiterCandidates = []byte{',', ';', '\t', '|'}

// delimiterHint names the flag that reads hdr, a header line, when delim
// separates none of its fields (outside quotes) and another candidate
// does: the most frequent one. It is "" otherwise.
func delimiterHint(hdr []byte, delim byte) string {
	var count [256]int
	inq := false
	for _, c := range hdr {
		if c == '"' {
			inq = !inq
		} else if !inq {
			count[c]++
		}
	}
	if count[delim] > 0 {
		return ""
	}
	best := -1
	for _, c := range delimiterCandidates {
		if c != delim && count[c] > 0 && (best < 0 || count[c] > count[best]) {
			best = int(c)
		}
	}
	switch {
	case best < 0:
		return ""
	case best == '\t':
		return fmt.Sprintf(" (the header is separated by tabs, not %s: set --delimiter tab)", delimName(delim))
	}
	return fmt.Sprintf(" (the header is separated by '%c', not %s: set --delimiter '%c')", best, delimName(delim), best)
}

// delimName is a delimiter as messages write it.
func delimName(d byte) string {
	if d == '\t' {
		return "tabs"
	}
	return fmt.Sprintf("'%c'", d)
}

// parquetAsCSV is the error of Parquet data read as CSV: on stdin, or
// compressed (Parquet compresses its pages itself).
func parquetAsCSV(name string, compressed bool) error {
	if compressed {
		return &ParseError{File: name, RowGroup: -1, Err: errors.New("this is compressed Parquet data, not CSV: decompress it and give it as a file named *.parquet or *.pq")}
	}
	return &ParseError{File: name, RowGroup: -1, Err: errors.New("this is Parquet data, not CSV: give Parquet as a file named *.parquet or *.pq (not on stdin)")}
}
