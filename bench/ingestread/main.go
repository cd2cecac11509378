// Command ingestread times ingest.Read (and fit.Estimate) on one input, for
// bench/ingest.sh when the pollfit binary is not available.
//
//	go run ./bench/ingestread [-estimate] [-column settle_s] [-cpuprofile F] FILE...
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
)

func main() {
	column := flag.String("column", "settle_s", "duration column")
	estimate := flag.Bool("estimate", false, "also run fit.Estimate")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file (go tool pprof)")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "ingestread:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	t0 := time.Now()
	s, rep, err := ingest.Read(flag.Args(), ingest.ReadOptions{Column: *column, Progress: ingest.TerminalProgress(os.Stderr)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ingestread:", err)
		os.Exit(1)
	}
	read := time.Since(t0)
	if *estimate {
		if _, err := fit.Estimate(s, fit.Options{}); err != nil {
			fmt.Fprintln(os.Stderr, "ingestread:", err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "%s; read %v, total %v\n", rep, read.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
}
