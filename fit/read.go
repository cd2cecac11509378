package fit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Sentinel errors wrapped by ParseError; check them with errors.Is.
var (
	ErrMissingColumn = errors.New("column not found")
	ErrEmptyValue    = errors.New("empty value")
	ErrNotNumber     = errors.New("not a number or duration")
	ErrNotFinite     = errors.New("not a finite number")
	ErrNegative      = errors.New("negative duration")
	ErrNoRows        = errors.New("no data rows")
)

// ParseError reports bad input at a position. Row is the 1-based line of
// a CSV file, header included (0 when not known); for Parquet RowGroup is
// the 0-based row group and Row the row within it.
type ParseError struct {
	File     string
	Row      int
	RowGroup int // Parquet only; -1 for CSV
	Column   string
	Err      error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.RowGroup >= 0 {
		fmt.Fprintf(&b, ": row group %d", e.RowGroup)
	}
	if e.Row > 0 {
		fmt.Fprintf(&b, ": row %d", e.Row)
	}
	if e.Column != "" {
		fmt.Fprintf(&b, ", column %q", e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// Unit is the unit of bare numbers in a duration column.
type Unit time.Duration

// Units accepted by --unit.
const (
	Millisecond = Unit(time.Millisecond)
	Second      = Unit(time.Second)
	Minute      = Unit(time.Minute)
	Hour        = Unit(time.Hour)
)

// ParseUnit parses "ms", "s", "m" or "h".
func ParseUnit(s string) (Unit, error) {
	switch s {
	case "ms":
		return Millisecond, nil
	case "s", "":
		return Second, nil
	case "m", "min":
		return Minute, nil
	case "h":
		return Hour, nil
	}
	return 0, fmt.Errorf("unit %q: want ms, s, m or h", s)
}

// seconds returns how many seconds one unit is.
func (u Unit) seconds() float64 {
	if u == 0 {
		return 1
	}
	return time.Duration(u).Seconds()
}

// Report counts what happened to the rows of an input: every row read is
// used, excluded on purpose, or dropped for a reason. Nothing is dropped
// without being counted here.
type Report struct {
	Read     int            `json:"read"`
	Used     int            `json:"used"`
	Censored int            `json:"censored"`
	Excluded int            `json:"excluded"`
	Dropped  map[string]int `json:"dropped"`
}

func (r *Report) drop(reason string) {
	if r.Dropped == nil {
		r.Dropped = map[string]int{}
	}
	r.Dropped[reason]++
}

// DroppedTotal returns the number of dropped rows, all reasons together.
func (r *Report) DroppedTotal() int {
	n := 0
	for _, v := range r.Dropped {
		n += v
	}
	return n
}

// String gives the counts in one line, reasons sorted:
// "read 100 rows: used 97 (censored 3), excluded 0, dropped 3 (empty 2, negative 1)".
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "read %d rows: used %d (censored %d), excluded %d, dropped %d", r.Read, r.Used, r.Censored, r.Excluded, r.DroppedTotal())
	if len(r.Dropped) > 0 {
		b.WriteString(" (")
		for i, k := range slices.Sorted(maps.Keys(r.Dropped)) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %d", k, r.Dropped[k])
		}
		b.WriteString(")")
	}
	return b.String()
}
