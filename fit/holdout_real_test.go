package fit

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pollfit/pollfit/sample"
)

// TestHoldoutRealData measures the held-out log-likelihood of every
// domain and bandwidth rule on the real datasets, the figures behind
// DefaultDomain and DefaultBandwidth (docs/fit.md). It reads the shared
// data directory, which is not part of the repository, so it runs only
// when POLLFIT_REAL_DATA names it:
//
//	POLLFIT_REAL_DATA=/work/shared/data/real go test ./fit -run HoldoutRealData -v
func TestHoldoutRealData(t *testing.T) {
	dir := os.Getenv("POLLFIT_REAL_DATA")
	if dir == "" {
		t.Skip("POLLFIT_REAL_DATA not set")
	}
	sets := []struct{ name, file, col string }{
		{"julia", "julia_ci_job_durations.csv", "duration_s"},
		{"nasa", "nasa_ipsc_1993_jobs.csv", "run_time_s"},
		{"eth", "eth_tx_waiting_time_eset.csv", "waiting_time"}, // negatives clipped to 0
	}
	seeds := []uint64{1, 2, 3}
	for _, ds := range sets {
		s := &sample.Sample{Times: readColumn(t, filepath.Join(dir, ds.file), ds.col)}
		for _, dom := range []string{DomainLog, DomainLinear, DomainReflect} {
			for _, bw := range []string{BandwidthSilverman, BandwidthScott, BandwidthSJ, BandwidthISJ} {
				sum := 0.0
				var atoms int
				for _, seed := range seeds {
					d, err := Estimate(s, Options{Domain: dom, Bandwidth: bw, Holdout: 0.2, Seed: seed})
					if err != nil {
						t.Fatalf("%s %s %s: %v", ds.name, dom, bw, err)
					}
					sum += d.HoldoutLogLik
					atoms = len(d.Atoms)
				}
				fmt.Printf("| %s | %s | %s | %.4f | %d |\n", ds.name, dom, bw, sum/float64(len(seeds)), atoms)
			}
		}
	}
}
