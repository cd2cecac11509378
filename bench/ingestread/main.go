// Command ingestread times fit.Read (and fit.Estimate) on one input, for
// bench/ingest.sh when the pollfit binary is not available.
//
//	go run ./bench/ingestread [-estimate] [-column settle_s] FILE...
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/pollfit/pollfit/fit"
)

func main() {
	column := flag.String("column", "settle_s", "duration column")
	estimate := flag.Bool("estimate", false, "also run fit.Estimate")
	flag.Parse()
	t0 := time.Now()
	s, rep, err := fit.Read(flag.Args(), fit.ReadOptions{Column: *column, Progress: fit.TerminalProgress(os.Stderr)})
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
