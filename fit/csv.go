package fit

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// ReadOptions says which column holds the settle times and how to read it.
// The zero value reads nothing useful: Column must be set.
type ReadOptions struct {
	Column      string // name of the duration column (header)
	Unit        Unit   // unit of bare numbers; 0 means seconds
	DropInvalid bool   // drop rows with bad values (counted per reason) instead of failing
}

// ReadCSVFile reads settle times from the CSV file at path; see ReadCSV.
func ReadCSVFile(path string, opt ReadOptions) (*Sample, *Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return ReadCSV(f, path, opt)
}

// ReadCSV reads settle times from CSV with a header row. name labels
// errors (usually the file path). Values are seconds (or opt.Unit) as
// integer or decimal numbers, or Go duration strings ("1.5s", "2m").
// A bad value is a *ParseError naming the row and column, unless
// opt.DropInvalid, which drops the row and counts it in the Report.
func ReadCSV(r io.Reader, name string, opt ReadOptions) (*Sample, *Report, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, &ParseError{File: name, RowGroup: -1, Err: fmt.Errorf("%w: the file is empty", ErrNoRows)}
	}
	if err != nil {
		return nil, nil, csvError(name, err)
	}
	col := -1
	for i, h := range header {
		if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == opt.Column {
			col = i
		}
	}
	if col < 0 {
		return nil, nil, &ParseError{File: name, Row: 1, RowGroup: -1, Column: opt.Column,
			Err: fmt.Errorf("%w; the header has %s", ErrMissingColumn, strings.Join(header, ", "))}
	}
	s := &Sample{}
	rep := &Report{}
	unit := opt.Unit.seconds()
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, csvError(name, err)
		}
		rep.Read++
		v, err := ParseSeconds(rec[col], unit)
		if err != nil {
			if opt.DropInvalid {
				rep.drop(dropReason(err))
				continue
			}
			return nil, nil, &ParseError{File: name, Row: row, RowGroup: -1, Column: opt.Column, Err: err}
		}
		s.Times = append(s.Times, v)
		rep.Used++
	}
	if rep.Used == 0 {
		return nil, rep, &ParseError{File: name, RowGroup: -1, Column: opt.Column, Err: fmt.Errorf("%w: %s", ErrNoRows, rep)}
	}
	return s, rep, nil
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: name, Row: pe.StartLine, RowGroup: -1, Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// dropReason names the reason a value was rejected, for Report.Dropped.
func dropReason(err error) string {
	switch {
	case errors.Is(err, ErrEmptyValue):
		return "empty"
	case errors.Is(err, ErrNotFinite):
		return "not finite"
	case errors.Is(err, ErrNegative):
		return "negative"
	default:
		return "not a number"
	}
}

// ParseSeconds parses one duration value: a number in units of unitSeconds
// seconds, or a Go duration string. It rejects empty, NaN, infinite and
// negative values with the matching sentinel error.
func ParseSeconds(s string, unitSeconds float64) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, ErrEmptyValue
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%w: %q", ErrNotFinite, s)
		}
		d, derr := time.ParseDuration(s)
		if derr != nil {
			return 0, fmt.Errorf("%w: %q", ErrNotNumber, s)
		}
		if d < 0 {
			return 0, fmt.Errorf("%w: %q", ErrNegative, s)
		}
		return d.Seconds(), nil
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %q", ErrNotFinite, s)
	}
	v *= unitSeconds
	if v < 0 {
		return 0, fmt.Errorf("%w: %q", ErrNegative, s)
	}
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %q", ErrNotFinite, s)
	}
	return v, nil
}
