package fit

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
)

// Atom detection.
//
// A value v is an atom when far more items settle exactly at v than the
// smooth density puts in v's resolution cell. With data resolution δ
// (Resolution: times are multiples of δ), the smooth expectation μ is
// the least-squares line through the counts of the neighbouring cells
// v ± kδ, k = 1…5, evaluated at v: a locally linear density gives
// exactly that expectation, and leaving v's own cell out keeps the atom
// from inflating its own reference. For a symmetric window the line at v
// is the neighbours' mean. Cells below 0 do not exist; near 0 the window
// is one-sided and the line extrapolates the density's climb from 0. For continuous data (δ = 0) exact ties have probability 0, so
// μ = 0. With c items at v, v is an atom when all of
//
//	c ≥ AtomMinCount                        (5)
//	c ≥ AtomMinRatio·μ                      (2: twice the smooth count)
//	(c − μ)/n ≥ AtomMinMass                 (0.5 % of all items)
//	P(Poisson(μ) ≥ c) ≤ AtomAlpha/m         (0.001, Bonferroni over m values tested)
//
// hold. The atom's mass is the excess (c − μ)/c of the items' mass at v;
// the remaining μ items stay in the continuous part. Rounding alone
// (every value repeated because times are whole seconds) gives c ≈ μ and
// no atoms; the ratio and mass floors keep the test from flagging the
// small bumps that a large sample makes significant.
const (
	AtomMinCount = 5
	AtomMinRatio = 2.0
	AtomMinMass  = 0.005
	AtomAlpha    = 0.001
)

// atomCells is the number of neighbouring cells on each side that give
// the smooth expectation. An atom is a single-value spike, so the window
// only needs the density to be locally linear over ±5 cells; a wider
// window (say the bandwidth) would call every tight cluster an atom.
const atomCells = 5

// atomScreen is the sample size above which candidates are screened on
// an evenly strided subsample before the exact count over all items.
// 2¹⁶ is plenty to screen for: an atom of the least mass (0.5 %) has
// 328 ± 18 items in it, against the screen's threshold of 164; and it
// keeps the screen's sort to a few milliseconds.
const atomScreen = 1 << 16

// resolution returns the data resolution: the largest δ such that at
// least 99 % of the positive times are whole multiples kδ with k ≥ 1
// (within 10⁻⁶δ, plus 10⁻¹²·t for the rounding of unit conversions),
// taking at least two distinct values (one value repeated is no evidence
// of a lattice: 99 times 3 s and once 7 s are whole seconds, not
// multiples of 3 s with one exception); 0 when there is none (continuous
// data).
//
// The rule is relative, so that it gives the same answer in every unit:
// resolution(c·t) = c·resolution(t). A multiple must be at least δ itself
// (k ≥ 1), so a δ larger than the values it would explain is never taken
// (with k = 0 allowed, every time under 3.6 ms was "a multiple of 3600 s").
// It is found in two steps. First the largest δ₀ in {1, 2, 5} × 10^e that
// passes, over the decades from the largest time down to 10⁻¹⁰ of it (a
// finer lattice is beyond what float64 times of that size hold); then δ₀
// is refined to the lattice itself: δ = δ₀·g, g the greatest common
// divisor of the multipliers k, raised by the primes 2, 3, 5 and 7 while
// 99 % of them stay multiples. The second step finds steps that are not
// of the form {1, 2, 5} × 10^e: whole minutes (δ₀ = 20 s, g = 3), whole
// milliseconds in hours (3.6 s), 37 µs.
func resolution(t []float64) float64 {
	// Test on at most 100 000 evenly spread items (a strided view, not a
	// copy): the answer only decides cell widths.
	sub := strided{t, max(1, len(t)/100_000)}
	pos, top := 0, 0.0
	sub.each(func(v float64) {
		if v > 0 {
			pos++
			if v > top { // not max: v > 0 is neither NaN nor −0
				top = v
			}
		}
	})
	if pos == 0 || math.IsInf(top, 0) {
		return 0
	}
	allowed := int(0.01 * float64(pos)) // positive times that may fail δ
	e0 := int(math.Ceil(math.Log10(top)))
	for e := e0; e >= e0-11; e-- {
		for _, c := range [...]float64{5, 2, 1} {
			d0 := c * math.Pow10(e)
			if bad, ok := sub.multiples(d0, allowed); ok {
				return d0 * float64(sub.latticeFactor(d0, allowed-bad))
			}
		}
	}
	return 0
}

// strided is every step-th item of t.
type strided struct {
	t    []float64
	step int
}

func (s strided) each(f func(v float64)) {
	for i := 0; i < len(s.t); i += s.step {
		f(s.t[i])
	}
}

// multiple returns k when v > 0 is a whole multiple kδ of d, k ≥ 1 (see
// resolution), else 0.
func multiple(v, d float64) int64 {
	q := v / d
	r := math.Round(q)
	if r < 1 || math.Abs(q-r) > 1e-6+1e-12*q {
		return 0
	}
	return int64(r)
}

// multiples reports whether all but at most allowed of the positive times
// are whole multiples of d, taking two distinct multipliers or more, and
// how many are not.
func (s strided) multiples(d float64, allowed int) (bad int, ok bool) {
	first, two := int64(0), false
	for i := 0; i < len(s.t); i += s.step {
		v := s.t[i]
		if v <= 0 {
			continue
		}
		switch k := multiple(v, d); {
		case k == 0:
			if bad++; bad > allowed {
				return bad, false
			}
		case first == 0:
			first = k
		case k != first:
			two = true
		}
	}
	return bad, two
}

// latticeFactor returns the largest g found such that all but at most
// allowed of the multipliers k of d (the positive times that are
// multiples of d) are multiples of g, taking two distinct values or more:
// the greatest common divisor of all the k, then multiplied by 2, 3, 5
// or 7 while that holds (the gcd alone is held down by the few items off
// the lattice that the 99 % rule lets through).
func (s strided) latticeFactor(d float64, allowed int) int64 {
	g := int64(0)
	for i := 0; i < len(s.t) && g != 1; i += s.step {
		if v := s.t[i]; v > 0 {
			if k := multiple(v, d); k > 0 {
				g = gcd(g, k)
			}
		}
	}
	if g == 0 {
		return 1
	}
	for _, p := range [...]int64{2, 3, 5, 7} {
		for {
			next := g * p
			bad, first, two := 0, int64(0), false
			for i := 0; i < len(s.t) && bad <= allowed; i += s.step {
				v := s.t[i]
				if v <= 0 {
					continue
				}
				k := multiple(v, d)
				switch {
				case k == 0:
				case k%next != 0:
					bad++
				case first == 0:
					first = k
				case k != first:
					two = true
				}
			}
			if bad > allowed || !two {
				break
			}
			g = next
		}
	}
	return g
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// atomTest is the outcome of the atom test at one value.
type atomTest struct {
	V        float64
	Count    float64 // items at V
	Expected float64 // μ, items the smooth density puts in V's cell
	Mass     float64 // mass of the items at V
	P        float64 // P(Poisson(μ) ≥ Count)
}

// findAtoms applies the atom rule to the settled items t with masses m
// (in any form of masses) and counts of real items cw (nil: 1 each; binned
// input) at resolution delta; cells below floor do not
// exist (0, or δ in the log domain, where zeros were taken out before).
// It returns the atoms and the masses of the
// items with the atoms' share removed (m itself when there are no atoms;
// a table stays a table).
func findAtoms(t []float64, m masses, cw []float64, delta, floor float64) ([]Atom, masses, []atomTest) {
	n := len(t)
	if n < AtomMinCount {
		return nil, m, nil
	}
	// Candidates: values frequent in a (sub)sample; weighted (binned)
	// samples are small and screened whole, counting real items.
	type item struct{ t, w float64 }
	var sub []item
	total := 0.0
	if cw != nil {
		sub = make([]item, n)
		for i, v := range t {
			sub[i] = item{v, cw[i]}
			total += cw[i]
		}
		slices.SortFunc(sub, func(a, b item) int { return cmp.Compare(a.t, b.t) })
	}
	minSub := math.Max(AtomMinCount, 0.5*AtomMinMass*total)
	if cw == nil {
		// All weights 1: the (strided sub)sample's times, of which a value
		// repeated minSub times fills its slot of a hash of the floats'
		// bits at least that much, so only the items of such slots are
		// sorted (continuous data have none), as plain floats by their
		// bits (radixSort, 8× faster than a comparison).
		var ts []float64
		if n > atomScreen {
			// The strided subsample gathered once (a cache miss an item
			// on a large sample), into a buffer of floatScratch.
			sub := floatScratch.get(atomScreen)
			step := float64(n) / atomScreen
			for k := range sub {
				sub[k] = t[int(float64(k)*step)]
			}
			total = atomScreen
			minSub = 0.5 * AtomMinMass * total
			ts = heavyValues(sub, int(math.Ceil(minSub)))
			floatScratch.put(sub)
		} else {
			total = float64(n)
			minSub = math.Max(AtomMinCount, 0.5*AtomMinMass*total)
			ts = heavyValues(t, int(math.Ceil(minSub)))
		}
		ts = radixSort(ts, make([]float64, len(ts)))
		sub = make([]item, len(ts))
		for i, v := range ts {
			sub[i] = item{v, 1}
		}
	}
	var cand []float64
	for i := 0; i < len(sub); {
		j, c := i, 0.0
		for j < len(sub) && sub[j].t == sub[i].t {
			c += sub[j].w
			j++
		}
		// A binned sample's items are spread over their bins, one per
		// value; only point bins repeat a value (BinColumns).
		if c >= minSub && (cw == nil || j-i > 1) {
			cand = append(cand, sub[i].t)
		}
		i = j
	}
	if len(cand) == 0 {
		return nil, m, nil
	}
	// Exact counts at each candidate and in each neighbouring cell.
	const K = atomCells
	type win struct{ lo, hi float64 }
	wins := make([]win, len(cand))
	for k, v := range cand {
		wins[k] = win{v, v}
		if delta > 0 {
			left := math.Max(0, math.Min(K, math.Round((v-floor)/delta)))
			wins[k] = win{v - (left+0.5)*delta, v + (K+0.5)*delta}
		}
	}
	cnt := make([]float64, len(cand))
	cells := make([][2*K + 1]float64, len(cand)) // counts by offset −K…K
	mass := make([]float64, len(cand))
	var maxLeft, maxRight float64
	for k, v := range cand {
		maxLeft = math.Max(maxLeft, v-wins[k].lo)
		maxRight = math.Max(maxRight, wins[k].hi-v)
	}
	mc := m.cursor(t, 0)
	items := float64(n) // real items: binned input counts them in cw
	if cw != nil {
		items = total
	}
	for i, x := range t {
		// Windows may overlap: look at every candidate whose centre is
		// close enough for its window to hold x.
		k, _ := slices.BinarySearch(cand, x-maxRight)
		for ; k < len(cand) && cand[k] <= x+maxLeft; k++ {
			if x < wins[k].lo || x > wins[k].hi {
				continue
			}
			c := 1.0
			if cw != nil {
				c = cw[i]
			}
			if x == cand[k] {
				cnt[k] += c
				mass[k] += mc.of(i)
				continue
			}
			if delta > 0 {
				off := int(math.Round((x - cand[k]) / delta))
				cells[k][min(max(off, -K), K)+K] += c
			}
		}
	}
	var tests []atomTest
	var atoms []Atom
	scale := map[float64]float64{}
	for k, v := range cand {
		mu := 0.0
		if delta > 0 {
			left := int(math.Max(0, math.Min(K, math.Round((v-floor)/delta))))
			mu = lineAtZero(cells[k][K-left:], left)
		}
		p := 0.0
		if mu > 0 {
			p = mathext.GammaIncReg(cnt[k], mu)
		}
		tests = append(tests, atomTest{V: v, Count: cnt[k], Expected: mu, Mass: mass[k], P: p})
		excess := (cnt[k] - mu) / cnt[k]
		if cnt[k] >= AtomMinCount && cnt[k] >= AtomMinRatio*mu &&
			(cnt[k]-mu)/items >= AtomMinMass && p <= AtomAlpha/float64(len(cand)) {
			atoms = append(atoms, Atom{T: v, Mass: mass[k] * excess})
			scale[v] = 1 - excess
		}
	}
	if len(atoms) == 0 {
		return nil, m, tests
	}
	return atoms, m.scaled(t, scale), tests
}

// lineAtZero fits a least-squares line to the neighbour counts c at
// offsets −left…−1, 1…K (c[left] is the centre, skipped) and returns its
// value at offset 0, at least 0. For a symmetric window this is the mean;
// one-sided windows (near 0) extrapolate the trend instead of assuming a
// flat density, which matters where the density climbs from 0.
func lineAtZero(c []float64, left int) float64 {
	var sk, sc, skk, skc, n float64
	for i, v := range c {
		k := float64(i - left)
		if k == 0 {
			continue
		}
		sk += k
		sc += v
		skk += k * k
		skc += k * v
		n++
	}
	den := n*skk - sk*sk
	if den == 0 {
		return math.Max(0, sc/n)
	}
	b := (n*skc - sk*sc) / den
	return math.Max(0, (sc-b*sk)/n)
}

// heavyValues returns the values of x (≥ 0; −0 returned as +0: equal
// values, equal bits), in their order, that fall in a slot of a
// multiplicative hash of their bits (Knuth, TAOCP vol. 3, §6.4) holding at
// least `least` of them. Every copy of a value repeated that often or more
// is among them; other values only where the items of several share a
// slot. x is not modified. The table has a slot for every least/4 items
// or fewer (between 2⁸ and 2¹⁶ slots), so that chance fills one that far
// only rarely, and stays in the first-level cache at 2¹⁶ items (2¹¹ slots
// for their least of 164; one slot per item took 256 KB there, a miss per
// item, a twentieth of a fit of 10⁵ values).
func heavyValues(x []float64, least int) []float64 {
	bits := uint(8)
	for bits < 16 && 1<<bits*max(1, least) < 4*len(x) {
		bits++
	}
	slot := func(v float64) uint64 { return (math.Float64bits(v+0) * 0x9e3779b97f4a7c15) >> (64 - bits) }
	cnt := make([]int32, 1<<bits)
	for _, v := range x {
		cnt[slot(v)]++
	}
	var out []float64
	for _, v := range x {
		if int(cnt[slot(v)]) >= least {
			out = append(out, v+0)
		}
	}
	return out
}
