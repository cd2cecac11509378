package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// weibullCSV writes n settle times drawn from Weibull(k, scale seconds)
// by inversion, t = scale·(−ln U)^(1/k), with a seeded generator.
func weibullCSV(t *testing.T, n int, k, scale float64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 5))
	var b strings.Builder
	b.WriteString("settle_s\n")
	for range n {
		fmt.Fprintf(&b, "%.4f\n", scale*math.Pow(-math.Log(1-r.Float64()), 1/k))
	}
	path := filepath.Join(t.TempDir(), "weib.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A new user's case: 5000 Weibull(k = 1.5, 10 s) settle times, 15 stuck
// polls, the default horizon 30 s. The default grid was 3 ms (30 s/8192
// = 3.66 ms rounded down to a nice step), of which 5s, 10s and 20s are no
// multiples: at --min-gap 5s the schedule was "at 15s, 15s", ×3.4 the
// exact optimum at the same min gap, and at 2s it took 3 s gaps (×1.5)
// leaving 5 polls unspent. The grid now divides every nice gap from the
// min gap (2 ms), and the schedule comes within ×1.1 of the optimum.
func TestWeibullNiceGapsOnGrid(t *testing.T) {
	path := weibullCSV(t, 5000, 1.5, 10)
	for _, mg := range []time.Duration{5 * time.Second, 2 * time.Second} {
		t.Run(mg.String(), func(t *testing.T) {
			p := Plan{
				Input:   Input{Paths: []string{path}, Read: ingest.ReadOptions{Column: "settle_s"}, Quiet: true},
				Solve:   Solve{Budget: optimize.Budget{StuckPolls: 15}, Options: optimize.Options{MinGap: mg}},
				Format:  "json",
				Holdout: 0.3, Seed: 1,
			}
			var out bytes.Buffer
			if err := p.Run(&out, io.Discard); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Schedule struct {
					Spec string `json:"spec"`
					Meta struct {
						Lag   float64 `json:"expected_lag_s"`
						Exact float64 `json:"exact_lag_s"`
						Stuck int     `json:"stuck_polls"`
					} `json:"meta"`
				} `json:"schedule"`
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			m := got.Schedule.Meta
			if !(m.Exact > 0) || m.Lag > 1.1*m.Exact {
				t.Errorf("schedule %q lags %.3fs, ×%.3f the exact optimum's %.3fs; want within ×1.1",
					got.Schedule.Spec, m.Lag, m.Lag/m.Exact, m.Exact)
			}
			if m.Stuck < 5 {
				t.Errorf("schedule %q makes %d stuck polls of 15", got.Schedule.Spec, m.Stuck)
			}
		})
	}
}

// A --resolution of which nice gaps are no multiples: plan warns, naming
// it and the gaps, and the binding warning puts the loss down to the
// resolution, not to --nice-gaps. Over 5 m from a 300 ms min gap, a
// 30 ms grid drops 500ms, 1s, 2s, 5s, 10s and 20s (500/30, 1000/30, …
// are not whole) and keeps 300ms, 1.5s, 3s, 15s, 30s, 45s, 1m…; the
// default grid, 20 ms, divides them all.
func TestResolutionDropsGapsWarning(t *testing.T) {
	ms, s := time.Millisecond, time.Second
	o := optimize.Options{Horizon: 5 * time.Minute, Resolution: 30 * ms, MinGap: 300 * ms,
		NiceGaps: optimize.NiceDurations(300*ms, 5*time.Minute)}
	want := "the resolution 30ms leaves out the nice gaps 500ms, 1s, 2s, 5s, 10s, 20s (not multiples of it): --resolution 20ms takes them (or leave it out: that is the default here)"
	if got := droppedGaps(o); got != want {
		t.Errorf("droppedGaps = %q,\nwant %q", got, want)
	}
	o.Resolution = 20 * ms
	if got := droppedGaps(o); got != "" {
		t.Errorf("droppedGaps at 20ms = %q, want none", got)
	}
	// The binding warning: the best phased schedule ×1.19 the optimum.
	o.Resolution = 30 * ms
	e := func(lag float64) optimize.Expectation {
		return optimize.Expectation{MeanLag: lag, TotalLag: lag, MeanPolls: 5, StuckPolls: 60, Caught: 1}
	}
	r := &optimize.Result{Method: "phased", Expected: e(0.595), Options: o}
	d := &derived{
		Result: r,
		Exact:  &optimize.Result{Method: "exact", Expected: e(0.5)},
		Simple: []optimize.Simplicity{{K: 1, MeanLag: 0.595, Ratio: 1.19, Result: r, Constant: r, ConstantRatio: 1.19}},
	}
	want = "this schedule's mean lag is ×1.19 the exact optimum's (500ms): the resolution 30ms binds (×1.19: the best of up to 8 phases of the nice gaps it keeps against the exact optimum at the same min gap; 500ms, 1s, 2s, 5s, 10s, 20s are not multiples of it): --resolution 20ms takes them (or leave it out: that is the default here), --phases exact gives the optimum itself"
	if w := d.binding(Solve{Budget: optimize.Budget{StuckPolls: 60}}); len(w) != 1 || w[0] != want {
		t.Errorf("binding = %q,\nwant [%q]", w, want)
	}
	// With --nice-gaps none of which the resolution divides, the error
	// names them and says there is no max gap.
	o.NiceGaps = []time.Duration{500 * ms, s, 2 * s, 5 * s, 10 * s}
	wantErr := "invalid solver options: no nice gap between min gap 300ms and the horizon 5m (no max gap) is a multiple of the resolution 30ms (500ms, 1s, 2s, 5s, 10s are not; the resolution 20ms divides them)"
	if _, err := (Solve{Budget: optimize.Budget{StuckPolls: 60}, Options: o}).solve(cdfLinear{}, false); err == nil || err.Error() != wantErr {
		t.Errorf("error = %v,\nwant %s", err, wantErr)
	}
}

// cdfLinear is uniform on [0, 100 s].
type cdfLinear struct{}

func (cdfLinear) CDF(t float64) float64 { return min(max(t/100, 0), 1) }
