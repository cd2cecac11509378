package fit

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"sync"
	"time"

	"github.com/pollfit/pollfit/internal/bulk"
	"github.com/pollfit/pollfit/sample"
)

// Resolution returns the data resolution of times in seconds, as
// Estimate finds it in the rows it fits (Density.Resolution): the
// largest δ of which at least 99 % of an evenly strided subsample of the
// positive times (at most 10⁵ of them, by index: so it depends on their
// order) are whole multiples, 0 when there is none.
func Resolution(times []float64) float64 { return resolution(times) }

// maxFFT caps the FFT grid of the KDE (2^20 cells, 16 MiB per array).
const maxFFT = 1 << 20

// Estimate estimates the settle-time distribution of the sample.
//
// Right-censored items enter through the Kaplan–Meier estimate: each
// settled item is weighted by its share of the KM jumps (Efron's
// redistribution to the right), so the estimate's settled mass is
// 1 − S_KM(last event); the rest is stuck. With Holdout, the split is
// drawn first and the horizon default comes from the whole sample.
// Density.KS is the Kolmogorov–Smirnov distance from the rows fitted
// (from the Kaplan–Meier estimate of all of them with censoring, else as
// KSDistance computes it).
//
// Errors: ErrNoRows for an empty sample, ErrOption for bad options, a
// sample validation error, ErrBandwidth when the bandwidth rule has no
// answer on the data.
func Estimate(s *sample.Sample, opt Options) (*Density, error) {
	if s.Len() == 0 {
		return nil, fmt.Errorf("fit: %w", ErrNoRows)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	if opt.Bandwidth == "" && s.Weights != nil {
		// Binned input: SJ gives the raw rows' bandwidth (within 0.6 %
		// of their SJ and 2 % of their ISJ for each segment of
		// docs/scale.md's DuckDB check, 10⁷ rows in 30 log-spaced bins
		// per decade); ISJ's high-order functionals resolve the steps
		// between bins at such sizes (down to the items' spacing, 0.0048
		// in ln s, against 0.027 raw).
		opt.Bandwidth = BandwidthSJ
	}
	opt, err := opt.resolve()
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	if opt.Horizon <= 0 {
		_, hi := minMax(s.Times)
		opt.Horizon = hi
		if hi == 0 {
			opt.Horizon = 1
		}
	}
	train, test := s, (*sample.Sample)(nil)
	if opt.Holdout > 0 {
		train, test = split(s, opt.Holdout, opt.Seed)
	}
	var ks func(*Density) KS
	if train.CensoredCount() == 0 && train.Len() >= 1<<15 {
		// Beside the fit (with censoring the distance reads the fit's KM;
		// on small samples a second goroutine costs more than it saves).
		ks = startKS(train)
	}
	// The training part of a holdout is Estimate's own copy, free to
	// reorder.
	opt.Reorder = opt.Reorder || train != s
	d, err := estimate(train, opt)
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	if d.KM != nil {
		k := kmDistance(d, d.KM, rowsOf(train), float64(d.N-d.Censored))
		d.KS = &k
	} else {
		var k KS
		if ks != nil {
			k = ks(d)
		} else {
			k = KSDistance(d, train)
		}
		d.KS = &k
	}
	d.ScoreInSample()
	if test != nil {
		d.ScoreHoldout(test)
	}
	return d, nil
}

func (d *Density) warn(format string, args ...any) {
	d.Warnings = append(d.Warnings, fmt.Sprintf(format, args...))
}

// plural is one for n = 1 and the plural otherwise: many[0] when given,
// else one with an s.
func plural(n int, one string, many ...string) string {
	switch {
	case n == 1:
		return one
	case len(many) > 0:
		return many[0]
	}
	return one + "s"
}

// estimate fits the (training) sample with resolved options.
func estimate(s *sample.Sample, opt Options) (*Density, error) {
	H := opt.Horizon
	d := &Density{N: s.Len(), Censored: s.CensoredCount(), Method: opt.Method, Warnings: []string{}, Atoms: []Atom{}}
	switch {
	case opt.Resolution > 0:
		d.Resolution = opt.Resolution
	case opt.Resolution == 0:
		d.Resolution = resolution(s.Times)
	}

	// Settled items, their probability masses m and, for weighted
	// (binned) samples, their counts of real items cw: the atom and spike
	// tests count items, and the bandwidth rules' sample size is theirs.
	// Binned input's items also have the widths of the sub-intervals of
	// their bins they stand for (itemWidths), in the smoothing domain.
	var t, cw, width, widths []float64
	var m masses
	if s.Weights != nil {
		widths = itemWidths(s, opt.Domain == DomainLog)
		d.N = int(math.Round(s.TotalWeight()))
		var cens float64
		for i, w := range s.Weights {
			if s.IsCensored(i) {
				cens += w
			}
		}
		d.Censored = int(math.Round(cens))
	}
	if d.Censored > 0 {
		km, times, mass := kaplanMeierOf(s, opt)
		d.KM = km
		t, m = times, mass
		if s.Weights != nil {
			// Weighted (binned) items come back in sample order.
			for i := range s.Times {
				if !s.IsCensored(i) {
					cw = append(cw, s.Weights[i])
					width = append(width, widths[i])
				}
			}
		}
		if len(km.Survival) > 0 {
			last := km.Survival[len(km.Survival)-1]
			// A parametric fit puts that mass in the model's tail (and
			// the mixture in its share that never settles) instead.
			_, parametric := familyParams[opt.Method]
			if _, mixture, _ := parseMixtureMethod(opt.Method); !parametric && !mixture && last > 0 {
				d.warn("%.3g of the mass is beyond the last settle time %gs (censored items outlive it): counted as stuck", last, km.T[len(km.T)-1])
			}
		}
		// Items, not the binned input's spread-out values: d.N counts
		// them both ways.
		if f := float64(d.Censored) / float64(d.N); f > 0.5 {
			d.warn("%.0f%% of items are censored: the tail rests on few settles", 100*f)
		}
	} else {
		t = s.Times
		if s.Weights != nil {
			W := s.TotalWeight()
			m.item = bulk.Make[float64](len(t), len(t))
			for i, w := range s.Weights {
				m.item[i] = w / W
			}
			cw, width = s.Weights, widths
		}
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("%w: no settled items (all are censored)", ErrNoRows)
	}
	if len(t) < 30 {
		d.warn("only %d settled %s: the estimate is rough", len(t), plural(len(t), "item"))
	}

	k, mixture, _ := parseMixtureMethod(opt.Method)
	_, parametric := familyParams[opt.Method]
	if parametric || mixture {
		// The models fit every settle, but their density on a grid that
		// ends before all of them says nothing of the data (smoothPart
		// and histogram check the same on their way).
		if err := horizonBeforeSettles(H, minOf(t)); err != nil {
			return nil, err
		}
	}
	if mixture {
		return d.mixture(s, t, m.perItem(t), cw, k, opt)
	}
	if parametric {
		dist, err := MaxLikelihood(opt.Method, s)
		if err != nil {
			return nil, err
		}
		pd := dist.Density(H, opt.Grid)
		pd.N, pd.Censored, pd.KM, pd.Resolution = d.N, d.Censored, d.KM, d.Resolution
		pd.Warnings = d.Warnings
		if km := d.KM; km != nil && len(km.Survival) > 0 {
			// Pending items older than every settle hold the KM mass
			// beyond the last settle. A model without a never-settling
			// share puts it in its tail, which it may only reach by
			// distorting its body: k 0.5 for Weibull(1.5, 30 s) settles
			// with 5 % pending at 1000–5000 s (testdata/pendingtail).
			last, T := km.Survival[len(km.Survival)-1], km.T[len(km.T)-1]
			if beyond := dist.Survival(T); last >= 0.01 && beyond >= 2*last {
				pd.warn("%.3g of the mass lies beyond the last settle at %.4gs (pending items outlive it); with no share that never settles, the %s fit stretches its tail to put %.3g there: if those items never settle, --method lognormal-mixture fits such a share (kde counts it as stuck)", last, T, opt.Method, beyond)
			}
		}
		return pd, nil
	}
	d.Domain = opt.Domain
	return d, d.smooth(t, m, cw, width, opt)
}

// kaplanMeierOf is kaplanMeier, on the sample reordered in place
// (sortSettledFirst) when opt.Reorder allows it and the fit reads the
// sample no further: the parametric and mixture fits read it in its
// order, whose sums round by it.
func kaplanMeierOf(s *sample.Sample, opt Options) (*KaplanMeier, []float64, masses) {
	plain := s.Weights == nil && !s.HasSegments() && s.Created == nil
	if opt.Reorder && plain && (opt.Method == "kde" || opt.Method == "histogram") {
		if k, ok := sortSettledFirst(s); ok {
			return kaplanMeierSorted(s.Len(), s.Times[:k], s.Times[k:])
		}
	}
	return kaplanMeier(s)
}

// mixture fits the sample by a mixture of lognormals (MixtureEM) with k
// components (0: by BIC). With Options.Atoms "auto", the atoms and spikes
// the KDE would keep apart are kept apart from the mixture too — a deadline
// piles items into a stretch no lognormal is narrow enough for, and a
// component spent on it is one the smooth part lacks: they are found as
// smooth finds them, on the settled times t with masses m and item counts
// cw, and each settled item then enters the mixture's sample with the
// share of it they leave (censored items whole). With A the atoms' total
// mass, the distribution is then
//
//	F(t) = Σ atoms by t + (1 − A)·F_mix(t).
func (d *Density) mixture(s *sample.Sample, t, m, cw []float64, k int, opt Options) (*Density, error) {
	ms := s
	var apart []Atom
	if opt.Atoms == "auto" && len(t) >= AtomMinCount {
		kept, atoms := d.keptShares(t, m, cw, opt)
		if len(atoms) > 0 {
			apart = atoms
			ms = &sample.Sample{}
			for i, v := range t {
				w := kept[i]
				if cw != nil {
					w *= cw[i]
				}
				ms.Times, ms.Weights = append(ms.Times, v), append(ms.Weights, w)
			}
			for i, v := range s.Times {
				if s.IsCensored(i) {
					ms.Times, ms.Weights = append(ms.Times, v), append(ms.Weights, s.Weight(i))
					if ms.Censored == nil {
						ms.Censored = make([]bool, len(ms.Times)-1, len(ms.Times))
					}
				}
				if ms.Censored != nil && len(ms.Censored) < len(ms.Times) {
					ms.Censored = append(ms.Censored, s.IsCensored(i))
				}
			}
		}
	}
	mix, err := MixtureEM(ms, MixtureOptions{K: k})
	if err != nil {
		return nil, err
	}
	var pd *Density
	if apart == nil {
		pd = mix.Density(opt.Horizon, opt.Grid)
	} else {
		A := 0.0
		for _, a := range apart {
			A += a.Mass
		}
		mix.Apart = A
		pd = mix.densityWith(opt.Horizon, opt.Grid, apart)
	}
	pd.Method = opt.Method
	pd.N, pd.Censored, pd.KM, pd.Resolution = d.N, d.Censored, d.KM, d.Resolution
	pd.Warnings = append(d.Warnings, mix.Warnings...)
	mix.Warnings = nil
	return pd, nil
}

// keptShares finds the atoms and spikes of settled times t > 0 (masses m,
// item counts cw) as smooth does, and returns them with the share of each
// item they leave (1 for an item no atom or spike takes from).
func (d *Density) keptShares(t, m, cw []float64, opt Options) ([]float64, []Atom) {
	n := len(t)
	kept := make([]float64, n)
	for i := range kept {
		kept[i] = 1
	}
	// Zeros are the mixture's own atom at 0: left out here.
	var idx []int
	var tp, mp, cwp []float64
	for i, v := range t {
		if v > 0 {
			idx = append(idx, i)
			tp = append(tp, v)
			mp = append(mp, massOf(m, i, n))
			if cw != nil {
				cwp = append(cwp, cw[i])
			}
		}
	}
	if len(tp) < AtomMinCount {
		return kept, nil
	}
	atoms, am, _ := findAtoms(tp, masses{item: mp}, cwp, d.Resolution, d.Resolution)
	m2 := am.item
	after := m2
	if cw == nil {
		ko := opt
		ko.Domain, ko.Method = DomainLog, DefaultMethod
		k := make([]float64, len(tp))
		for i := range tp {
			k[i] = m2[i] / mp[i]
		}
		if spikes := d.keepSpikes(tp, am, k, ko); spikes != nil {
			after = spikes.apply(tp, m2)
			atoms = append(atoms, spikes.atoms...)
		}
	}
	for j, i := range idx {
		if mp[j] > 0 {
			kept[i] = after[j] / mp[j]
		}
	}
	slices.SortFunc(atoms, func(a, b Atom) int { return cmp.Compare(a.T, b.T) })
	return kept, atoms
}

// mass returns item i's mass (m nil: 1/len each).
func massOf(m []float64, i, n int) float64 {
	if m == nil {
		return 1 / float64(n)
	}
	return m[i]
}

// smooth estimates the continuous part (KDE or histogram) and the atoms
// from settled times t with masses m (any form of masses: a table by
// time stays one through the atoms, the spikes and pre-binning) and
// counts of real items cw and widths width (nil: 1 each and points;
// binned input, see wsample.cw and wsample.width).
func (d *Density) smooth(t []float64, m masses, cw, width []float64, opt Options) error {
	H := opt.Horizon
	n := len(t)
	logDom := opt.Domain == DomainLog

	// In the log domain a time of 0 has no image: zeros are an atom at 0.
	if logDom {
		var zero float64
		var nz int
		mc := m.cursor(t, 0)
		for i, v := range t {
			if v == 0 {
				zero += mc.of(i)
				nz++
			}
		}
		if nz > 0 {
			d.Atoms = append(d.Atoms, Atom{T: 0, Mass: zero})
			if nz == n {
				d.fill(linGrid(H, opt.Grid), func(float64) (float64, float64) { return 0, 0 })
				d.warn("every settled time is 0")
				return nil
			}
			if m.T != nil {
				// Sorted by time (the table form): the zeros come
				// first, and the table holds for the rest.
				t, n = t[nz:], n-nz
			} else {
				t2 := make([]float64, 0, n-nz)
				var m2, cw2, width2 []float64
				for i, v := range t {
					if v > 0 {
						t2 = append(t2, v)
						m2 = append(m2, m.one(t, i))
						if cw != nil {
							cw2 = append(cw2, cw[i])
							width2 = append(width2, width[i])
						}
					}
				}
				t, m, cw, width, n = t2, masses{item: m2}, cw2, width2, len(t2)
			}
		}
	}
	if n < 2 {
		return fmt.Errorf("%w: need at least 2 settled times > 0 to smooth", ErrBandwidth)
	}

	// Atoms, judged at the data's resolution (atoms.go), and spikes
	// (spikes.go).
	var spikes *spikeSet
	if opt.Atoms == "auto" {
		floor := 0.0
		if logDom {
			floor = d.Resolution // zeros are out already: cell 0 is empty, not low
		}
		atoms, m2, _ := findAtoms(t, m, cw, d.Resolution, floor)
		// Spikes (spikes.go) count an item an exact atom took a share of
		// only for the share left in the smooth part.
		k := cw
		if len(atoms) > 0 {
			k = bulk.Make[float64](n, n)
			after, before := m2.cursor(t, 0), m.cursor(t, 0)
			for i := range t {
				k[i] = after.of(i) / before.of(i)
				if cw != nil {
					k[i] *= cw[i]
				}
			}
		}
		d.Atoms = append(d.Atoms, atoms...)
		m = m2
		// Binned input has no item-level detail for the spike test: its
		// items sit on a lattice inside each bin, and a cell holding one
		// would pass as a spike.
		if cw == nil {
			spikes = d.keepSpikes(t, m, k, opt)
		}
	}
	return d.smoothPart(t, m, cw, width, spikes, opt, true)
}

// smoothPart estimates the continuous part (KDE or histogram) of settled
// times t with masses ms (see masses; item by item, the fit takes them
// one an item, pre-binned as they are) and counts of real items cw
// (nil: 1 each), once the spikes (nil: none) take their share, and adds
// the spikes to d.Atoms. d.Resolution and the exact atoms are set. Without
// full, it leaves out what only the reported fit needs (the tie warning).
func (d *Density) smoothPart(t []float64, ms masses, cw, width []float64, spikes *spikeSet, opt Options, full bool) error {
	H := opt.Horizon
	n := len(t)
	logDom := opt.Domain == DomainLog
	delta := d.Resolution

	// The transformed times y with masses ws.w, item by item or pre-binned
	// (prebin.go), and the mass left for the smooth part.
	var ws wsample
	var contMass float64
	var m []float64 // item by item: the masses one an item (nil: 1/n each)
	var pooled []float64
	prebinned := n > preBinAbove && opt.Method != "histogram" && logDom
	if prebinned {
		ws, contMass = preBin(t, ms, cw, delta, spikes)
	} else {
		m = ms.perItem(t)
		if spikes != nil {
			m = spikes.apply(t, m)
		}
		y := t // continuous times in the linear domains: as they are
		if delta > 0 || logDom {
			if 8*n <= scratchMaxBytes {
				// Given back once the KDE has binned them (below).
				y = floatScratch.get(n)
				pooled = y
			} else {
				y = bulk.Make[float64](n, n)
			}
			parallelParts(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					v := t[i]
					if delta > 0 { // deround returns v itself otherwise
						v = deround(v, delta, i)
					}
					if logDom {
						v = math.Log(v)
					}
					y[i] = v
				}
			})
		}
		ws = wsample{x: y, w: m, cw: cw, width: width}
		contMass = 1
		if m != nil {
			contMass = 0
			for _, v := range m {
				contMass += v
			}
		}
	}
	if spikes != nil {
		d.Atoms = append(d.Atoms, spikes.atoms...)
	}
	slices.SortFunc(d.Atoms, func(a, b Atom) int { return cmp.Compare(a.T, b.T) })

	if !(contMass > 1e-12) {
		// The atoms took every settled item (five settles at one value):
		// there is no smooth part to estimate.
		d.fill(linGrid(H, opt.Grid), func(float64) (float64, float64) { return 0, 0 })
		d.warn("every settled item is in an atom: no smooth part")
		return nil
	}
	if opt.Method == "histogram" {
		return d.histogram(t, m, contMass, opt)
	}

	ws.log = logDom
	ws = ws.withBounds()
	if prebinned {
		ws.snapLog = delta
	}
	rule := strings.ToLower(opt.Bandwidth)
	// The rules of thumb and sj take their scale from the times as
	// recorded (wsample.rec); isj, the default, needs none.
	scaled := func() {
		if delta > 0 && !prebinned && ws.rec == nil && rule != BandwidthISJ {
			ws.rec = recorded(t, ws.w, ws.cw, logDom)
		}
	}
	scaled()
	// The cross-validation fits (not full) bin ISJ's data on 2¹² points
	// instead of 2¹⁴: a quarter of the cost, for a bandwidth within a few
	// percent, which moves their held-out likelihoods far less than a
	// spike does.
	ws.isjBins = isjBins
	if !full {
		ws.isjBins = isjBins >> 2
	}
	h, err := selectBandwidth(rule, ws)
	// The plug-in rules can have no solution on small or lumpy samples
	// (Botev's kde.m then minimises |ξγ(t) − t| instead): fall back to
	// sj, then to Silverman's rule, which always has one, and say so.
	for _, fb := range []string{BandwidthSJ, BandwidthSilverman} {
		if err == nil || (rule != BandwidthISJ && rule != BandwidthSJ) || fb == rule {
			continue
		}
		d.warn("bandwidth rule %s failed (%v); used %s", rule, err, fb)
		rule = fb
		scaled()
		h, err = selectBandwidth(rule, ws)
	}
	if err != nil {
		return err
	}
	if _, num := parseNumber(opt.Bandwidth); !num {
		// Binned input: a kernel narrower than the sub-intervals its items
		// stand for shows them one by one, a comb where the bins say the
		// rows are spread evenly. Bins too coarse for the sample size give
		// such bandwidths:
		// the rules then resolve the steps between bins (sj gave 0.0058 in
		// ln t on 10⁷ items in 10 log-spaced bins per decade).
		if g := ws.itemWidth(); h < g {
			unit := "s"
			if logDom {
				unit = "in ln s"
			}
			d.warn("bandwidth rule %s gave %.3g %s, narrower than the %.3g between the items each bin is spread over, which the density would show one by one: used %.3g; finer bins resolve more", rule, h, unit, g, g)
			h = g
		}
	}
	d.Bandwidth = h
	d.BandwidthRule = rule
	if _, num := parseNumber(opt.Bandwidth); num {
		d.BandwidthRule = "fixed"
	}

	ylo, yhi := ws.minMax()
	if d.BandwidthRule == "fixed" && yhi > ylo && h > maxBandwidthSpans*(yhi-ylo) {
		unit := "s"
		if logDom {
			unit = "ln s"
		}
		return fmt.Errorf("%w: bandwidth %g %s is more than %d times the spread of the data (%.4g to %.4g %s): the density would be flat, its mass mostly outside the data; give a smaller bandwidth or a rule such as isj",
			ErrOption, h, unit, maxBandwidthSpans, ylo, yhi, unit)
	}
	var top float64
	switch {
	case logDom:
		top = math.Min(yhi, math.Log(H))
	default:
		top = math.Min(yhi, H)
	}
	if top < ylo {
		// The first settle as recorded (ylo is de-rounded): a horizon
		// within half a resolution after it fits on a grid from ylo.
		if err := horizonBeforeSettles(H, minOf(t)); err != nil {
			return err
		}
		top = ylo
	}
	lo, hi := ylo-4*h, top+4*h
	if opt.Domain == DomainReflect {
		lo = -4 * h
	}
	// The FFT grid: a step of h/4 or less. Linear binning widens the
	// kernel to an effective √(h² + step²/6) (Wand & Jones 1995, App. D),
	// 0.5 % here. The cross-validation fits of spikecv.go (not full) only
	// read the CDF, at held-out items through the output grid, and take
	// h/2: 2 % wider, at half the cost (a deadline's spike left in the
	// data draws ISJ to 0.0015 in ln t: 2¹⁶ cells).
	fine := 4.0
	if !full {
		fine = 2
	}
	size := 1 << 10
	for size < maxFFT && ((hi-lo)/float64(size-1) > h/fine || size < opt.Grid) {
		size *= 2
	}
	if dx := (hi - lo) / float64(size-1); dx > h/2 {
		d.warn("bandwidth %.3g is small against the range: the FFT grid step is %.3g; try --domain log", h, dx)
	}
	mass := 0.0
	if ws.w == nil {
		mass = 1 / float64(n)
	}
	g := gaussKDE(ws.x, ws.w, mass, h, lo, hi, size, opt.Domain == DomainReflect, full, opt.Grid+1)
	if pooled != nil {
		floatScratch.put(pooled) // the KDE holds its bins, not the values
	}

	switch opt.Domain {
	case DomainLog:
		// The binned CDF already counts the kernel mass below the grid.
		tmin := math.Exp(ylo - 3*h)
		T, lnT := logGridLn(tmin, H, opt.Grid, true)
		defer floatScratch.put(lnT)
		k := 0 // fill calls in grid order, once a point
		d.fill(T, func(x float64) (float64, float64) {
			y := lnT[k]
			k++
			if x <= 0 {
				return 0, 0
			}
			p, c := g.at(y)
			return p / x, c
		})
	case DomainLinear:
		_, leak := g.at(0)
		k := contMass / (contMass - leak)
		d.fill(linGrid(H, opt.Grid), func(x float64) (float64, float64) {
			p, c := g.at(x)
			return p * k, (c - leak) * k
		})
		if leak > 0.01*contMass {
			d.warn("%.1f%% of the kernel mass fell below 0 and was renormalised away; --domain log or reflect avoids it", 100*leak/contMass)
		}
	case DomainReflect:
		_, c0 := g.at(0)
		d.fill(linGrid(H, opt.Grid), func(x float64) (float64, float64) {
			p, c := g.at(x)
			return p, c - c0
		})
	}
	g.release() // the result is filled in: nothing reads the grid after
	if full {
		d.tieWarning(t, h, logDom)
	}
	return nil
}

// recorded returns the times t as recorded (ln t in the log domain) with
// weights w and counts of real items cw: the scale of the bandwidth rules
// (wsample.rec).
func recorded(t, w, cw []float64, logDom bool) *wsample {
	if !logDom {
		r := wsample{x: t, w: w, cw: cw}.withBounds()
		return &r
	}
	x := make([]float64, len(t))
	for i, v := range t {
		x[i] = math.Log(v)
	}
	r := wsample{x: x, w: w, cw: cw, log: true}.withBounds()
	return &r
}

// tieWarning warns when the data resolution is coarse against the
// kernel's width at the median time.
func (d *Density) tieWarning(t []float64, h float64, logDom bool) {
	if d.Resolution == 0 {
		return
	}
	// The median only sizes a warning: a strided subsample of at most
	// 2¹⁶ items gives it to well within the resolution tests here, without
	// copying and selecting over a sample of 10⁷.
	sub := t
	if step := len(t) >> 16; step > 1 {
		sub = make([]float64, 0, len(t)/step+1)
		for i := 0; i < len(t); i += step {
			sub = append(sub, t[i])
		}
	}
	med := wsample{x: sub}.quantiles(0.5)[0]
	width := h
	if logDom {
		width = med * math.Expm1(h)
	}
	if d.Resolution > width {
		d.warn("times are rounded to %gs, coarser than the kernel width %.3gs at the median: heavy ties", d.Resolution, width)
	}
}

func parseNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// histogram sets the continuous part to the empirical distribution of t
// interpolated linearly between grid points (a histogram with one bin per
// grid interval), on the domain's grid.
func (d *Density) histogram(t, m []float64, contMass float64, opt Options) error {
	H := opt.Horizon
	lo, _ := minMax(t)
	if err := horizonBeforeSettles(H, lo); err != nil {
		return err
	}
	var T []float64
	if opt.Domain == DomainLog {
		T = logGrid(lo/2, H, opt.Grid)
	} else {
		T = linGrid(H, opt.Grid)
	}
	cum := make([]float64, len(T))
	n := len(t)
	for i, v := range t {
		j := sort.SearchFloat64s(T, v) // first grid point ≥ v
		if j < len(T) {
			cum[j] += massOf(m, i, n)
		}
	}
	for j := 1; j < len(cum); j++ {
		cum[j] += cum[j-1]
	}
	pdf := make([]float64, len(T))
	for j := range T {
		a, b := max(j-1, 0), min(j+1, len(T)-1)
		pdf[j] = (cum[b] - cum[a]) / (T[b] - T[a])
	}
	k := 0
	d.fill(T, func(float64) (float64, float64) { v := [2]float64{pdf[k], cum[k]}; k++; return v[0], v[1] })
	return nil
}

// horizonBeforeSettles is the error of a fit whose horizon H (seconds)
// comes before the first settle time first: the grid it is read on would
// hold none of the data (a horizon of 1m for jobs
// that take hours, or --horizon 60 meant as minutes). nil when H is at or
// past first.
func horizonBeforeSettles(H, first float64) error {
	if H >= first {
		return nil
	}
	dur := func(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
	return fmt.Errorf("%w: the horizon %v comes before every settle time (the first at %v): nothing settles within it to estimate; choose a horizon past the first settles, or let the data set it", ErrOption, dur(H), dur(first))
}

// weyl returns frac(i·φ), φ the golden ratio: a low-discrepancy sequence
// in [0, 1) (Weyl 1916).
// weylStep is φ − 1, the golden ratio's fractional part: the step of the
// Weyl sequence frac(i·φ).
const weylStep = 0.6180339887498949

func weyl(i int) float64 {
	const phi = weylStep
	x := float64(i) * phi
	return x - math.Floor(x) // = math.Modf's fraction for x ≥ 0, and faster
}

// parallelParts calls f(lo, hi) on GOMAXPROCS contiguous parts of [0, n)
// at once, or once on all of it below 2¹⁵ items: for element-wise passes,
// whose results do not depend on how the items are split (sums go
// through bulk.Chunks instead).
func parallelParts(n int, f func(lo, hi int)) {
	parts := runtime.GOMAXPROCS(0)
	if n < 1<<15 || parts < 2 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { f(p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
}
