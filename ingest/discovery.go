package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// A client that logs when it saw an item settled logs a discovery time: the
// age of the poll that found it settled, one of its schedule's few poll
// ages, not the settle time, which lies between that poll and the one
// before. Fitted as settle times, discovery times learn the old schedule
// (an "atom" at each of its poll ages), and nothing else in the fit says
// so. warnDiscovery tells them apart from settle times that are merely
// rounded: both repeat a few values, but rounded times fill the rounding
// grid between their values, while a schedule's poll ages (0, 3, 8, 16,
// 29 s, every 15 s to 2 m, …) leave most of its points empty.

// Thresholds of the discovery-time warning.
const (
	discoverySample  = 4096 // settled rows looked at, evenly spaced
	discoveryMinRows = 50   // fewer settled rows are not judged
	discoveryValues  = 30   // at most this many values …
	discoveryShare   = 0.9  // … hold at least this share of the rows looked at
	discoveryFill    = 0.5  // and fill less than this share of their grid
)

// warnDiscovery warns when the settle times (exact ones: not binned, no
// intervals) sit on few distinct values spaced like a schedule's poll
// ages: most rows on at most discoveryValues values, which occupy less
// than half of the grid points between the smallest and the largest of
// them (the grid's step is the greatest common divisor of their
// differences, to the microsecond). It looks at up to discoverySample
// settled rows, evenly spaced.
func (m *merger) warnDiscovery(p *plan) {
	s := &m.s
	if p.opt.Binned || s.Lower != nil {
		return
	}
	settled := s.Len() - m.rep.Censored
	if settled < discoveryMinRows {
		return
	}
	step := max(1, settled/discoverySample)
	counts := map[float64]int{}
	looked, k := 0, 0
	for i, t := range s.Times {
		if s.IsCensored(i) {
			continue
		}
		if k%step == 0 {
			counts[t]++
			looked++
		}
		k++
	}
	type value struct {
		t float64
		n int
	}
	vals := make([]value, 0, len(counts))
	for t, n := range counts {
		vals = append(vals, value{t, n})
	}
	slices.SortFunc(vals, func(a, b value) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.t, b.t)
	})
	top, held := 0, 0
	for top < len(vals) && top < discoveryValues && float64(held) < discoveryShare*float64(looked) {
		held += vals[top].n
		top++
	}
	if top < 3 || float64(held) < discoveryShare*float64(looked) {
		return // one or two atoms are batches, not a schedule
	}
	ages := make([]float64, top)
	for i := range ages {
		ages[i] = vals[i].t
	}
	slices.Sort(ages)
	var g int64
	for i := 1; i < len(ages); i++ {
		g = gcd(g, int64(math.Round((ages[i]-ages[0])*1e6)))
	}
	if g <= 0 {
		return
	}
	points := float64(int64(math.Round((ages[top-1]-ages[0])*1e6))/g) + 1
	if float64(top) >= discoveryFill*points {
		return // the values fill their grid: rounded settle times
	}
	shown := make([]string, 0, 6)
	for _, a := range ages[:min(len(ages), 6)] {
		shown = append(shown, fmtAge(a))
	}
	if len(ages) > 6 {
		shown = append(shown, "…")
	}
	col := "the settle times"
	if p.names[roleDur] != "" {
		col = fmt.Sprintf("column %s", quote(p.names[roleDur]))
	}
	m.rep.warn("%.3g%% of the settled rows of %s sit on %d values (%s) spaced like a poll schedule's ages: they look like discovery times, the ages at which a poller saw each item settled, not settle times, and fitting them learns that schedule; if the log has the age of each item's last poll that saw it pending, give it with --settled-after COLUMN (the settled age is then the upper bound), or read the poll log itself (--id)",
		100*float64(held)/float64(looked), col, top, strings.Join(shown, ", "))
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// fmtAge formats an age in seconds for a warning: 3s, 1m14s, 0.5s.
func fmtAge(t float64) string {
	return time.Duration(math.Round(t * 1e9)).String()
}
