package ingest

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
)

// role is what a column is used for.
type role int

const (
	roleDur role = iota
	roleStart
	roleEnd
	roleStatus
	roleSegment
	roleLower
	roleUpper
	roleCount
	roleCensCount
	roleID
	nRoles
)

// plan is ReadOptions checked and turned into what the row loop needs.
type plan struct {
	opt   ReadOptions
	names [nRoles]string // column per role; "" when unused
	// The unit of bare numbers in the duration column or binned bounds,
	// where it came from, and the column that said it (Report.Unit).
	unit     Unit
	unitFrom UnitSource
	unitCol  string
	named    Unit // the unit the column's name says, used or not; 0 when none
	scale    scale
	warnings []string // about the options, for every Report
	dedupe   bool     // ReadOptions.Dedupe is set
	hasSeg   bool     // ReadOptions.Segment is set
	interval bool     // ReadOptions.SettledAfter is set: items get Sample.Lower
	zeroNeg  bool     // ReadOptions.Negative is NegativeZero
	cleaning bool     // dedupe or zeroNeg: plan.clean has work

	created     bool  // the rows have timestamps: items get Sample.Created
	polls       bool  // ReadOptions.PollID: rows are polls (polllog.go)
	stamps      bool  // LastPending, FirstSettled: rows are intervals of timestamps (stamps.go)
	epochNs     int64 // nanoseconds per epoch unit; 0 means text timestamps
	pending     []string
	exclude     []string
	observedNs  int64
	hasObserved bool

	maxRows  int   // ReadOptions.MaxRows or its default; 0: no limit
	memLimit int64 // bytes the sample may grow to; 0: unknown
}

func newPlan(opt ReadOptions) (*plan, error) {
	p := &plan{opt: opt}
	if opt.Unit < 0 {
		return nil, fmt.Errorf("%w: unit %v: want a positive unit (--unit)", ErrOption, time.Duration(opt.Unit))
	}
	switch opt.Epoch {
	case 0:
	case Second, Millisecond, Microsecond, Nanosecond:
		p.epochNs = int64(opt.Epoch)
	default:
		return nil, fmt.Errorf("%w: epoch unit %v: want s, ms, us or ns (--epoch)", ErrOption, time.Duration(opt.Epoch))
	}
	switch opt.Negative {
	case NegativeError, NegativeDrop, NegativeZero:
	default:
		return nil, fmt.Errorf("%w: negative %d: want NegativeError, NegativeDrop or NegativeZero (--negative)", ErrOption, opt.Negative)
	}
	if d := opt.Delimiter; d != 0 && (d == '"' || d == '\r' || d == '\n' || d >= utf8.RuneSelf) {
		return nil, fmt.Errorf("%w: delimiter %q: want one ASCII character other than a quote or line break", ErrOption, d)
	}
	if opt.Binned {
		b := opt.Bins.withDefaults()
		p.names[roleLower], p.names[roleUpper], p.names[roleCount], p.names[roleCensCount] = b.Lower, b.Upper, b.Count, b.Censored
		if opt.Column != "" || opt.Start != "" || opt.End != "" || opt.Status != "" {
			return nil, fmt.Errorf("%w: binned input takes no duration, start, end or status column", ErrOption)
		}
	} else if !opt.observed() {
		switch {
		case opt.Column != "" && opt.Start != "" && opt.End != "":
			return nil, fmt.Errorf("%w: a duration column goes with a start or an end column, not both: set --column with --start or --end, or --start and --end", ErrOption)
		case opt.Column == "" && opt.Start == "" && opt.End == "":
			return nil, fmt.Errorf("%w: set a duration column (--column), or start and end columns (--start and --end), or a duration column with one of them", ErrOption)
		case opt.Column == "" && opt.End == "":
			return nil, fmt.Errorf("%w: a start column alone gives no settle time: add the end column (--end) or a duration column (--column)", ErrOption)
		case opt.Column == "" && opt.Start == "":
			return nil, fmt.Errorf("%w: an end column alone gives no settle time: add the start column (--start) or a duration column (--column)", ErrOption)
		}
		p.names[roleDur], p.names[roleStart], p.names[roleEnd] = opt.Column, opt.Start, opt.End
		p.created = opt.Start != "" || opt.End != ""
	}
	p.names[roleStatus], p.names[roleSegment], p.names[roleID] = opt.Status, opt.Segment, opt.Dedupe
	p.dedupe, p.hasSeg, p.zeroNeg = opt.Dedupe != "", opt.Segment != "", opt.Negative == NegativeZero
	p.cleaning = p.dedupe || p.zeroNeg
	if opt.Dedupe != "" && opt.Binned {
		return nil, fmt.Errorf("%w: binned input has no rows to deduplicate (--dedupe)", ErrOption)
	}
	if err := p.chooseUnit(); err != nil {
		return nil, err
	}
	if (len(opt.Pending) > 0 || len(opt.ExcludeStatus) > 0) && opt.Status == "" {
		return nil, fmt.Errorf("%w: pending and excluded values need a status column (--status)", ErrOption)
	}
	// Sets of statuses are a few values: slices are faster than maps.
	p.pending = slices.Compact(slices.Sorted(slices.Values(opt.Pending)))
	p.exclude = slices.Compact(slices.Sorted(slices.Values(opt.ExcludeStatus)))
	for _, v := range p.pending {
		if slices.Contains(p.exclude, v) {
			return nil, fmt.Errorf("%w: status %q is both pending and excluded", ErrOption, v)
		}
	}
	if !opt.ObservedAt.IsZero() {
		p.observedNs, p.hasObserved = opt.ObservedAt.UnixNano(), true
	}
	switch {
	case opt.MaxRows < 0:
		return nil, fmt.Errorf("%w: max rows %d: want a count ≥ 0, 0 for the default (--max-rows)", ErrOption, opt.MaxRows)
	case opt.MaxRows > 0:
		p.maxRows = opt.MaxRows
	}
	if opt.observed() {
		if err := p.observedPlan(); err != nil {
			return nil, err
		}
	}
	p.memLimit = memAvailable()
	if p.maxRows == 0 {
		p.maxRows = int(p.memLimit / p.bytesPerRow())
	}
	return p, nil
}

// bytesPerRow is the memory a row may take: BytesPerRow, and
// CreatedBytesPerRow more with timestamps.
func (p *plan) bytesPerRow() int64 {
	if p.polls && p.names[roleStart] != "" {
		return PollBytesPerRow + CreatedBytesPerRow
	}
	if p.polls {
		return PollBytesPerRow
	}
	n := int64(BytesPerRow)
	if p.created {
		n += CreatedBytesPerRow
	}
	if p.interval {
		n += LowerBytesPerRow
	}
	return n
}

// plainDuration reports whether a row's item is its duration value alone:
// no status, segment, dedupe, zeroing of negatives, timestamps or bins.
func (p *plan) plainDuration() bool {
	return !p.opt.Binned && p.names[roleDur] != "" && p.names[roleStatus] == "" && !p.hasSeg && !p.cleaning && !p.created
}

// tooManyRows is the ErrTooManyRows error of an input with more than
// p.maxRows rows.
func (p *plan) tooManyRows(file string, rows int64) error {
	why := "--max-rows, ReadOptions.MaxRows"
	if p.opt.MaxRows == 0 {
		why = fmt.Sprintf("what the memory available, %.3g GiB, holds at %d bytes a row; --max-rows sets another limit", float64(p.memLimit)/(1<<30), p.bytesPerRow())
	}
	return &ParseError{File: file, RowGroup: -1, Err: fmt.Errorf("%w: %d rows or more, above %d (%s): read a sample of the input", ErrTooManyRows, rows, p.maxRows, why)}
}

// chooseUnit sets the unit of bare numbers: ReadOptions.Unit, else the
// one the duration columns' names say, else seconds.
func (p *plan) chooseUnit() error {
	var cols []string
	switch {
	case p.opt.Binned:
		cols = []string{p.names[roleLower], p.names[roleUpper]}
	case p.opt.Column != "":
		cols = []string{p.opt.Column}
	default:
		p.scale = newScale(1) // timestamps: no bare durations
		return nil
	}
	var named Unit
	var namedCol string
	for _, c := range cols {
		u := UnitInName(c)
		if u == 0 {
			continue
		}
		if named != 0 && u != named && p.opt.Unit == 0 {
			return fmt.Errorf("%w: the bound columns' names say different units (%q: %s, %q: %s): set the unit (--unit)", ErrOption, namedCol, named, c, u)
		}
		if named == 0 {
			named, namedCol = u, c
		}
	}
	p.named = named
	switch {
	case p.opt.Unit > 0:
		p.unit, p.unitFrom = p.opt.Unit, UnitFromOption
		if named != 0 && named != p.opt.Unit {
			p.warnings = append(p.warnings, fmt.Sprintf("the column name %q says %s, but the unit is set to %s (--unit): plain numbers are read as %s (durations such as 1.5s keep their own unit)", namedCol, named, p.opt.Unit, p.opt.Unit))
		}
	case named != 0:
		p.unit, p.unitFrom, p.unitCol = named, UnitFromName, namedCol
	default:
		p.unit, p.unitFrom = Second, UnitFromDefault
	}
	p.scale = newScale(p.unit.seconds())
	return nil
}
