// Command pollfit derives poll schedules from historical settle times.
//
// It reads settle times (CSV or Parquet), fits their distribution, solves
// for the poll schedule that minimises the expected lag under a request
// budget, prints it as a short piecewise spec, exports it as code or JSON,
// and scores any schedule on the data. See README.md.
package main

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/internal/app"
)

// bundled is the real dataset plan runs on without --input: Julia CI job
// durations (MIT; see fixtures/README.md).
//
//go:embed fixtures/julia_ci_job_durations.csv
var bundled []byte

func main() {
	if err := run(os.Args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "pollfit: %v\n", err)
		os.Exit(exitCode(err))
	}
}

// exitCode is 2 for usage errors (bad or missing flags), else 1.
func exitCode(err error) int {
	var ue *app.UsageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// run runs the command line args (args[0] is the program name).
func run(args []string, stdout, stderr io.Writer) error {
	return newApp(stdout, stderr).Run(args)
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:                      "pollfit",
		Usage:                     "derive poll schedules from historical settle times",
		Writer:                    stdout,
		ErrWriter:                 stderr,
		DisableSliceFlagSeparator: true, // specs contain commas
		HideHelpCommand:           true,
		ExitErrHandler:            func(*cli.Context, error) {}, // main decides the exit code
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &app.UsageError{Err: err}
		},
		Commands: []*cli.Command{
			evaluateCommand(stdout, stderr),
		},
	}
}

// inputFlags are the flags of every command that reads settle times.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "input", Aliases: []string{"i"}, Usage: "settle times: CSV file (`FILE`)"},
		&cli.StringFlag{Name: "column", Aliases: []string{"c"}, Usage: "column holding settle times (seconds, or Go durations such as 1.5s)"},
		&cli.StringFlag{Name: "unit", Value: "s", Usage: "unit of bare numbers: ms, s, m or h"},
		&cli.BoolFlag{Name: "drop-invalid", Usage: "drop rows with empty, non-numeric, infinite or negative values (counted on stderr) instead of failing"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "do not report row counts and progress on stderr"},
	}
}

func inputOf(c *cli.Context, withBundled bool) (app.Input, error) {
	unit, err := fit.ParseUnit(c.String("unit"))
	if err != nil {
		return app.Input{}, app.Usagef("--unit: %w", err)
	}
	in := app.Input{
		Path:  c.String("input"),
		Quiet: c.Bool("quiet"),
		Read: fit.ReadOptions{
			Column:      c.String("column"),
			Unit:        unit,
			DropInvalid: c.Bool("drop-invalid"),
		},
	}
	if withBundled {
		in.Bundled = &app.Bundled{Name: "julia_ci_job_durations.csv", Data: bundled, Column: "duration_s"}
	}
	return in, nil
}

func evaluateCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "evaluate",
		Usage:     "score schedules: polls by age, stuck cost and, with --input, lag quantiles and polls per item",
		UsageText: "pollfit evaluate [--input FILE --column NAME] --schedule SPEC_OR_FILE [--schedule …] [--at 30s,2m,15m] [--format table|json|csv] [--polls]",
		Flags: append(inputFlags(),
			&cli.StringSliceFlag{Name: "schedule", Aliases: []string{"s"}, Usage: "a spec (\"every 1s until 30s, every 2s until 2m\"), NAME=SPEC, a reference name (before, 76cd188, a74b69e, now) or a schedule file; repeatable"},
			&cli.StringFlag{Name: "at", Value: "30s,2m,15m", Usage: "count polls made by these ages"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table, json or csv"},
			&cli.BoolFlag{Name: "polls", Usage: "list each schedule's poll times (seconds from age 0)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the Monte Carlo draws of jittered schedules"},
			&cli.IntFlag{Name: "draws", Value: 200, Usage: "Monte Carlo draws for jittered schedules"},
		),
		Action: func(c *cli.Context) error {
			in, err := inputOf(c, false)
			if err != nil {
				return err
			}
			return app.Evaluate{
				Input:     in,
				Schedules: c.StringSlice("schedule"),
				Ages:      c.String("at"),
				Format:    c.String("format"),
				Polls:     c.Bool("polls"),
				Seed:      c.Uint64("seed"),
				Draws:     c.Int("draws"),
			}.Run(stdout, stderr)
		},
	}
}
