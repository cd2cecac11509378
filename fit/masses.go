package fit

import (
	"sort"

	"github.com/pollfit/pollfit/internal/bulk"
)

// masses are the probability masses of the settled items t of a fit, in
// one of three forms:
//
//   - neither field set: 1/len(t) each (an uncensored sample);
//   - item: one mass an item (weighted samples, which are small);
//   - T and at, for t sorted: every item at time T[r] has mass at[r].
//
// The last is the Kaplan–Meier form: an item settled at t_j carries
// S(t_j−)/n_j, the same for every item tied at t_j, so a table of the
// distinct event times (10⁶ for 10⁷ items at millisecond resolution)
// stands for an array the size of the sample (8 bytes an item). Each item's
// mass read from the table is the same float as the array held.
type masses struct {
	item  []float64
	T, at []float64
}

// perItem returns the masses as one an item of t (nil: 1/len(t) each).
// The table form costs an array the size of t: for small samples and the
// paths that need random access to every item.
func (m masses) perItem(t []float64) []float64 {
	if m.T == nil {
		return m.item
	}
	out := bulk.Make[float64](len(t), len(t))
	c := m.cursor(t, 0)
	for i := range t {
		out[i] = c.of(i)
	}
	return out
}

// one returns the mass of item i of t, looking a table up by binary
// search: for sparse (strided) reads.
func (m masses) one(t []float64, i int) float64 {
	switch {
	case m.T != nil:
		return m.at[sort.SearchFloat64s(m.T, t[i])]
	case m.item != nil:
		return m.item[i]
	}
	return 1 / float64(len(t))
}

// cursor returns a massCursor positioned at item i of t.
func (m masses) cursor(t []float64, i int) massCursor {
	c := massCursor{m: m, t: t, unit: 1 / float64(len(t))}
	if m.T != nil && i < len(t) {
		c.r = sort.SearchFloat64s(m.T, t[i])
	}
	return c
}

// massCursor reads the masses of items in increasing order of index
// (hence of time, for the table form) in O(1) each.
type massCursor struct {
	m    masses
	t    []float64
	r    int // table row of the last item read
	unit float64
}

// of returns item i's mass; i must not be below the last i read.
func (c *massCursor) of(i int) float64 {
	switch {
	case c.m.T != nil:
		v := c.t[i]
		for c.m.T[c.r] < v {
			c.r++
		}
		return c.m.at[c.r]
	case c.m.item != nil:
		return c.m.item[i]
	}
	return c.unit
}

// scaled returns the masses with the items at the times of scale (the
// exact atoms' values) scaled by its factor, as findAtoms leaves them: a
// table stays a table.
func (m masses) scaled(t []float64, scale map[float64]float64) masses {
	if m.T != nil {
		at := make([]float64, len(m.at))
		for r, v := range m.at {
			if f, ok := scale[m.T[r]]; ok {
				v *= f
			}
			at[r] = v
		}
		return masses{T: m.T, at: at}
	}
	n := len(t)
	out := bulk.Make[float64](n, n)
	unit := 1 / float64(n)
	for i, x := range t {
		w := unit
		if m.item != nil {
			w = m.item[i]
		}
		if f, ok := scale[x]; ok {
			w *= f
		}
		out[i] = w
	}
	return masses{item: out}
}
