package ingest

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/pollfit/pollfit/internal/bulk"
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

// cellKind says how a cell holds its value: CSV gives text, Parquet gives
// numbers or nanoseconds from typed columns.
type cellKind uint8

const (
	cellEmpty    cellKind = iota
	cellText              // b holds the text
	cellNum               // f holds a bare number (Unit, or Epoch for timestamps)
	cellInt               // ns holds a bare integer (Parquet integer columns)
	cellNanos             // ns holds nanoseconds (Arrow duration or timestamp)
	cellOverflow          // ns holds a value whose nanoseconds (×f) overflow an int64
)

// nanosCell is the cell of v units of unitNs nanoseconds each (an Arrow
// duration, timestamp or date), or a cellOverflow when that overflows an
// int64 (a duration[s] above 292 years was read as under a second).
// lim is math.MaxInt64 / unitNs, computed once per column.
func nanosCell(v, unitNs, lim int64) cell {
	if v > lim || v < -lim {
		return cell{kind: cellOverflow, ns: v, f: float64(unitNs)}
	}
	return cell{kind: cellNanos, ns: v * unitNs}
}

// overflowError is the ErrOutOfRange error of a cellOverflow.
func overflowError(c *cell) error {
	return fmt.Errorf("%w: %d units of %s is beyond ±292 years, the range of nanoseconds in an int64", ErrOutOfRange, c.ns, time.Duration(c.f))
}

// cell is one value of one row, in whatever form the input had it.
type cell struct {
	kind cellKind
	b    []byte
	f    float64
	ns   int64
}

// Drop reasons, in Report.Dropped.
const (
	reasonEmpty = iota
	reasonNotNumber
	reasonNotFinite
	reasonNegative
	reasonTimestamp
	reasonEndBeforeStart
	reasonNoObservation
	reasonFields
	reasonUTF8
	reasonBin
	reasonDuplicateID
	reasonRange
	nReasons
)

var reasonNames = [nReasons]string{
	"empty", "not a number", "not finite", "negative", "bad timestamp",
	"end before start", "no observation time", "wrong field count", "invalid utf-8", "bad bin",
	"duplicate id", "out of range",
}

// reasonOf maps an error to its drop reason; ok is false for errors that
// DropInvalid must not hide (quoting, I/O).
func reasonOf(err error) (int, bool) {
	switch {
	case errors.Is(err, ErrEmptyValue):
		return reasonEmpty, true
	case errors.Is(err, ErrNotFinite):
		return reasonNotFinite, true
	case errors.Is(err, ErrNegative):
		return reasonNegative, true
	case errors.Is(err, ErrNotNumber):
		return reasonNotNumber, true
	case errors.Is(err, ErrBadTimestamp):
		return reasonTimestamp, true
	case errors.Is(err, ErrEndBeforeStart), errors.Is(err, ErrObservedBeforeStart):
		return reasonEndBeforeStart, true
	case errors.Is(err, ErrNoObservation):
		return reasonNoObservation, true
	case errors.Is(err, ErrFieldCount):
		return reasonFields, true
	case errors.Is(err, ErrNotUTF8):
		return reasonUTF8, true
	case errors.Is(err, ErrBadBin):
		return reasonBin, true
	case errors.Is(err, ErrOutOfRange):
		return reasonRange, true
	}
	return 0, false
}

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
	zeroNeg  bool     // ReadOptions.Negative is NegativeZero
	cleaning bool     // dedupe or zeroNeg: plan.clean has work

	created     bool  // the rows have timestamps: items get Sample.Created
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
	} else {
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
	p.memLimit = memAvailable()
	if p.maxRows == 0 {
		p.maxRows = int(p.memLimit / p.bytesPerRow())
	}
	return p, nil
}

// bytesPerRow is the memory a row may take: BytesPerRow, and
// CreatedBytesPerRow more with timestamps.
func (p *plan) bytesPerRow() int64 {
	if p.created {
		return BytesPerRow + CreatedBytesPerRow
	}
	return BytesPerRow
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

// batch collects the rows of one chunk (CSV) or row group (Parquet) with
// segment labels local to it; merger folds batches into one Sample.
type batch struct {
	times    []float64
	cens     []bool // nil until the first censored row
	censAt   []bool // where cens starts, when not nil: the batch's window of the sample's flags (readParquet), zero until written
	weights  []float64
	seg      labels
	created  []int64 // with timestamps (plan.created): creation instants
	segNames []string
	segIdx   map[string]int32

	read, used, excluded, censored int
	blank                          int // blank lines skipped (CSV)
	items                          float64
	dropped                        [nReasons]int

	statuses []string    // distinct status values of every 64th row, at most maxStatuses
	lines    int         // CSV lines consumed
	err      *ParseError // first error, Row local to the batch

	ids      []uint64     // with Dedupe: the id hash of each item
	sampled  []sampledRow // rows sampled for the repeat count
	sampling bool         // the rows were offered to the repeat sampler
	lim      uint64       // the largest fingerprint sampled (limit)
	seen     *[seenWords]uint64
	distinct int       // bits set in seen
	zeroed   negatives // negative durations made 0
	// negative is the negative duration of the row that failed, noted
	// for plan.failed, which counts it in negDropped when it drops it.
	negative   float64
	negDropped negatives
	first      int64 // the first timestamp read (epoch timestamps)
	hasFirst   bool
	// zoneless counts, per timestamp column, the text timestamps without
	// a zone (read as UTC); zonelessEx is the first of them.
	zoneless   [nRoles]int
	zonelessEx [nRoles]string

	// at is the position of the row being read: the CSV line within the
	// block, or the row within the Parquet row group. When the batch is
	// merged, file, base and rowGroup place it: CSV line base + at, or
	// row at of row group rowGroup (-1 for CSV).
	at             int
	file           string
	base, rowGroup int
	bins           []binRow // binned input: the bins read
}

// maxStatuses bounds the status values kept for warnings.
const maxStatuses = 8

func (b *batch) reset() {
	*b = batch{times: b.times[:0], seg: labels{narrow: b.seg.narrow[:0]}, created: b.created[:0], segIdx: b.segIdx, ids: b.ids[:0], sampled: b.sampled[:0], seen: b.seen, bins: b.bins[:0]}
	clear(b.segIdx)
	if b.seen != nil {
		clear(b.seen[:])
	}
}

// push appends one item.
func (b *batch) push(t float64, censored bool, w float64, weighted bool, seg int32, hasSeg bool) {
	if censored && b.cens == nil {
		if b.censAt != nil {
			b.cens = b.censAt[:len(b.times)]
		} else {
			b.cens = make([]bool, len(b.times), cap(b.times))
		}
	}
	if weighted && b.weights == nil {
		b.weights = make([]float64, len(b.times))
		for i := range b.weights {
			b.weights[i] = 1
		}
	}
	b.times = append(b.times, t)
	if b.cens != nil {
		b.cens = append(b.cens, censored)
	}
	if b.weights != nil {
		b.weights = append(b.weights, w)
	}
	if hasSeg {
		b.seg.add(seg)
	}
}

// labels are a batch's segment labels (local to it): a byte each while
// every one is below 256, as in the merged sample (Sample.Segment8), and
// four once one is not (widened once). A Parquet row group is 10⁶ rows
// or so, and each worker holds one: 1 MB of labels, not 4.
type labels struct {
	narrow []uint8
	wide   []int32 // every label once widened (not nil then); narrow is unused then
}

// widened reports whether the labels are four bytes each.
func (l *labels) widened() bool { return l.wide != nil }

// add appends label g.
func (l *labels) add(g int32) {
	if !l.widened() {
		if uint32(g) < 1<<8 {
			l.narrow = append(l.narrow, uint8(g))
			return
		}
		l.wide = make([]int32, len(l.narrow), max(2*len(l.narrow), 1<<10))
		for i, x := range l.narrow {
			l.wide[i] = int32(x)
		}
	}
	l.wide = append(l.wide, g)
}

// len returns the number of labels.
func (l *labels) len() int {
	if l.widened() {
		return len(l.wide)
	}
	return len(l.narrow)
}

// move sets label k to label i.
func (l *labels) move(k, i int) {
	if l.widened() {
		l.wide[k] = l.wide[i]
	} else {
		l.narrow[k] = l.narrow[i]
	}
}

// truncate keeps the first k labels.
func (l *labels) truncate(k int) {
	if l.widened() {
		l.wide = l.wide[:k]
	} else {
		l.narrow = l.narrow[:k]
	}
}

// segment returns the batch-local index of segment label s.
func (b *batch) segment(s []byte) int32 {
	// Most inputs have a handful of segments: a linear scan beats hashing.
	if len(b.segNames) <= 8 {
		for i, n := range b.segNames {
			if n == unsafeString(s) {
				return int32(i)
			}
		}
	} else if id, ok := b.segIdx[unsafeString(s)]; ok {
		return id
	}
	if b.segIdx == nil {
		b.segIdx = map[string]int32{}
	}
	name := string(s)
	id := int32(len(b.segNames))
	b.segNames = append(b.segNames, name)
	b.segIdx[name] = id
	return id
}

// row turns one row's cells into an item of b. It returns the role of the
// column at fault and the error; with DropInvalid, droppable errors are
// counted in b instead, and so are negative durations with NegativeDrop.
func (p *plan) row(b *batch, c *[nRoles]cell) (role, error) {
	b.read++
	r, err := p.item(b, c)
	if err == nil {
		return 0, nil
	}
	return p.failed(b, r, err)
}

// failed counts a row that failed with err as dropped, when it is to be
// dropped rather than fail the read, and returns nil; else it returns err
// and its column's role r.
func (p *plan) failed(b *batch, r role, err error) (role, error) {
	neg := b.negative
	b.negative = 0
	if p.opt.DropInvalid || p.opt.Negative == NegativeDrop && !p.opt.Binned && (errors.Is(err, ErrNegative) || errors.Is(err, ErrEndBeforeStart)) {
		if reason, ok := reasonOf(err); ok {
			b.dropped[reason]++
			if neg < 0 {
				b.negDropped.note(neg)
			}
			return 0, nil
		}
	}
	return r, err
}

func (p *plan) item(b *batch, c *[nRoles]cell) (role, error) {
	if p.opt.Binned {
		return p.bin(b, c)
	}
	pending := false
	if p.names[roleStatus] != "" {
		st := trimSpace(c[roleStatus].b)
		if !utf8.Valid(st) {
			return roleStatus, fmt.Errorf("%w: found %s", ErrNotUTF8, quote(st))
		}
		if (b.read <= 64 || b.read&63 == 1) && len(b.statuses) < maxStatuses && !slices.Contains(b.statuses, unsafeString(st)) {
			b.statuses = append(b.statuses, string(st)) // a sample, for the warnings of merger.finish
		}
		if slices.Contains(p.exclude, unsafeString(st)) {
			b.excluded++
			return 0, nil
		}
		pending = slices.Contains(p.pending, unsafeString(st))
	}
	var t float64
	var created int64 // with timestamps (p.created)
	if p.names[roleDur] != "" {
		var err error
		if t, err = p.seconds(&c[roleDur]); err != nil {
			return roleDur, err
		}
		if t < 0 && !p.zeroNeg {
			b.negative = t
			return roleDur, negativeError(&c[roleDur])
		}
		if t > MaxSeconds {
			return roleDur, tooLong(t)
		}
		if p.created {
			var r role
			if created, pending, r, err = p.place(b, c, t, pending); err != nil {
				return r, err
			}
		}
	} else {
		start, err := p.instant(b, roleStart, &c[roleStart])
		if err != nil {
			return roleStart, err
		}
		if !b.hasFirst {
			b.first, b.hasFirst = start, true
		}
		created = start
		end, observed, err := p.end(b, c, pending)
		if err != nil {
			return roleEnd, err
		}
		pending = pending || observed
		if end < start {
			// Neither is clock skew, which --negative is for: a setting is
			// wrong, and dropping or zeroing the rows would hide it.
			if observed {
				return roleEnd, fmt.Errorf("%w: --observed-at %s is before this pending row's start, %s: a pending row's age runs from its start to the observation time; set --observed-at to when the log was taken, no earlier than the last start",
					ErrObservedBeforeStart, fmtNanos(end), fmtNanos(start))
			}
			if mix := p.epochMix(start, end); mix != "" {
				return roleEnd, fmt.Errorf("%w: the end %s is before the start %s%s", ErrBadTimestamp, fmtNanos(end), fmtNanos(start), mix)
			}
			if !p.zeroNeg {
				b.negative = float64(end-start) / 1e9 // below −292 years it overflows to a positive: then not noted
				return roleEnd, fmt.Errorf("%w: start %s, end %s", ErrEndBeforeStart, fmtNanos(start), fmtNanos(end))
			}
		}
		d := end - start
		if (d < 0) != (end < start) { // more than 292 years apart
			return roleEnd, fmt.Errorf("%w: start %s, end %s are more than 292 years apart", ErrOutOfRange, fmtNanos(start), fmtNanos(end))
		}
		t = float64(d) / 1e9
	}
	var seg int32
	hasSeg := p.hasSeg
	if hasSeg {
		s := trimSpace(c[roleSegment].b)
		if !utf8.Valid(s) {
			return roleSegment, fmt.Errorf("%w: found %s", ErrNotUTF8, quote(s))
		}
		seg = b.segment(s) // "" for an empty value: Segmentation names it
	}
	if p.cleaning {
		var err error
		if t, err = p.clean(b, c, t); err != nil {
			return roleID, err
		}
	}
	b.push(t, pending, 1, false, seg, hasSeg)
	if p.created {
		b.created = append(b.created, created)
	}
	b.used++
	if pending {
		b.censored++
	}
	return 0, nil
}

// epochMix explains an end before its start when --epoch read one of them
// to an implausible instant (before 1990 or after 2100): the two columns
// then hold epoch numbers in different units, which one --epoch cannot
// read. It is "" otherwise.
func (p *plan) epochMix(start, end int64) string {
	if p.epochNs == 0 {
		return ""
	}
	for _, x := range []struct {
		role role
		ns   int64
	}{{roleStart, start}, {roleEnd, end}} {
		if x.ns >= epochMin && x.ns < epochMax {
			continue
		}
		raw := float64(x.ns) / float64(p.epochNs)
		fix := ""
		if u := epochUnitOf(raw); u != 0 {
			fix = fmt.Sprintf(" (it fits epoch %s)", u)
		}
		return fmt.Sprintf(", and column %s read as epoch %s is in %s%s: --epoch applies to --start and --end alike, so the two columns must be in one unit; convert one", quote(p.names[x.role]), Unit(p.epochNs), fmtYear(x.ns)[:4], fix)
	}
	return ""
}

// end reads a row's end timestamp (Unix ns). An empty one is the end of
// observation (observed is true) for a row whose status is pending, or
// for every row when there is no status column; an error otherwise, or
// when the observation time is unknown.
func (p *plan) end(b *batch, c *[nRoles]cell, pending bool) (ns int64, observed bool, err error) {
	switch e := &c[roleEnd]; {
	case e.kind != cellEmpty && !(e.kind == cellText && len(trimSpace(e.b)) == 0):
		ns, err = p.instant(b, roleEnd, e)
		return ns, false, err
	case p.names[roleStatus] != "" && !pending:
		if len(p.pending) == 0 {
			return 0, false, fmt.Errorf("%w, and no pending status values are given (--pending)", ErrEmptyValue)
		}
		return 0, false, fmt.Errorf("%w, and status %s is not a pending one (%s)", ErrEmptyValue, quote(trimSpace(c[roleStatus].b)), strings.Join(p.pending, ", "))
	case !p.hasObserved && p.names[roleDur] != "":
		return 0, false, fmt.Errorf("%w: column %s holds its age when observation ended: give when that was (--observed-at), or the creation timestamps (--start)", ErrNoObservation, quote(p.names[roleDur]))
	case !p.hasObserved:
		return 0, false, fmt.Errorf("%w: its age runs to when the log was taken: give that instant (--observed-at, in RFC 3339), or the column of ages with --start (--column)", ErrNoObservation)
	}
	// No end yet: the row was still pending when observation ended.
	return p.observedNs, true, nil
}

// place finds the creation instant of a row whose settle time t (in
// seconds, ≥ 0 unless NegativeZero will make it 0) is a duration, from
// its start timestamp (created = start) or its end timestamp (created =
// end − t; an empty end is the end of observation, and makes the row
// pending). It checks that the instants t apart both fit in Unix
// nanoseconds in an int64: the settle instant Created + t is then always
// one too. It returns the role of the column at fault with an error.
func (p *plan) place(b *batch, c *[nRoles]cell, t float64, pending bool) (created int64, _ bool, _ role, err error) {
	t = max(t, 0) // NegativeZero makes it 0 (clean)
	ns, fits := float64(0), true
	if t > 0 {
		ns = math.Round(t * 1e9)
		fits = ns < 1<<63
	}
	d := int64(0)
	if fits {
		d = int64(ns)
	}
	if p.names[roleStart] != "" {
		start, err := p.instant(b, roleStart, &c[roleStart])
		if err != nil {
			return 0, pending, roleStart, err
		}
		if !b.hasFirst {
			b.first, b.hasFirst = start, true
		}
		if !fits || start+d < start {
			return 0, pending, roleDur, fmt.Errorf("%w: started %s, a settle time of %s s ends after %s, the last instant of Unix nanoseconds in an int64", ErrOutOfRange, fmtNanos(start), formatFloat(t), fmtNanos(math.MaxInt64))
		}
		return start, pending, 0, nil
	}
	end, observed, err := p.end(b, c, pending)
	if err != nil {
		return 0, pending, roleEnd, err
	}
	if !observed && !b.hasFirst {
		b.first, b.hasFirst = end, true
	}
	if !fits || end-d > end {
		what := "settled"
		if observed {
			what = "observed at"
		}
		return 0, pending, roleDur, fmt.Errorf("%w: %s %s, a settle time of %s s starts before %s, the first instant of Unix nanoseconds in an int64", ErrOutOfRange, what, fmtNanos(end), formatFloat(t), fmtNanos(math.MinInt64))
	}
	return end - d, pending || observed, 0, nil
}

// clean does, for a row about to be used with duration t, what Dedupe and
// NegativeZero ask: it notes the row's id and makes a negative t 0,
// counted. The error is about the id.
func (p *plan) clean(b *batch, c *[nRoles]cell, t float64) (float64, error) {
	if p.dedupe {
		h, err := idOf(&c[roleID])
		if err != nil {
			return t, err
		}
		b.ids = append(b.ids, h)
	}
	if t < 0 {
		b.zeroed.note(t)
		t = 0
	}
	return t, nil
}

// tooLong is the ErrOutOfRange error of a duration above MaxSeconds.
func tooLong(t float64) error {
	return fmt.Errorf("%w: %g s is above %g s, the most the estimators can take", ErrOutOfRange, t, MaxSeconds)
}

// negativeError is the ErrNegative error for a cell, quoting its value as
// the input has it.
func negativeError(c *cell) error {
	switch c.kind {
	case cellText:
		return fmt.Errorf("%w: %s", ErrNegative, quote(trimSpace(c.b)))
	case cellNum:
		return fmt.Errorf("%w: %v", ErrNegative, c.f)
	case cellInt:
		return fmt.Errorf("%w: %d", ErrNegative, c.ns)
	}
	return fmt.Errorf("%w: %s", ErrNegative, time.Duration(c.ns))
}

// idOf hashes the id cell of a row for Dedupe; an empty id is an error.
func idOf(c *cell) (uint64, error) {
	switch c.kind {
	case cellText:
		s := trimSpace(c.b)
		if len(s) == 0 {
			return 0, ErrEmptyValue
		}
		return idHash(s), nil
	case cellInt, cellNanos:
		return mix64(uint64(c.ns)), nil
	case cellNum:
		return mix64(math.Float64bits(c.f)), nil
	}
	return 0, ErrEmptyValue
}

// seconds reads a duration cell as seconds; the result may be negative.
func (p *plan) seconds(c *cell) (float64, error) {
	switch c.kind {
	case cellText:
		return parseSecondsBytes(c.b, &p.scale)
	case cellNum:
		return checkFinite(p.scale.of(c.f), c.f)
	case cellInt:
		return p.scale.of(float64(c.ns)), nil
	case cellNanos:
		return float64(c.ns) / 1e9, nil
	case cellOverflow:
		return 0, overflowError(c)
	}
	return 0, ErrEmptyValue
}

func checkFinite(v, raw float64) (float64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %v", ErrNotFinite, raw)
	}
	return v, nil
}

// instant reads a timestamp cell of column r as Unix nanoseconds,
// counting in b the text timestamps without a zone (read as UTC).
func (p *plan) instant(b *batch, r role, c *cell) (int64, error) {
	switch c.kind {
	case cellText:
		s := trimSpace(c.b)
		if len(s) == 0 {
			return 0, ErrEmptyValue
		}
		var epochErr error
		if p.epochNs > 0 {
			// --epoch is about numbers: a column of RFC 3339 text beside
			// one of epoch numbers is read as it says.
			ns, err := parseEpoch(s, p.epochNs)
			if err == nil {
				return ns, nil
			}
			epochErr = err
		}
		ns, zoned, ok := parseTimestampZone(s)
		switch {
		case !ok && epochErr != nil:
			return 0, epochErr
		case !ok:
			return 0, badTimestamp(s)
		case ns == outOfRange:
			return 0, rangeError(s)
		case !zoned:
			if b.zoneless[r] == 0 {
				b.zonelessEx[r] = string(s)
			}
			b.zoneless[r]++
		}
		return ns, nil
	case cellNum:
		if p.epochNs == 0 {
			return 0, fmt.Errorf("%w: found the number %v%s", ErrBadTimestamp, c.f, epochHint(c.f))
		}
		ns := c.f * float64(p.epochNs)
		if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
			return 0, fmt.Errorf("%w: epoch %v out of range%s", ErrBadTimestamp, c.f, epochHint(c.f))
		}
		return int64(math.Round(ns)), nil
	case cellInt:
		if p.epochNs == 0 {
			return 0, fmt.Errorf("%w: found the number %d%s", ErrBadTimestamp, c.ns, epochHint(float64(c.ns)))
		}
		ns, ok := mulInt64(c.ns, p.epochNs)
		if !ok {
			return 0, fmt.Errorf("%w: epoch %d out of range%s", ErrBadTimestamp, c.ns, epochHint(float64(c.ns)))
		}
		return ns, nil
	case cellNanos:
		return c.ns, nil
	case cellOverflow:
		return 0, overflowError(c)
	}
	return 0, ErrEmptyValue
}

// mulInt64 returns a·b and whether it fits in an int64.
func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

func fmtNanos(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

// parseSecondsBytes parses a duration value as seconds, without
// allocating unless the value is bad; the result may be negative.
func parseSecondsBytes(b []byte, sc *scale) (float64, error) {
	b = trimSpace(b)
	if len(b) == 0 {
		return 0, ErrEmptyValue
	}
	if v, ok := parseSimpleDecimal(b, sc.shift); ok {
		return v * sc.mul, nil // mul is 1 when shift is not 0
	}
	return parseSigned(unsafeString(b), *sc)
}

// parseSimpleDecimal parses digits with at most one '.' and up to 15
// significant digits, divided by 10^shift, exactly: the digits as an
// integer and the power of ten are both exact in float64 (up to 10²²), so
// one correctly rounded division gives the nearest float, as strconv
// would. It reports false for anything else, which then takes the general
// path.
func parseSimpleDecimal(b []byte, shift int) (float64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	// The integer digits, then the point and the fraction's: a loop per
	// part, not a switch per byte (a third of the cost on 10M fields).
	var mant uint64
	i := 0
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
	}
	if i == len(b) { // digits only, at most 15
		if len(b) > 15 {
			return 0, false
		}
		if shift == 0 {
			return float64(mant), true
		}
		return float64(mant) / pow10[shift], true
	}
	if b[i] != '.' || len(b) == 1 { // "." alone has no digit
		return 0, false
	}
	for _, c := range b[i+1:] {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		mant = mant*10 + uint64(d)
	}
	// len(b) − 1 digits, at most 15.
	n := shift + len(b) - i - 1
	if n >= len(pow10) {
		return 0, false
	}
	return float64(mant) / pow10[n], true
}

// parseShortDecimal is parseSimpleDecimal for text of n ≤ 8 bytes held in
// the low lanes of v (the first byte in the lowest), its other lanes
// zero: the point is taken out and the digits checked and combined 8 at
// a time (issue 13), the combination of Lemire, "Quickly parsing eight
// digits" (2018), on digits right-aligned behind zeros. It accepts
// exactly what parseSimpleDecimal accepts and gives the same value.
func parseShortDecimal(v uint64, n, shift int) (float64, bool) {
	// The masks on shift counts tell the compiler they are below 64 (no
	// test for Go's semantics of wider shifts).
	if n <= 0 || n > 8 {
		return 0, false
	}
	frac := 0
	if dot := equalBytes(v, '.'*lanes01); dot != 0 { // lanes above n are 0, never '.'
		if dot&(dot-1) != 0 || n == 1 {
			return 0, false // two points, or no digit
		}
		p := bits.TrailingZeros64(dot) >> 3
		lo := uint64(1)<<(8*p&63) - 1
		v = v&lo | v>>8&^lo
		n--
		frac = n - p
	}
	m := ^uint64(0) >> ((64 - 8*n) & 63) // the n lanes in use
	// A lane is not a digit when its bit 7 is set, when its low 7 bits
	// plus 0x46 reach 0x80 (above '9'), or when with bit 7 set it loses
	// it by subtracting '0' (below '0'); no carry or borrow crosses lanes.
	if ((v&lanes7f+0x4646464646464646)|v|^(v|lanes80-lanes30))&lanes80&m != 0 {
		return 0, false
	}
	d := (v - lanes30) & m // the borrows go from lane n up, cleared
	d <<= (64 - 8*n) & 63  // leading zeros: the first digit's lane is the most significant
	d = d*10 + d>>8
	d = ((d&0x000000ff000000ff)*(100+1000000<<32) + (d>>16&0x000000ff000000ff)*(1+10000<<32)) >> 32
	// At most 8 digits: exact in an int64 and a float64.
	if e := shift + frac; e > 0 {
		return float64(int64(d)) / pow10[e&31], true
	}
	return float64(int64(d)), true
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
	1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// unsafeString views b as a string without copying; the string must not
// outlive b's contents (map lookups and parse calls whose errors we drop).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// merger folds batches, in input order, into one Sample and Report.
type merger struct {
	s        Sample
	statuses []string // status values seen in a sample of the rows
	warned   []string // what warnLayout has warned about
	rep      Report
	segIdx   map[string]int32
	remap    []int32
	// anyCens is set once a batch has a censored item: s.Censored may be
	// made before (readParquet's windows), and is dropped at the end
	// without one.
	anyCens bool

	repeats  repeats // rows repeating an earlier row, without Dedupe
	ids      idSet   // the ids seen, with Dedupe
	first    int64   // the first timestamp read, when hasFirst
	hasFirst bool
	// zoneless and zonelessEx are batch.zoneless and zonelessEx of the
	// whole input.
	zoneless   [nRoles]int
	zonelessEx [nRoles]string
	// negDropped is batch.negDropped of the whole input.
	negDropped negatives
	bins       []placedBin // binned input: every bin read, for the overlap check
	memLimit   int64       // plan.memLimit
	created    bool        // plan.created: the sample holds Created
	// typed is the unit of the Parquet duration columns read; untyped
	// is set when some input's duration column holds bare numbers or
	// text instead.
	typed    Unit
	typedCol string
	untyped  bool
}

// reserve makes room for n more items, so that appending them does not
// copy the sample again and again (growing a 10M-item slice by append
// moves and page-faults several times its size).
func (m *merger) reserve(n int) {
	if n <= 0 || cap(m.s.Times)-len(m.s.Times) >= n {
		return
	}
	c := len(m.s.Times) + n
	if m.s.Times == nil {
		m.s.Times = bulk.Make[float64](0, c)
	}
	if m.created && m.s.Created == nil {
		m.s.Created = bulk.Make[int64](len(m.s.Times), c) // len 0: every item has one
	}
	m.s.Times = regrow(m.s.Times, c)
	m.s.Created = regrow(m.s.Created, c)
	m.s.Censored = regrow(m.s.Censored, c)
	m.s.Weights = regrow(m.s.Weights, c)
	m.s.Segment = regrow(m.s.Segment, c)
	m.s.Segment8 = regrow(m.s.Segment8, c)
}

// ensure makes room for n more items, growing the sample by at least a
// quarter (as append does) so that growth costs a copy of the whole now
// and then, not at every batch. It fails with ErrTooManyRows when the
// columns, old and new together while one is copied into the other,
// would take more than m.memLimit bytes; b is the batch about to be
// added, whose columns count too.
func (m *merger) ensure(n int, b *batch) error {
	need := len(m.s.Times) + n
	if need <= cap(m.s.Times) {
		return nil
	}
	c := max(need, cap(m.s.Times)+cap(m.s.Times)/4)
	if m.memLimit > 0 {
		per := int64(8)
		if m.anyCens || b != nil && b.cens != nil {
			per++
		}
		if m.s.Weights != nil || b != nil && b.weights != nil {
			per += 8
		}
		switch {
		case m.s.Segment != nil || b != nil && b.seg.widened():
			per += 4
		case m.s.Segment8 != nil || b != nil && b.seg.len() > 0:
			per++
		}
		if m.created {
			per += CreatedBytesPerRow
		}
		// In float64: a damaged count can overflow an int64 product.
		if bytes := float64(c+cap(m.s.Times)) * float64(per); bytes > float64(m.memLimit) {
			return fmt.Errorf("%w: holding %d items and growing to %d would take %.3g GiB, more than the %.3g GiB of memory available: read a sample of the input",
				ErrTooManyRows, len(m.s.Times), c, bytes/(1<<30), float64(m.memLimit)/(1<<30))
		}
	}
	m.reserve(c - len(m.s.Times))
	return nil
}

// regrow returns s with capacity c. Unlike slices.Grow it does not clear
// the new capacity: a large make gets fresh zero pages from the OS, and
// touching them only as values arrive keeps memory and time down.
func regrow[E any](s []E, c int) []E {
	if s == nil || cap(s) >= c {
		return s
	}
	t := bulk.Make[E](len(s), c)
	copy(t, s)
	return t
}

// inPlace reports whether src was decoded in place: it starts where dst
// ends, within dst's capacity (readParquet's windows).
func inPlace[E any](dst, src []E) bool {
	n := len(dst)
	return len(src) > 0 && cap(dst) >= n+len(src) && &dst[:n+1][n] == &src[0]
}

// appendInPlace appends src to dst, with no copy when src was decoded in
// place.
func appendInPlace[E any](dst, src []E) []E {
	if inPlace(dst, src) {
		return dst[:len(dst)+len(src)]
	}
	return append(dst, src...)
}

// add merges b into the sample; its error is ErrTooManyRows (ensure).
func (m *merger) add(b *batch) error {
	if b.ids != nil {
		m.dedupe(b)
	}
	n0 := len(m.s.Times)
	if !inPlace(m.s.Times, b.times) {
		if err := m.ensure(len(b.times), b); err != nil {
			return err
		}
	}
	m.s.Times = appendInPlace(m.s.Times, b.times)
	if m.created {
		if len(b.created) != len(b.times) {
			panic(fmt.Sprintf("ingest: a batch of %d items has %d creation instants", len(b.times), len(b.created)))
		}
		if m.s.Created == nil {
			m.s.Created = bulk.Make[int64](n0, cap(m.s.Times))
		}
		m.s.Created = appendInPlace(m.s.Created, b.created)
	}
	m.anyCens = m.anyCens || b.cens != nil
	if b.cens != nil && m.s.Censored == nil {
		m.s.Censored = bulk.Make[bool](n0, cap(m.s.Times))
	}
	if m.s.Censored != nil {
		if b.cens != nil {
			m.s.Censored = appendInPlace(m.s.Censored, b.cens)
		} else if n := len(m.s.Censored); cap(m.s.Censored)-n >= len(b.times) {
			// The flags' memory may be a window another batch's
			// dedupe left flags in (readParquet): cleared.
			m.s.Censored = m.s.Censored[:n+len(b.times)]
			clear(m.s.Censored[n:])
		} else {
			m.s.Censored = append(m.s.Censored, make([]bool, len(b.times))...)
		}
	}
	if b.weights != nil && m.s.Weights == nil {
		m.s.Weights = bulk.Make[float64](n0, cap(m.s.Times))
		for i := range m.s.Weights {
			m.s.Weights[i] = 1
		}
	}
	if m.s.Weights != nil {
		if b.weights != nil {
			m.s.Weights = append(m.s.Weights, b.weights...)
		} else {
			for range b.times {
				m.s.Weights = append(m.s.Weights, 1)
			}
		}
	}
	if b.seg.len() > 0 || len(b.segNames) > 0 { // bins of count 0 have names only
		m.addLabels(b)
	}
	for _, x := range b.bins {
		pb := placedBin{binRow: x, file: b.file, rowGroup: b.rowGroup}
		pb.row += b.base
		if len(b.segNames) > 0 {
			pb.seg = m.remap[x.seg]
		}
		m.bins = append(m.bins, pb)
	}
	for _, st := range b.statuses {
		if len(m.statuses) < maxStatuses && !slices.Contains(m.statuses, st) {
			m.statuses = append(m.statuses, st)
		}
	}
	m.rep.Read += b.read
	m.rep.BlankLines += b.blank
	m.rep.Used += b.used
	m.rep.Excluded += b.excluded
	m.rep.Censored += b.censored
	m.rep.Items += b.items
	z := negatives{m.rep.Zeroed, m.rep.Lowest}
	z.add(b.zeroed)
	m.rep.Zeroed, m.rep.Lowest = z.n, z.lowest
	m.negDropped.add(b.negDropped)
	if b.sampling {
		m.repeats.add(b.sampled, b.read, b.lim)
	}
	if b.hasFirst && !m.hasFirst {
		m.first, m.hasFirst = b.first, true
	}
	for r, n := range b.zoneless {
		if n > 0 && m.zoneless[r] == 0 {
			m.zonelessEx[r] = b.zonelessEx[r]
		}
		m.zoneless[r] += n
	}
	for r, n := range b.dropped {
		if n > 0 {
			if m.rep.Dropped == nil {
				m.rep.Dropped = map[string]int{}
			}
			m.rep.Dropped[reasonNames[r]] += n
		}
	}
	return nil
}

// addLabels merges b's segment names and labels into the sample's: a
// byte a label (Segment8) while there are at most 256 names, widened
// once into Segment when a 257th comes (issue 18).
func (m *merger) addLabels(b *batch) {
	if m.segIdx == nil {
		m.segIdx = map[string]int32{}
		if m.s.Segment8 == nil { // else made for readParquet's windows
			m.s.Segment8 = bulk.Make[uint8](0, cap(m.s.Times))
		}
	}
	m.remap = m.remap[:0]
	for _, name := range b.segNames {
		id, ok := m.segIdx[name]
		if !ok {
			id = int32(len(m.s.SegmentNames))
			m.s.SegmentNames = append(m.s.SegmentNames, name)
			m.segIdx[name] = id
		}
		m.remap = append(m.remap, id)
	}
	if m.s.Segment8 != nil && len(m.s.SegmentNames) > 1<<8 {
		wide := bulk.Make[int32](len(m.s.Segment8), cap(m.s.Times))
		for i, g := range m.s.Segment8 {
			wide[i] = int32(g)
		}
		m.s.Segment, m.s.Segment8 = wide, nil
	}
	// A batch is widened only past 256 names of its own, and the sample
	// then is too: the narrow sample takes narrow batches' labels alone.
	switch l := &b.seg; {
	case m.s.Segment8 != nil:
		for _, g := range l.narrow {
			m.s.Segment8 = append(m.s.Segment8, uint8(m.remap[g]))
		}
	case l.widened():
		for _, g := range l.wide {
			m.s.Segment = append(m.s.Segment, m.remap[g])
		}
	default:
		for _, g := range l.narrow {
			m.s.Segment = append(m.s.Segment, m.remap[g])
		}
	}
}

// noteUnit records whether the duration columns of an input (or its bin
// bounds) are Parquet durations, whose type gives their unit (durNs, the
// unit in nanoseconds per role, 0 for other types), or bare numbers.
func (m *merger) noteUnit(p *plan, durNs [nRoles]int64) {
	for _, r := range []role{roleDur, roleLower, roleUpper} {
		switch {
		case p.names[r] == "":
		case durNs[r] > 0:
			if m.typed == 0 {
				m.typed, m.typedCol = Unit(durNs[r]), p.names[r]
			}
		default:
			m.untyped = true
		}
	}
}

// dedupe drops the items of b whose id an earlier item had (Dedupe),
// keeping the first of each id in input order.
func (m *merger) dedupe(b *batch) {
	k := 0
	for i, h := range b.ids {
		if !m.ids.add(h) {
			b.used--
			if b.cens != nil && b.cens[i] {
				b.censored--
			}
			b.dropped[reasonDuplicateID]++
			continue
		}
		if k != i {
			b.times[k] = b.times[i]
			if b.cens != nil {
				b.cens[k] = b.cens[i]
			}
			if b.seg.len() > 0 {
				b.seg.move(k, i)
			}
			if b.created != nil {
				b.created[k] = b.created[i]
			}
		}
		k++
	}
	b.times = b.times[:k]
	if b.cens != nil {
		b.cens = b.cens[:k]
	}
	if b.seg.len() > 0 {
		b.seg.truncate(k)
	}
	if b.created != nil {
		b.created = b.created[:k]
	}
	b.ids = b.ids[:k]
}

// warnLayout warns, once per read, about what a file's columns suggest
// was meant: a Hive partition key in use (one of p.names) that the file
// also has as a column, whose values may not be the directory's; a
// "status" column while no status column is set, so that pending rows
// count as settled: when peek, the values statusPeek saw in it, holds
// pending-like ones, or when the values were not looked at (peek nil:
// Parquet).
func (m *merger) warnLayout(columns []string, part map[string]string, p *plan, peek []string) {
	for _, k := range slices.Sorted(maps.Keys(part)) {
		if slices.Contains(p.names[:], k) && slices.Contains(columns, k) && !slices.Contains(m.warned, k) {
			m.warned = append(m.warned, k)
			m.rep.warn("%q is both a column of the files and a partition key (%s=%s/): the column is read", k, k, part[k])
		}
	}
	if st := p.names[roleStatus]; st != "" && len(p.pending) == 0 && !p.opt.Binned && slices.Contains(columns, st) && !slices.Contains(m.warned, "status") {
		// A status column set with no pending values censors nothing:
		// its pending rows count as settled (issue 15).
		switch {
		case peek == nil:
			m.warned = append(m.warned, "status")
			m.rep.warn(`the status column %q is set (--status) but no pending value (--pending): every row counts as settled; if some are pending, add --pending VALUE`, st)
		case slices.ContainsFunc(peek, pendingLike):
			m.warned = append(m.warned, "status")
			pend := slices.DeleteFunc(slices.Clone(peek), func(v string) bool { return !pendingLike(v) })
			m.rep.warn(`the status column %q has values %s (values seen: %s), but no pending value is given (--pending): every row counts as settled, those included; add --pending %s`,
				st, strings.Join(pend, ", "), strings.Join(peek, ", "), strings.Join(pend, ","))
		}
	}
	if st := p.names[roleStatus]; st != "" && len(p.pending) > 0 && !p.opt.Binned && !slices.Contains(m.warned, "status") {
		// Pending values given, and others at the file's ends that read
		// as pending too (--pending pending where some rows say
		// processing): those rows count as settled.
		other := slices.DeleteFunc(slices.Clone(peek), func(v string) bool {
			return !pendingLike(v) || slices.Contains(p.pending, v) || slices.Contains(p.exclude, v)
		})
		// A --pending value not seen (a typo) has its own warning once
		// the rows are read, naming the values seen.
		seen := !slices.ContainsFunc(p.pending, func(v string) bool { return !slices.Contains(peek, v) })
		if len(other) > 0 && seen {
			m.warned = append(m.warned, "status")
			m.rep.warn(`the status column %q also has %s (values seen: %s), which %s not among the --pending values (%s): those rows count as settled; if they are still pending, add --pending %s`,
				st, strings.Join(other, ", "), strings.Join(peek, ", "), isAre(len(other)), strings.Join(p.pending, ", "), strings.Join(append(slices.Clone(p.pending), other...), ","))
		}
	}
	if p.names[roleStatus] == "" && !p.opt.Binned && slices.Contains(columns, "status") && !slices.Contains(m.warned, "status") {
		switch {
		case peek == nil:
			m.warned = append(m.warned, "status")
			m.rep.warn(`the input has a "status" column, but no status column is set (--status): every row counts as settled; if some are pending, set --status status --pending VALUE`)
		case slices.ContainsFunc(peek, pendingLike):
			m.warned = append(m.warned, "status")
			pend := slices.DeleteFunc(slices.Clone(peek), func(v string) bool { return !pendingLike(v) })
			m.rep.warn(`the input has a "status" column whose values include %s (values seen: %s), but no status column is set (--status): every row counts as settled, those included; set --status status --pending %s`,
				strings.Join(pend, ", "), strings.Join(peek, ", "), strings.Join(pend, ","))
		}
	}
}

// pendingWords are the status values, compared without case, that say an
// item has not settled yet: a status column holding any of them while no
// status column is set counts pending items as settled.
var pendingWords = []string{"pending", "running", "queued", "in_progress", "in progress", "in-progress", "inprogress",
	"processing", "waiting", "started", "created", "open", "submitted", "scheduled", "new", "initiated", "requires_action"}

// pendingLike reports whether a status value reads as not settled yet
// (pendingWords).
func pendingLike(v string) bool {
	return slices.ContainsFunc(pendingWords, func(w string) bool { return strings.EqualFold(v, w) })
}

// peekRows is how many rows statusPeek reads at each end of an input, and
// maxPeeked the most distinct values it keeps.
const (
	peekRows  = 2000
	maxPeeked = 20
)

// statusPeekColumn is the column statusPeek reads: the status column
// when one is set (its pending values may be missing, issue 15), else the
// one named "status".
func (p *plan) statusPeekColumn() string {
	if st := p.names[roleStatus]; st != "" {
		return st // without --pending, or for pending-like values not in it
	}
	return "status"
}

// statusPeek returns the distinct values of the column named name ("":
// none; p.statusPeekColumn)
// (sorted, at most maxPeeked) in the first peekRows records of head and
// the last ones of tail (nil: none; past its first line break when it
// may start inside a record). The values warn about an unused status
// column (warnLayout) at no cost per row: logs are written in time order,
// so items still pending are the last rows, and the first show what
// settled ones say.
func statusPeek(header []string, name string, delim byte, head, tail []byte) []string {
	col := slices.Index(header, name)
	if name == "" || col < 0 {
		return nil
	}
	vals := []string{}
	read := func(b []byte, last bool) {
		r := csv.NewReader(bytes.NewReader(b))
		r.Comma, r.FieldsPerRecord, r.LazyQuotes, r.ReuseRecord = rune(delim), -1, true, true
		var recs []string
		for len(recs) < peekRows || last {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil || col >= len(rec) {
				continue
			}
			recs = append(recs, strings.TrimSpace(rec[col]))
		}
		if len(recs) > peekRows {
			recs = recs[len(recs)-peekRows:]
		}
		for _, v := range recs {
			if v != "" && !slices.Contains(vals, v) && len(vals) < maxPeeked {
				vals = append(vals, v)
			}
		}
	}
	read(head, false)
	read(tail, true)
	slices.Sort(vals)
	return vals
}

// finish checks that something was read and returns the results.
func (m *merger) finish(name string, p *plan) (*Sample, *Report, error) {
	opt := p.opt
	if m.rep.Dropped == nil {
		m.rep.Dropped = map[string]int{} // "dropped": {} in JSON, not null
	}
	m.rep.Warnings = append(slices.Clone(p.warnings), m.rep.Warnings...)
	m.rep.Unit, m.rep.UnitFrom, m.rep.UnitColumn = p.unit, p.unitFrom, p.unitCol
	if m.typed != 0 && !m.untyped {
		m.rep.Unit, m.rep.UnitFrom, m.rep.UnitColumn = m.typed, UnitFromType, m.typedCol
		if opt.Unit != 0 && opt.Unit != m.typed {
			m.rep.warn("the column %q is a Parquet duration in %s, which is used: the unit set (--unit %s) is not", m.typedCol, m.typed, opt.Unit)
		}
	}
	m.warnCleaning(p)
	// A misspelt status value matches nothing, and its rows then count as
	// settled (or not excluded) without a word: say so.
	seen := ""
	if len(m.statuses) > 0 {
		slices.Sort(m.statuses)
		seen = "; values seen include " + strings.Join(m.statuses, ", ")
	}
	if len(opt.Pending) > 0 && m.rep.Censored == 0 {
		m.rep.warn("no row has a pending status (%s in column %q): nothing is censored%s", strings.Join(opt.Pending, ", "), opt.Status, seen)
	}
	if !opt.ObservedAt.IsZero() && opt.Column != "" && opt.End == "" {
		m.rep.warn("the observation time is not used: pending rows' ages come from the duration column %q", opt.Column)
	}
	if len(opt.ExcludeStatus) > 0 && m.rep.Excluded == 0 {
		m.rep.warn("no row has an excluded status (%s in column %q): nothing was left out%s", strings.Join(opt.ExcludeStatus, ", "), opt.Status, seen)
	}
	if m.rep.Used == 0 {
		rep := m.rep
		return nil, &rep, &ParseError{File: name, RowGroup: -1, Err: fmt.Errorf("%w: %s", ErrNoRows, &rep)}
	}
	if opt.Binned {
		if err := m.checkBins(p); err != nil {
			return nil, nil, err
		}
		if m.rep.Items > MaxBinCount {
			return nil, nil, &ParseError{File: name, RowGroup: -1, Column: p.names[roleCount], Err: fmt.Errorf("%w: the bins hold %g items, more than %d, the most counted exactly", ErrOutOfRange, m.rep.Items, int64(MaxBinCount))}
		}
	}
	if m.rep.Unit != 0 {
		m.warnMagnitude(p.named)
	}
	m.warnEpoch(p)
	m.warnZoneless(p)
	m.warnObserved(p)
	s, rep := m.s, m.rep
	if !m.anyCens {
		s.Censored = nil
	}
	return &s, &rep, nil
}

// warnObserved warns when the observation time (--observed-at) comes
// before rows that settled: the pending rows' ages run to it, so it must
// be no earlier than the last settle instant, or they are too short.
func (m *merger) warnObserved(p *plan) {
	if !p.hasObserved || m.s.Created == nil || m.rep.Censored == 0 {
		return
	}
	late, last := 0, int64(math.MinInt64)
	for i, t := range m.s.Times {
		if m.s.IsCensored(i) {
			continue
		}
		if end := m.s.Created[i] + int64(math.Round(t*1e9)); end > p.observedNs {
			late++
			last = max(last, end)
		}
	}
	if late > 0 {
		m.rep.warn("%s settled after the observation time %s (the last at %s): pending rows' ages run to it, so they are too short; set --observed-at to when the log was taken",
			howMany(late, "row"), fmtNanos(p.observedNs), fmtNanos(last))
	}
}

// formatFloat formats v so that parsing gives v back.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ParseSeconds parses one duration value: a number in units of
// unitSeconds seconds, or a Go duration string ("1.5s", "2m"). It rejects
// empty, NaN, infinite and negative values with the matching sentinel
// error. Numbers in units shorter than a second are divided, not
// multiplied: ParseSeconds("1234", 0.001) is exactly ParseSeconds("1.234", 1).
func ParseSeconds(s string, unitSeconds float64) (float64, error) {
	v, err := parseSigned(s, newScale(unitSeconds))
	if err == nil && v < 0 {
		return 0, fmt.Errorf("%w: %s", ErrNegative, quote(strings.TrimSpace(s)))
	}
	return v, err
}

// parseSigned is ParseSeconds without the sign check. A decimal number in
// a unit of 10^-k s is parsed with its decimal point moved k places (its
// exponent lowered by k), so that it rounds once, as the same value
// written in seconds does.
func parseSigned(s string, sc scale) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, ErrEmptyValue
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%w: %s", ErrNotFinite, quote(s))
		}
		d, derr := time.ParseDuration(s)
		if derr != nil {
			return 0, fmt.Errorf("%w: %s%s", ErrNotNumber, quote(s), decimalCommaHint(s))
		}
		return d.Seconds(), nil
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %s", ErrNotFinite, quote(s))
	}
	if sc.shift > 0 {
		if w, ok := shiftDecimal(s, sc.shift); ok {
			return w, nil
		}
	}
	v = sc.of(v)
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %s", ErrNotFinite, quote(s))
	}
	return v, nil
}

// decimalCommaHint says how to write s, a number that failed to parse,
// when it looks written with a decimal comma ("1,5", "-0,25"), as
// European spreadsheets export it; "" otherwise. Three digits after the
// comma may be a thousands separator instead ("1,234").
func decimalCommaHint(s string) string {
	t := strings.TrimLeft(s, "+-")
	i := strings.IndexByte(t, ',')
	if i < 0 || len(s)-len(t) > 1 {
		return ""
	}
	whole, frac := t[:i], t[i+1:]
	for _, part := range []string{whole, frac} {
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return ""
		}
	}
	point := s[:len(s)-len(t)] + whole + "." + frac
	if len(frac) == 3 {
		return fmt.Sprintf(": a decimal comma or a thousands separator? write %s or %s", point, s[:len(s)-len(t)]+whole+frac)
	}
	return fmt.Sprintf(": a decimal comma? write decimal points, as in %s", point)
}

// shiftDecimal parses the decimal number s divided by 10^k, rounding once;
// ok is false for what is not a plain decimal (hex, inf, nan).
func shiftDecimal(s string, k int) (float64, bool) {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e < -1e6 || e > 1e6 {
			return 0, false
		}
		mant, exp = s[:i], e
	}
	for i := 0; i < len(mant); i++ {
		c := mant[i]
		if !(c >= '0' && c <= '9' || c == '.' || (i == 0 && (c == '-' || c == '+'))) {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(mant+"e"+strconv.Itoa(exp-k), 64)
	return v, err == nil
}

// negatives counts negative durations and keeps the most negative.
type negatives struct {
	n      int
	lowest float64
}

// note counts v.
func (c *negatives) note(v float64) {
	if c.n == 0 || v < c.lowest {
		c.lowest = v
	}
	c.n++
}

// add counts o's too.
func (c *negatives) add(o negatives) {
	if o.n == 0 {
		return
	}
	if c.n == 0 || o.lowest < c.lowest {
		c.lowest = o.lowest
	}
	c.n += o.n
}

// isAre is "is" for one, "are" for more.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
