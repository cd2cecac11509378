package main

import (
	"io"
	"os"
	"runtime/debug"
	"testing"
)

// BenchmarkPlanPayments runs `pollfit plan` in-process on the payments
// fixture at the budgets of the brief's "now" schedule and its 15-minute
// horizon, with the default --phases auto: the read, the fit, the exact
// optimum, the price of simplicity of K = 1 … 8 with growing phases, and
// the scoring on the held-out rows (issue 17: under 3 s on the 2-core
// machine). docs/performance.md has the figures.
func BenchmarkPlanPayments(b *testing.B) {
	args := []string{"pollfit", "plan", "--input", "fixtures/payments.csv", "--column", "settle_s",
		"--status", "status", "--pending", "pending", "--horizon", "15m", "--budget", "152", "--mean-polls", "18.58", "--quiet"}
	for b.Loop() {
		if err := run(args, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanBundled is `pollfit plan` on the bundled Julia CI data.
func BenchmarkPlanBundled(b *testing.B) {
	for b.Loop() {
		if err := run([]string{"pollfit", "plan", "--quiet"}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitFile runs `pollfit fit --input $POLLFIT_BENCH_INPUT --column
// settle_s --quiet` in-process, with main's collector setting, so that
// the whole command (read, fit, JSON out) can be profiled:
//
//	POLLFIT_BENCH_INPUT=/tmp/pollfit-ingest/payments-10000000.csv \
//	  go test -run '^$' -bench FitFile -benchtime 3x -cpuprofile cpu.out .
//
// It is skipped when the variable is unset (bench/ingest.sh makes the
// files).
func BenchmarkFitFile(b *testing.B) {
	in := os.Getenv("POLLFIT_BENCH_INPUT")
	if in == "" {
		b.Skip("POLLFIT_BENCH_INPUT is not set")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	args := []string{"pollfit", "fit", "--input", in, "--column", "settle_s", "--quiet"}
	b.ReportAllocs()
	for b.Loop() {
		if err := run(args, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
