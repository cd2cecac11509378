package ingest

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// Interval timestamps (ReadOptions.LastPending and FirstSettled) are what
// a client's poller logs of an item once it is done with it: when it
// started, when its last poll that saw the item pending was made, and when
// its first that saw it settled was. Counted from the start, the item
// settled in (lastPending − start, firstSettled − start]: an
// interval-censored observation (Turnbull 1976), which the reader puts in
// Sample.Lower and Sample.Times. The columns take the roles of binned
// input's bounds (roleLower, roleUpper), read as timestamps.

// stampsPlan checks the options of interval timestamps and sets the
// plan's columns for them.
func (p *plan) stampsPlan() error {
	o := &p.opt
	switch {
	case o.LastPending == "" || o.FirstSettled == "":
		return fmt.Errorf("%w: interval timestamps need both columns: the last poll that saw the item pending (--last-pending) and the first that saw it settled (--first-settled)", ErrOption)
	case o.Start == "":
		return fmt.Errorf("%w: --last-pending and --first-settled are timestamps: give the items' start timestamps too (--start), from which their ages count", ErrOption)
	case o.Column != "" || o.End != "":
		return fmt.Errorf("%w: with --last-pending and --first-settled the settle time is an interval of their ages: --column and --end do not apply", ErrOption)
	case !o.ObservedAt.IsZero():
		return fmt.Errorf("%w: a pending item is censored at its last pending poll (--last-pending): --observed-at does not apply", ErrOption)
	}
	// plan.interval makes the merger hold Sample.Lower, as for
	// ReadOptions.SettledAfter; the rows are read by stampsItem.
	p.stamps, p.created, p.interval = true, true, true
	p.names[roleDur], p.names[roleStart], p.names[roleEnd] = "", o.Start, ""
	p.names[roleLower], p.names[roleUpper] = o.LastPending, o.FirstSettled
	return nil
}

// stampsItem turns a row of interval timestamps into an item of b: its
// lower bound in b.lower, its upper bound (or its age at the last pending
// poll, censored) in b.times.
func (p *plan) stampsItem(b *batch, c *[nRoles]cell) (role, error) {
	pending := false
	if p.names[roleStatus] != "" {
		st := trimSpace(c[roleStatus].b)
		if !utf8.Valid(st) {
			return roleStatus, fmt.Errorf("%w: found %s", ErrNotUTF8, quote(st))
		}
		if (b.read <= 64 || b.read&63 == 1) && len(b.statuses) < maxStatuses && !slices.Contains(b.statuses, unsafeString(st)) {
			b.statuses = append(b.statuses, string(st))
		}
		if slices.Contains(p.exclude, unsafeString(st)) {
			b.excluded++
			return 0, nil
		}
		pending = slices.Contains(p.pending, unsafeString(st))
	}
	start, err := p.instant(b, roleStart, &c[roleStart])
	if err != nil {
		return roleStart, err
	}
	if !b.hasFirst {
		b.first, b.hasFirst = start, true
	}
	// An empty last-pending time: the first poll found the item settled,
	// which bounds it below by its start.
	last := start
	if !emptyCell(&c[roleLower]) {
		if last, err = p.instant(b, roleLower, &c[roleLower]); err != nil {
			return roleLower, err
		}
	}
	if last < start {
		if mix := p.epochMix(start, last); mix != "" {
			return roleLower, fmt.Errorf("%w: the last pending poll %s is before the start %s%s", ErrBadTimestamp, fmtNanos(last), fmtNanos(start), mix)
		}
		if !p.zeroNeg {
			b.negative = float64(last-start) / 1e9
			return roleLower, fmt.Errorf("%w: start %s, last pending poll %s", ErrEndBeforeStart, fmtNanos(start), fmtNanos(last))
		}
		b.zeroed.note(float64(last-start) / 1e9)
		last = start
	}
	lo := last - start
	if lo < 0 {
		return roleLower, fmt.Errorf("%w: start %s, last pending poll %s are more than 292 years apart", ErrOutOfRange, fmtNanos(start), fmtNanos(last))
	}
	hi := lo
	switch {
	case emptyCell(&c[roleUpper]):
		if emptyCell(&c[roleLower]) {
			return roleLower, fmt.Errorf("%w: a row needs the last poll that saw the item pending, or the first that saw it settled", ErrEmptyValue)
		}
		pending = true // no settled poll: pending at the last one
	case pending:
		// The status says pending: the settled time, if any, is not used.
	default:
		first, err := p.instant(b, roleUpper, &c[roleUpper])
		if err != nil {
			return roleUpper, err
		}
		if first < last {
			return roleUpper, fmt.Errorf("%w: the first poll that saw the item settled, at %s, is before the last that saw it pending, at %s", ErrBadInterval, fmtNanos(first), fmtNanos(last))
		}
		if hi = first - start; hi < 0 {
			return roleUpper, fmt.Errorf("%w: start %s, first settled poll %s are more than 292 years apart", ErrOutOfRange, fmtNanos(start), fmtNanos(first))
		}
	}
	var seg int32
	if p.hasSeg {
		s := trimSpace(c[roleSegment].b)
		if !utf8.Valid(s) {
			return roleSegment, fmt.Errorf("%w: found %s", ErrNotUTF8, quote(s))
		}
		seg = b.segment(s)
	}
	if p.dedupe {
		h, err := idOf(&c[roleID])
		if err != nil {
			return roleID, err
		}
		b.ids = append(b.ids, h)
	}
	b.push(float64(hi)/1e9, pending, 1, false, seg, p.hasSeg)
	b.lower = append(b.lower, float64(lo)/1e9)
	b.created = append(b.created, start)
	if lo < hi {
		b.intervals++
	}
	b.used++
	if pending {
		b.censored++
	}
	return 0, nil
}

// emptyCell reports whether a cell holds no value: a null, or blank text.
func emptyCell(c *cell) bool {
	return c.kind == cellEmpty || c.kind == cellText && len(trimSpace(c.b)) == 0
}
