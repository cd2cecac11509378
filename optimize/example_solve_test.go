package optimize_test

import (
	"fmt"

	"github.com/pollfit/pollfit/optimize"
	"gonum.org/v1/gonum/stat/distuv"
)

// Exponential settle times with mean 10 s and a poll worth 1 s of lag:
// the optimum polls evenly, every δ with e^{δ/10} − 1 − δ/10 = 0.1
// (δ ≈ 4.26 s), here 4.2 s on the 100 ms grid. For even gaps δ the mean
// lag is δ/(1 − e^{−δ/10}) − 10 = 2.2466 s (2.2465 on the grid model,
// whose CDF is linear within a cell) and the polls per item
// 1/(1 − e^{−δ/10}) = 2.916.
func ExampleExact() {
	r, err := optimize.Exact(distuv.Exponential{Rate: 0.1}, optimize.Budget{PollCost: 1}, optimize.Options{})
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

// The best three-phase schedule for a lognormal settle time (median
// e² ≈ 7.4 s) within 60 stuck polls.
func ExamplePhased() {
	r, err := optimize.Phased(distuv.LogNormal{Mu: 2, Sigma: 1}, optimize.Budget{StuckPolls: 60}, 3, optimize.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Schedule)
	fmt.Printf("mean lag %.4g s (exact optimum %.4g s), %d stuck polls\n", r.Expected.MeanLag, r.Optimum.MeanLag, r.Expected.StuckPolls)
	// Output:
	// at 1s, every 1s until 45s, every 15s until 3m, every 2m until 15m
	// mean lag 0.8302 s (exact optimum 0.5254 s), 60 stuck polls
}
