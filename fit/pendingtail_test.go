package fit

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/floats/scalar"
)

// readPendingTail reads one of testdata/pendingtail's samples
// (duration_s, st = done|pending).
func readPendingTail(t *testing.T, name string) *sample.Sample {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "pendingtail", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	s := &sample.Sample{}
	for _, r := range rows[1:] {
		x, err := strconv.ParseFloat(r[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		s.Times = append(s.Times, x)
		s.Censored = append(s.Censored, r[1] == "pending")
	}
	return s
}

// TestMaxLikelihoodPendingTail fits Weibull settles (k = 1.5, λ = 30 s)
// with 5 % pending items at ages 10–60 s, 1000–5000 s and 10⁴–10⁵ s
// (testdata/pendingtail/gen.py) and compares every family with R
// (pendingtail.R: survreg for Weibull and lognormal, optim with
// pgamma(log.p = TRUE) for gamma, the closed form for exponential). Far
// pending items have S(t) below the smallest float64 at the starting
// values: the Weibull fit of the 1000–5000 s sample, and the Weibull and
// gamma fits of the 10⁴–10⁵ s one, failed to converge when ln S was
// taken as the log of S. The parameters agree to 2·10⁻⁶ (Nelder–Mead
// stops when the log-likelihood per item agrees to 10⁻¹³, which leaves
// the parameters about 10⁻⁷ apart), the log-likelihoods to 10⁻¹¹.
func TestMaxLikelihoodPendingTail(t *testing.T) {
	b, err := os.ReadFile("testdata/pendingtail/pendingtail.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]map[string]map[string]float64
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pending_10_60.csv", "pending_1000_5000.csv", "pending_10000_100000.csv"} {
		s := readPendingTail(t, name)
		for _, fam := range []string{Weibull, LogNormal, Gamma, Exponential} {
			want := ref[name][fam]
			if want == nil {
				t.Fatalf("pendingtail.json has no %s fit of %s: rerun pendingtail.R", fam, name)
			}
			t.Run(strings.TrimSuffix(name, ".csv")+"/"+fam, func(t *testing.T) {
				d, err := MaxLikelihood(fam, s)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range familyParams[fam] {
					if got := d.Params[p]; !scalar.EqualWithinRel(got, want[p], 2e-6) {
						t.Errorf("MaxLikelihood(%s).%s = %.10g, want %.10g (R)", fam, p, got, want[p])
					}
				}
				if got := logLik(d, s, 0); !scalar.EqualWithinRel(got, want["loglik"], 1e-11) {
					t.Errorf("log-likelihood = %.12g, want %.12g (R)", got, want["loglik"])
				}
			})
		}
	}
}

// TestLogSurvivalTail compares ln S(t) and ln F(t) far in the tails,
// where S or F is below the smallest float64 or within rounding of 1,
// with R's p*(…, log.p = TRUE) (R 4.2.2; pweibull, plnorm, pgamma with
// rate, pexp).
func TestLogSurvivalTail(t *testing.T) {
	for _, c := range []struct {
		spec         string
		t            float64
		logS, logCDF float64
	}{
		{"weibull:k=1.5,lambda=30", 5000, -2151.6574145596801, 0},
		{"weibull:k=1.5,lambda=30", 1e-3, -1.9245008972987499e-07, -15.4634290871915},
		{"lognormal:mu=3,sigma=0.8", 1e5, -59.909421362149899, -9.5866945112248595e-27},
		{"lognormal:mu=3,sigma=0.3", 1e5, -406.87629045229698, -1.9763881409625998e-177},
		{"lognormal:mu=3,sigma=0.2", 1e5, -910.54426294252664, 0},
		{"lognormal:mu=3,sigma=0.3", 1e-3, -1.72854239670523e-239, -549.77055871746495},
		{"lognormal:mu=3,sigma=0.8", 20, -0.68889979238474297, -0.69741268601995299},
		{"gamma:alpha=2,beta=0.05", 1e5, -4991.4826068285802, 0},
		{"gamma:alpha=0.3,beta=0.0016", 5000, -10.627536360217899, -2.42395674726793e-05},
		{"gamma:alpha=50,beta=1", 1e-2, -3.2558721772149099e-165, -378.74608015426003},
		{"gamma:alpha=2,beta=0.05", 30, -0.583709268125845, -0.81605045312010405},
		{"exponential:rate=0.05", 1e5, -5000, 0},
	} {
		d, err := ParseDist(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.logSurvival(c.t); !scalar.EqualWithinAbsOrRel(got, c.logS, 1e-300, 1e-12) {
			t.Errorf("%s: ln S(%g) = %.17g, want %.17g (R)", c.spec, c.t, got, c.logS)
		}
		if got := d.logCDF(c.t); !scalar.EqualWithinAbsOrRel(got, c.logCDF, 1e-300, 1e-12) {
			t.Errorf("%s: ln F(%g) = %.17g, want %.17g (R)", c.spec, c.t, got, c.logCDF)
		}
	}
}

// TestMaxLikelihoodNoMaximum checks the samples on which a family's
// likelihood has no maximum: the error says why and what to try.
func TestMaxLikelihoodNoMaximum(t *testing.T) {
	for _, c := range []struct {
		name, family string
		s            *sample.Sample
		want         string
	}{
		{"one value", Weibull, &sample.Sample{Times: []float64{5, 5, 5}}, "weibull needs at least two distinct settled times > 0: on one value its likelihood has no maximum (the spread shrinks to 0); try the kde method"},
		{"one value censored", LogNormal, &sample.Sample{Times: []float64{5, 5, 9}, Censored: []bool{false, false, true}}, "lognormal needs at least two distinct settled times > 0"},
		{"all zero", Exponential, &sample.Sample{Times: []float64{0, 0}}, "exponential: all times are 0: its rate has no maximum likelihood value; try the kde method"},
		{"all pending", Gamma, &sample.Sample{Times: []float64{1, 2}, Censored: []bool{true, true}}, "gamma needs at least one settled item"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := MaxLikelihood(c.family, c.s)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("MaxLikelihood(%s) error = %v, want %q…", c.family, err, c.want)
			}
			if strings.HasPrefix(err.Error(), "fit:") {
				t.Errorf("error %q has the package prefix that Estimate adds", err)
			}
		})
	}
	// Through Estimate the prefix is added once.
	_, err := Estimate(&sample.Sample{Times: []float64{5, 5, 5}}, Options{Method: Weibull})
	if err == nil || strings.Count(err.Error(), "fit:") != 1 {
		t.Errorf("Estimate error = %v, want one fit: prefix", err)
	}
}

// TestEstimatePendingTailWarning checks the warning of a parametric fit
// whose pending items outlive every settle: given for each family when
// 5 % pending sit at 1000–5000 s beyond settles that end at 124 s (the
// Weibull fit puts 0.237 beyond, exp(−(124.19/59.78)^0.4975) from R's
// survreg), and not when the pending ages, 10–60 s, end before the last
// settle.
func TestEstimatePendingTailWarning(t *testing.T) {
	for _, c := range []struct {
		file   string
		method string
		want   string // "" for no warning
	}{
		{"pending_1000_5000.csv", Weibull, "0.05 of the mass lies beyond the last settle at 124.2s (pending items outlive it); with no share that never settles, the weibull fit stretches its tail to put 0.237 there"},
		{"pending_1000_5000.csv", LogNormal, "the lognormal fit stretches its tail"},
		{"pending_10000_100000.csv", Gamma, "the gamma fit stretches its tail"},
		{"pending_1000_5000.csv", Exponential, "the exponential fit stretches its tail"},
		{"pending_10_60.csv", Weibull, ""},
		{"pending_10_60.csv", Gamma, ""},
	} {
		t.Run(c.file+"/"+c.method, func(t *testing.T) {
			d, err := Estimate(readPendingTail(t, c.file), Options{Method: c.method})
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, w := range d.Warnings {
				if strings.Contains(w, "stretches its tail") {
					got = w
				}
			}
			switch {
			case c.want == "" && got != "":
				t.Errorf("warning %q, want none", got)
			case c.want != "" && !strings.Contains(got, c.want):
				t.Errorf("warnings %q, want one containing %q", d.Warnings, c.want)
			case c.want != "" && !strings.Contains(got, "--method lognormal-mixture fits such a share"):
				t.Errorf("warning %q does not say what to try", got)
			}
		})
	}
}
