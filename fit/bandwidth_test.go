package fit

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/stat"
)

// TestBandwidthMatchesR checks the bandwidth rules against R's bw.nrd0,
// bw.nrd and bw.SJ to 3 significant digits (relative 1e-3). bw.SJ stops
// its root search at tol = 0.1·lower (≈ 1 % of the bandwidth), ours
// solves to 1e-10, so the SJ comparison is against bw.SJ(tol = 1e-10),
// and against R's default within R's tolerance.
func TestBandwidthMatchesR(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.Density {
		t.Run(c.Name, func(t *testing.T) {
			x := transformed(c.X, c.Transform)
			s := wsample{x: x} // R selects bandwidths without weights
			for _, tc := range []struct {
				rule      string
				want, tol float64
			}{
				{"silverman", c.BwNrd0, 1e-3},
				{"scott", c.BwNrd, 1e-3},
				{"sj", c.BwSJTight, 1e-3},
				{"sj", c.BwSJ, 1e-2},
			} {
				got, err := selectBandwidth(tc.rule, s)
				if err != nil {
					t.Fatal(err)
				}
				if !scalar.EqualWithinRel(got, tc.want, tc.tol) {
					t.Errorf("bandwidth %s = %.6g, want %.6g (R, rel tol %g)", tc.rule, got, tc.want, tc.tol)
				}
			}
		})
	}
}

// TestTiesBandwidthMatchesR fits tie-heavy samples (all but one
// value equal, two thirds equal, five distinct values, whole seconds and
// whole milliseconds with many repeats) in the linear and log domains and
// compares the bandwidths with R's, computed on the values as recorded
// (testdata/reference.R, "ties"):
//
//   - silverman is bw.nrd0 (1000, 1000, 1000, 1000, 2001 ms: 0.292 s, not
//     the 0.0003 s of the de-rounded quartiles), to 1e-6;
//   - scott is bw.nrd where R's IQR is positive; where it is 0, bw.nrd is
//     0 (R has no fallback there and density() refuses it), and scott
//     falls back as bw.nrd0 does: 1.06/0.9 times bw.nrd0;
//   - sj is bw.SJ of the times de-rounded as deround does (to 1e-3, R's
//     bisection tolerance being 1e-10), except that, like R's bw.SJ on the
//     recorded values, it fails when their IQR is 0, and the fit falls
//     back to silverman with a warning;
//   - isj, which R lacks, gives a bandwidth without failing, at least a
//     tenth of a resolution cell at the median (in ln t: the cell's width
//     in ln t), so it does not resolve the de-rounded items inside one
//     cell.
func TestTiesBandwidthMatchesR(t *testing.T) {
	for _, c := range loadTies(t) {
		for _, dom := range []string{DomainLinear, DomainLog} {
			ref := c.Linear
			if dom == DomainLog {
				ref = c.Log
			}
			t.Run(c.Name+"/"+dom, func(t *testing.T) {
				fitted := func(rule string) *Density {
					t.Helper()
					d, err := Estimate(&sample.Sample{Times: c.X}, Options{Domain: dom, Bandwidth: rule, Atoms: "off"})
					if err != nil {
						t.Fatal(err)
					}
					if d.Resolution != c.Resolution {
						t.Fatalf("resolution = %g, want %g", d.Resolution, c.Resolution)
					}
					return d
				}
				check := func(rule string, got, want, tol float64) {
					t.Helper()
					if !scalar.EqualWithinRel(got, want, tol) {
						t.Errorf("bandwidth %s = %.6g, want %.6g (R, rel tol %g)", rule, got, want, tol)
					}
				}
				check("silverman", fitted("silverman").Bandwidth, ref.BwNrd0, 1e-6)
				wantScott := ref.BwNrd
				if wantScott == 0 {
					wantScott = ref.BwNrd0 * 1.06 / 0.9
				}
				check("scott", fitted("scott").Bandwidth, wantScott, 1e-6)

				sj := fitted("sj")
				if ref.BwSJ == nil {
					if sj.BandwidthRule != BandwidthSilverman || !slices.ContainsFunc(sj.Warnings, func(w string) bool { return strings.Contains(w, "bandwidth rule sj failed") }) {
						t.Errorf("sj: rule %s, warnings %q; want the silverman fallback with a warning (R's bw.SJ stops)", sj.BandwidthRule, sj.Warnings)
					}
					check("sj (fallback)", sj.Bandwidth, ref.BwNrd0, 1e-6)
				} else {
					check("sj", sj.Bandwidth, *ref.BwSJDerounded, 1e-3)
				}

				isj := fitted("isj")
				med := stat.Quantile(0.5, stat.Empirical, slices.Sorted(slices.Values(c.X)), nil)
				cell := c.Resolution
				if dom == DomainLog {
					cell = math.Log((med + c.Resolution/2) / (med - c.Resolution/2))
				}
				if isj.BandwidthRule != BandwidthISJ || !(isj.Bandwidth >= cell/10) {
					t.Errorf("isj: bandwidth %.4g by %s, want isj's own, ≥ %.4g (a tenth of the resolution cell)", isj.Bandwidth, isj.BandwidthRule, cell/10)
				}
			})
		}
	}
}
