package optimize_test

import (
	"fmt"
	"time"

	"github.com/pollfit/pollfit/optimize"
	"gonum.org/v1/gonum/stat/distuv"
)

// Exponential settle times with mean 10 s and a poll worth 1 s of lag:
// the optimum polls evenly, every δ with e^{δ/10} − 1 − δ/10 = 0.1
// (δ ≈ 4.164 s), here 4.2 s on the 100 ms grid of a 15-minute horizon. For even gaps δ the mean
// lag is δ/(1 − e^{−δ/10}) − 10 = 2.2466 s (2.2465 on the grid model,
// whose CDF is linear within a cell) and the polls per item
// 1/(1 − e^{−δ/10}) = 2.916.
func ExampleExact() {
	r, err := optimize.Exact(distuv.Exponential{Rate: 0.1}, optimize.Budget{PollCost: 1}, optimize.Options{Horizon: 15 * time.Minute})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Polls[:4])
	fmt.Printf("mean lag %.4g s, %.4g polls per item\n", r.Expected.MeanLag, r.Expected.MeanPolls)
	// Output:
	// [4.2s 8.4s 12.6s 16.8s]
	// mean lag 2.246 s, 2.916 polls per item
}

// The best schedule of at most three phases for a lognormal settle time
// (median e² ≈ 7.4 s) within 60 stuck polls: two whose gaps grow, then the
// poll at the horizon (a plain gap, not counted as a phase), within 2 % of
// the exact optimum. With no options, the horizon follows
// the distribution: its 99th percentile is e^(2 + 2.326) ≈ 75.6 s, and the
// next nice duration is 1m30s; the grid and the least gap follow the
// horizon (10 ms and 100 ms).
func ExamplePhased() {
	d := distuv.LogNormal{Mu: 2, Sigma: 1}
	o, err := optimize.Options{}.Resolve(d)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("horizon", o.Horizon, "resolution", o.Resolution, "min gap", o.MinGap)
	r, err := optimize.Phased(d, optimize.Budget{StuckPolls: 60}, 3, optimize.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Schedule)
	fmt.Printf("mean lag %.4g s (exact optimum %.4g s), %d stuck polls\n", r.Expected.MeanLag, r.Optimum.MeanLag, r.Expected.StuckPolls)
	// Output:
	// horizon 1m30s resolution 10ms min gap 100ms
	// at 1.1s, exp 300ms x1.03 cap 1s until 20.5s, exp 1s x1.1 cap 5s until 1m20s, 8.5025s
	// mean lag 0.3851 s (exact optimum 0.3784 s), 60 stuck polls
}
