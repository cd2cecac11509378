package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pollfit/pollfit/internal/bulk"
)

// A poll log (ReadOptions.PollID) has one row per poll a client made: the
// item's id, the poll's age or instant, and the status it saw. The reader
// keeps every poll, in input order, as a pollRow of PollBytesPerRow bytes;
// once the input is read it sorts them by id (pdqsort on the id's 64-bit
// hash, then input order) and turns each id's polls into one item
// (pollItems):
//
//	Times[i] = R = the age of the first poll that saw the item settled
//	Lower[i] = L = the age of the last poll before it that saw it pending,
//	               0 when there is none (the first poll found it settled)
//
// so that it settled in (L, R]. An id with no settled poll is pending at
// its last poll: right-censored there, with Lower[i] = Times[i]. These are
// the interval-censored observations of Turnbull (1976). The checks that
// a log of polls needs are counted (PollCounts): polls out of order in
// the input (sorted by age per id), a settled poll followed by a pending
// one (the first settled poll counts: an item does not come back from a
// terminal status, so a later "pending" is a stale read or a retry), two
// polls of one id at one age, and ids polled only once.

// PollBytesPerRow is the memory a poll row of a poll log takes while the
// log is read and grouped by id (docs/performance.md measures it): the
// id's 64-bit hash, the poll's age or instant in nanoseconds, its input
// position with the status bit and its segment. Poll logs with a start
// column (ReadOptions.Start) hold the start of each poll's item too:
// CreatedBytesPerRow more. The items made of the polls take what the
// sample takes, BytesPerRow, CreatedBytesPerRow with timestamps, and the
// lower bounds' 8 bytes, per id.
const PollBytesPerRow = 24

// maxPolls is the most polls one read takes: a poll's input position is
// 31 bits of pollRow.key.
const maxPolls = 1<<31 - 1

// pollRow is one poll of a poll log.
type pollRow struct {
	id uint64 // the id's hash (idOf)
	// at is the poll's age in nanoseconds (a duration column, or its
	// timestamp less its start), or its instant in Unix nanoseconds (a
	// timestamp without a start column: ages count from the id's first
	// poll).
	at int64
	// key is the poll's position in the input, shifted left once, with
	// the low bit set when the poll saw the item settled: input order
	// sorts by key alone. It is 0 in a batch, set when merged.
	key uint32
	seg int32 // segment label: batch-local in a batch, the sample's once merged
}

// settled reports whether the poll saw the item settled.
func (r *pollRow) settled() bool { return r.key&1 == 1 }

// PollCounts count what reading a poll log (ReadOptions.PollID) found:
// how its polls became items, and the checks made on the way. Each is
// reported on stderr with the input counts (Report.String) and, where it
// matters, in a warning.
type PollCounts struct {
	// Items is the number of ids, one item each; Settled of them had a
	// settled poll, the others are right-censored at their last poll.
	Items   int `json:"items"`
	Settled int `json:"settled"`
	// OutOfOrder counts the polls that came in the input after a poll of
	// their id with a later age, in OutOfOrderItems ids: their polls are
	// sorted by age before the interval is taken.
	OutOfOrder      int `json:"out_of_order,omitempty"`
	OutOfOrderItems int `json:"out_of_order_items,omitempty"`
	// SettledThenPending counts the ids with a pending poll after their
	// first settled one: the first settled poll counts, the later pending
	// ones are ignored.
	SettledThenPending int `json:"settled_then_pending,omitempty"`
	// Duplicates counts the polls at the age of an earlier poll of their
	// id (after sorting); when the two saw different statuses, the
	// settled one counts.
	Duplicates int `json:"duplicates,omitempty"`
	// OnePoll counts the ids polled once: an interval from 0 (or the
	// first poll) to that poll, or censored at it.
	OnePoll int `json:"one_poll,omitempty"`
	// PendingPolls counts the polls that saw their item pending.
	PendingPolls int `json:"pending_polls"`
}

// String gives the checks' counts, or "" when every one is 0:
// "3 polls out of order in 2 items (sorted), 1 item settled then
// pending (the first settled poll counts), 2 duplicate polls, 4 items
// polled once".
func (c *PollCounts) String() string {
	var parts []string
	if c.OutOfOrder > 0 {
		parts = append(parts, fmt.Sprintf("%s out of order in %s (sorted by age)", howMany(c.OutOfOrder, "poll"), howMany(c.OutOfOrderItems, "item")))
	}
	if c.SettledThenPending > 0 {
		parts = append(parts, fmt.Sprintf("%s settled then pending (the first settled poll counts)", howMany(c.SettledThenPending, "item")))
	}
	if c.Duplicates > 0 {
		parts = append(parts, fmt.Sprintf("%s at the age of another of the item's (one counted, a settled one first)", howMany(c.Duplicates, "duplicate poll")))
	}
	if c.OnePoll > 0 {
		parts = append(parts, fmt.Sprintf("%s polled once", howMany(c.OnePoll, "item")))
	}
	return strings.Join(parts, ", ")
}

// observed reports whether o reads poll logs or interval timestamps,
// the forms observedPlan checks.
func (o *ReadOptions) observed() bool {
	return o.PollID != "" || o.PolledAt != "" || o.LastPending != "" || o.FirstSettled != ""
}

// observedPlan checks the options of the two forms of what a client's
// poller saw (a poll log; the last-pending and first-settled timestamps
// of each item) and sets the plan's columns for them. newPlan calls it
// last.
func (p *plan) observedPlan() error {
	o := &p.opt
	switch {
	case o.Binned:
		return fmt.Errorf("%w: binned input takes no poll log (--id, --polled-at) or interval timestamps (--last-pending, --first-settled)", ErrOption)
	case (o.PollID != "" || o.PolledAt != "") && (o.LastPending != "" || o.FirstSettled != ""):
		return fmt.Errorf("%w: a poll log (--id) has one row per poll, interval timestamps (--last-pending, --first-settled) one row per item: give one of the two", ErrOption)
	case o.LastPending != "" || o.FirstSettled != "":
		return p.stampsPlan()
	}
	switch {
	case o.PollID == "":
		return fmt.Errorf("%w: --polled-at names the poll timestamps of a poll log: give the item id column too (--id)", ErrOption)
	case o.Column != "" && o.PolledAt != "":
		return fmt.Errorf("%w: a poll's age comes from a duration column (--column) or its timestamp (--polled-at), not both", ErrOption)
	case o.Column == "" && o.PolledAt == "":
		return fmt.Errorf("%w: a poll log (--id) needs each poll's age (--column, a duration) or its timestamp (--polled-at, ages then count from --start, or from the item's first poll)", ErrOption)
	case o.End != "":
		return fmt.Errorf("%w: a poll log takes no end column (--end): each poll's status says whether it saw the item settled", ErrOption)
	case o.Status == "":
		return fmt.Errorf("%w: a poll log (--id) needs the status each poll saw (--status, with the pending values in --pending)", ErrOption)
	case len(o.Pending) == 0:
		return fmt.Errorf("%w: a poll log (--id) needs the status values of polls that found the item pending (--pending); every other status is a settle", ErrOption)
	case o.Dedupe != "":
		return fmt.Errorf("%w: a poll log has several rows per id by design: --dedupe does not apply (--id groups them)", ErrOption)
	case !o.ObservedAt.IsZero():
		return fmt.Errorf("%w: a poll log's pending items are censored at their last poll: --observed-at does not apply", ErrOption)
	}
	p.polls, p.created = true, false
	p.names[roleDur], p.names[roleStart], p.names[roleEnd], p.names[roleID] = o.Column, o.Start, o.PolledAt, o.PollID
	return nil
}

// poll reads one row of a poll log into b.polls (and, with a start
// column, its start into b.created).
func (p *plan) poll(b *batch, c *[nRoles]cell) (role, error) {
	st := trimSpace(c[roleStatus].b)
	if !utf8.Valid(st) {
		return roleStatus, fmt.Errorf("%w: found %s", ErrNotUTF8, quote(st))
	}
	if len(st) == 0 {
		return roleStatus, fmt.Errorf("%w: a poll's status says whether it saw the item pending or settled", ErrEmptyValue)
	}
	if (b.read <= 64 || b.read&63 == 1) && len(b.statuses) < maxStatuses && !slices.Contains(b.statuses, unsafeString(st)) {
		b.statuses = append(b.statuses, string(st))
	}
	if slices.Contains(p.exclude, unsafeString(st)) {
		b.excluded++
		return 0, nil
	}
	settled := !slices.Contains(p.pending, unsafeString(st))
	id, err := idOf(&c[roleID])
	if err != nil {
		return roleID, err
	}
	var at, start int64
	switch {
	case p.names[roleDur] != "":
		t, err := p.seconds(&c[roleDur])
		if err != nil {
			return roleDur, err
		}
		if t < 0 {
			if !p.zeroNeg {
				b.negative = t
				return roleDur, negativeError(&c[roleDur])
			}
			b.zeroed.note(t)
			t = 0
		}
		ns := math.Round(t * 1e9)
		if !(ns < 1<<63) {
			return roleDur, fmt.Errorf("%w: a poll age of %s s is beyond 292 years, the most nanoseconds in an int64 hold", ErrOutOfRange, formatFloat(t))
		}
		at = int64(ns)
	default:
		if at, err = p.instant(b, roleEnd, &c[roleEnd]); err != nil {
			return roleEnd, err
		}
	}
	if p.names[roleStart] != "" {
		if start, err = p.instant(b, roleStart, &c[roleStart]); err != nil {
			return roleStart, err
		}
	}
	if !b.hasFirst && (p.names[roleStart] != "" || p.names[roleEnd] != "") {
		b.first, b.hasFirst = start, true
		if p.names[roleStart] == "" {
			b.first = at
		}
	}
	if p.names[roleStart] != "" && p.names[roleEnd] != "" {
		if at < start {
			if mix := p.epochMix(start, at); mix != "" {
				return roleEnd, fmt.Errorf("%w: the poll %s is before the start %s%s", ErrBadTimestamp, fmtNanos(at), fmtNanos(start), mix)
			}
			if !p.zeroNeg {
				b.negative = float64(at-start) / 1e9
				return roleEnd, fmt.Errorf("%w: start %s, polled at %s", ErrEndBeforeStart, fmtNanos(start), fmtNanos(at))
			}
			b.zeroed.note(float64(at-start) / 1e9)
			at = start
		}
		d := at - start
		if d < 0 {
			return roleEnd, fmt.Errorf("%w: start %s, polled at %s are more than 292 years apart", ErrOutOfRange, fmtNanos(start), fmtNanos(at))
		}
		at = d
	}
	var seg int32
	if p.hasSeg {
		s := trimSpace(c[roleSegment].b)
		if !utf8.Valid(s) {
			return roleSegment, fmt.Errorf("%w: found %s", ErrNotUTF8, quote(s))
		}
		seg = b.segment(s)
	}
	var key uint32
	if settled {
		key = 1
	}
	b.polls = append(b.polls, pollRow{id: id, at: at, key: key, seg: seg})
	if p.names[roleStart] != "" {
		b.created = append(b.created, start)
	}
	b.used++
	return 0, nil
}

// reservePolls makes room for n more polls, so that appending them does
// not copy the polls again and again (growing 10⁷ of them by append
// peaked at 72 bytes a poll).
func (m *merger) reservePolls(n int) {
	if n > 0 && cap(m.polls)-len(m.polls) < n {
		m.polls = growTo(m.polls, len(m.polls)+n)
	}
}

// growTo returns s with capacity c, made when s is nil (regrow keeps a
// nil column nil).
func growTo[E any](s []E, c int) []E {
	if s == nil {
		return bulk.Make[E](0, c)
	}
	return regrow(s, c)
}

// addPolls appends b's polls to the merger's, in input order, their
// segment labels made the sample's (addLabels has set m.remap). It fails
// with ErrTooManyRows when growing the polls would take more than the
// memory available, or past maxPolls.
func (m *merger) addPolls(b *batch) error {
	n := len(m.polls)
	if n+len(b.polls) > maxPolls {
		return fmt.Errorf("%w: more than %d polls in one read", ErrTooManyRows, maxPolls)
	}
	if need := n + len(b.polls); need > cap(m.polls) {
		c := max(need, cap(m.polls)+cap(m.polls)/4)
		per := int64(PollBytesPerRow)
		if b.created != nil {
			per += CreatedBytesPerRow
		}
		if bytes := float64(c+cap(m.polls)) * float64(per); m.memLimit > 0 && bytes > float64(m.memLimit) {
			return fmt.Errorf("%w: holding %d polls and growing to %d would take %.3g GiB, more than the %.3g GiB of memory available: read a sample of the input",
				ErrTooManyRows, n, c, bytes/(1<<30), float64(m.memLimit)/(1<<30))
		}
		m.polls = growTo(m.polls, c)
		if b.created != nil {
			m.pollStarts = growTo(m.pollStarts, c)
		}
	}
	if b.created != nil && cap(m.pollStarts) < cap(m.polls) {
		m.pollStarts = growTo(m.pollStarts, cap(m.polls))
	}
	for i, r := range b.polls {
		r.key |= uint32(n+i) << 1
		if len(b.segNames) > 0 {
			r.seg = m.remap[r.seg]
		}
		m.polls = append(m.polls, r)
	}
	m.pollStarts = append(m.pollStarts, b.created...)
	return nil
}

// pollItems turns the polls read into the sample's items, one per id
// (see the comment at the top of this file), in the order of their first
// poll in the input, and counts the checks in m.rep.Polls.
func (m *merger) pollItems(p *plan) {
	polls := m.polls
	m.polls = nil
	starts := m.pollStarts
	m.pollStarts = nil
	slices.SortFunc(polls, func(a, b pollRow) int {
		if c := cmp.Compare(a.id, b.id); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	var c PollCounts
	ids := 0
	for i := 0; i < len(polls); {
		j := i + 1
		for j < len(polls) && polls[j].id == polls[i].id {
			j++
		}
		ids++
		i = j
	}
	// Item k is written over polls[k], which is no later than its
	// group's first poll, so it never overwrites a poll not yet read:
	// its lower bound's nanoseconds in id, its upper in at, its first
	// poll's input position and censoring in key. With timestamps, its
	// creation instant goes to created[k].
	timed := starts != nil || p.names[roleEnd] != ""
	var created []int64
	if timed {
		created = bulk.Make[int64](ids, ids)
	}
	k := 0
	for i := 0; i < len(polls); k++ {
		j := i + 1
		for j < len(polls) && polls[j].id == polls[i].id {
			j++
		}
		g := polls[i:j]
		first, seg := g[0].key>>1, g[0].seg
		var start int64
		if starts != nil {
			start = starts[first]
		}
		sorted := true
		for x := 1; x < len(g); x++ {
			if g[x].at < g[x-1].at {
				c.OutOfOrder++
				sorted = false
			}
		}
		if !sorted {
			c.OutOfOrderItems++
			slices.SortStableFunc(g, func(a, b pollRow) int { return cmp.Compare(a.at, b.at) })
		}
		origin := int64(0)
		if starts == nil && p.names[roleEnd] != "" {
			origin = g[0].at // ages count from the id's first poll
		}
		// The first settled poll by age gives the upper bound; the last
		// pending poll below its age the lower (a pending poll at the
		// settled poll's own age is a duplicate, and the settled one
		// counts).
		upper, cens := int64(-1), false
		for x := range g {
			if x > 0 && g[x].at == g[x-1].at {
				c.Duplicates++
			}
			if !g[x].settled() {
				c.PendingPolls++
			} else if upper < 0 {
				upper = g[x].at
			}
		}
		lower := origin
		if upper >= 0 {
			late := false
			for x := range g {
				if a := g[x].at; !g[x].settled() {
					if a < upper {
						lower = max(lower, a)
					} else if a > upper {
						late = true
					}
				}
			}
			if late {
				c.SettledThenPending++
			}
			c.Settled++
		} else {
			upper, lower, cens = g[len(g)-1].at, g[len(g)-1].at, true
		}
		if len(g) == 1 {
			c.OnePoll++
		}
		if timed {
			if starts != nil {
				created[k] = start
			} else {
				created[k] = origin
			}
		}
		key := first << 1
		if cens {
			key |= 1
		}
		polls[k] = pollRow{id: uint64(lower - origin), at: upper - origin, key: key, seg: seg}
		i = j
	}
	items := polls[:k]
	if timed {
		sort.Sort(itemsByFirst{items, created})
	} else {
		slices.SortFunc(items, func(a, b pollRow) int { return cmp.Compare(a.key, b.key) })
	}
	c.Items = len(items)
	s := Sample{
		Times:        bulk.Make[float64](len(items), len(items)),
		Lower:        bulk.Make[float64](len(items), len(items)),
		Created:      created,
		SegmentNames: m.s.SegmentNames,
	}
	if c.Items > c.Settled {
		s.Censored = bulk.Make[bool](len(items), len(items))
	}
	if p.hasSeg {
		if len(s.SegmentNames) > 1<<8 {
			s.Segment = bulk.Make[int32](len(items), len(items))
		} else {
			s.Segment8 = bulk.Make[uint8](len(items), len(items))
		}
	}
	intervals := 0
	for i, it := range items {
		s.Times[i] = float64(it.at) / 1e9
		s.Lower[i] = float64(int64(it.id)) / 1e9
		if s.Lower[i] < s.Times[i] {
			intervals++
		}
		if it.key&1 == 1 {
			s.Censored[i] = true
		}
		switch {
		case s.Segment != nil:
			s.Segment[i] = it.seg
		case s.Segment8 != nil:
			s.Segment8[i] = uint8(it.seg)
		}
	}
	m.s = s
	m.anyCens = s.Censored != nil
	m.rep.Censored = c.Items - c.Settled
	m.rep.Intervals = intervals
	m.rep.Polls = &c
	m.warnPolls(p, &c)
}

// itemsByFirst sorts the items of a poll log by their first poll, with
// their creation instants.
type itemsByFirst struct {
	items   []pollRow
	created []int64
}

func (x itemsByFirst) Len() int           { return len(x.items) }
func (x itemsByFirst) Less(i, j int) bool { return x.items[i].key < x.items[j].key }
func (x itemsByFirst) Swap(i, j int) {
	x.items[i], x.items[j] = x.items[j], x.items[i]
	x.created[i], x.created[j] = x.created[j], x.created[i]
}

// warnPolls warns about what a person should look at in a poll log: no
// pending poll at all (a misspelt --pending makes every poll a settle),
// no settled one, and the checks that touched more than a few items.
func (m *merger) warnPolls(p *plan, c *PollCounts) {
	seen := ""
	if len(m.statuses) > 0 {
		slices.Sort(m.statuses)
		seen = "; values seen include " + strings.Join(m.statuses, ", ")
	}
	switch {
	case c.Items == 0:
	case c.PendingPolls == 0:
		m.rep.warn("no poll has a pending status (%s in column %q): every poll counts as having seen its item settled, so each item settled by its first poll%s", strings.Join(p.opt.Pending, ", "), p.opt.Status, seen)
	case c.Settled == 0:
		m.rep.warn("no poll saw its item settled: every item is censored at its last poll (only %s in column %q count as pending%s)", strings.Join(p.opt.Pending, ", "), p.opt.Status, seen)
	}
	if c.SettledThenPending > 0 {
		m.rep.warn("%s %s polled pending after a poll that saw it settled: the first settled poll counts (a stale read or a retry after the answer?)", howMany(c.SettledThenPending, "item"), wereOf(c.SettledThenPending))
	}
	if c.OutOfOrder > 0 {
		m.rep.warn("%s came after a later poll of the same item in the input: each item's polls were sorted by age", howMany(c.OutOfOrder, "poll"))
	}
	if c.Items > 0 && c.OnePoll*2 > c.Items {
		m.rep.warn("%d of the %d items were polled once: is %q the item's id, not the poll's?", c.OnePoll, c.Items, p.opt.PollID)
	}
}
