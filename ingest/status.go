package ingest

import (
	"bytes"
	"encoding/csv"
	"io"
	"maps"
	"slices"
	"strings"
)

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
		// its pending rows count as settled, silently but for this warning.
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
// when one is set (its pending values may be missing: then no row is
// censored), else the
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

// isAre is "is" for one, "are" for more.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
