package ingest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

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
	reasonInterval
	nReasons
)

var reasonNames = [nReasons]string{
	"empty", "not a number", "not finite", "negative", "bad timestamp",
	"end before start", "no observation time", "wrong field count", "invalid utf-8", "bad bin",
	"duplicate id", "out of range", "pending after settled",
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
	case errors.Is(err, ErrBadInterval):
		return reasonInterval, true
	}
	return 0, false
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
	if p.polls {
		return p.poll(b, c)
	}
	if p.stamps {
		return p.stampsItem(b, c)
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
