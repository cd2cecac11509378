package ingest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pollfit/pollfit/internal/bulk"
)

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
	interval   bool        // plan.interval: the sample holds Lower
	// typed is the unit of the Parquet duration columns read; untyped
	// is set when some input's duration column holds bare numbers or
	// text instead.
	typed    Unit
	typedCol string
	untyped  bool
	// polls are a poll log's polls, in input order, and pollStarts their
	// items' starts (with a start column): pollItems makes them items.
	polls      []pollRow
	pollStarts []int64
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
	if m.interval && m.s.Lower == nil {
		m.s.Lower = bulk.Make[float64](len(m.s.Times), c)
	}
	m.s.Times = regrow(m.s.Times, c)
	m.s.Created = regrow(m.s.Created, c)
	m.s.Lower = regrow(m.s.Lower, c)
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
		if m.interval {
			per += LowerBytesPerRow
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
	if m.interval {
		if len(b.lower) != len(b.times) {
			panic(fmt.Sprintf("ingest: a batch of %d items has %d lower bounds", len(b.times), len(b.lower)))
		}
		if m.s.Lower == nil {
			m.s.Lower = bulk.Make[float64](n0, cap(m.s.Times))
		}
		m.s.Lower = appendInPlace(m.s.Lower, b.lower)
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
	if len(b.polls) > 0 {
		if err := m.addPolls(b); err != nil {
			return err
		}
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
	m.rep.Intervals += b.intervals
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

// finish checks that something was read and returns the results.
func (m *merger) finish(name string, p *plan) (*Sample, *Report, error) {
	opt := p.opt
	if m.rep.Dropped == nil {
		m.rep.Dropped = map[string]int{} // "dropped": {} in JSON, not null
	}
	if p.polls {
		m.pollItems(p)
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
	if len(opt.Pending) > 0 && m.rep.Censored == 0 && !p.polls { // poll logs: warnPolls
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
	m.warnDiscovery(p)
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
