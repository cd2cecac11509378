package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pollfit/pollfit/internal/app"
	"github.com/pollfit/pollfit/optimize"
)

// contestFlags are the flags compare and sweep add to the input, solver
// and fit flags: the families, the user's schedules and the hold-out
// split.
func contestFlags() []cli.Flag {
	return inCategory(catScore, []cli.Flag{
		&cli.StringFlag{Name: "families", Value: "all", Usage: "baseline families tuned to the same budget: all, none, or a list of fixed, linear, exp, poly, fib, each optionally -full, -equal, -decorrelated or -P% (jitter)"},
		&cli.StringSliceFlag{Name: "schedule", Aliases: []string{"s"}, Usage: "your schedule, scored as it is: a spec, NAME=SPEC, a reference name or a file; repeatable"},
		&cli.Float64Flag{Name: "holdout", Value: 0.3, Usage: "share of items held out: fitted on the rest, scored on these"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the hold-out split and of the Monte Carlo draws of jittered schedules"},
		&cli.IntFlag{Name: "draws", Value: optimize.DefaultDraws, Usage: "Monte Carlo draws for jittered schedules"},
	})
}

// sweepSolveFlags are solveFlags without the budget flags: sweep takes
// its budgets from --budgets or --mean-polls-range.
func sweepSolveFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range solveFlags() {
		switch f.Names()[0] {
		case "budget", "mean-polls", "poll-cost":
			continue
		}
		out = append(out, f)
	}
	return out
}

func compareCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "compare",
		Usage: "compare the derived schedule with baseline families tuned to the same budget, on held-out items",
		UsageText: "pollfit compare --input FILE --column NAME (--budget N | --mean-polls M) [--families all|exp,poly,…] [--schedule SPEC …]\n" +
			"   [--holdout 0.3] [--seed S] [--in-sample] [--segment COLUMN] [--arrivals 50/s [--burst N]] [--format table|json|csv]",
		Flags: flags(inputFlags(), solveFlags(), fitFlags("fit-"), contestFlags(), scoreFlags(), []cli.Flag{
			&cli.BoolFlag{Name: "in-sample", Usage: "also score on the items fitted on (optimistic)"},
		}),
		Action: func(c *cli.Context) error {
			in, err := inputOf(c, stderr, false)
			if err != nil {
				return err
			}
			sv, err := solveOf(c)
			if err != nil {
				return err
			}
			load, err := loadOf(c)
			if err != nil {
				return err
			}
			return app.Compare{
				Input:     in,
				Fit:       fitOf(c, "fit-"),
				Solve:     sv,
				Families:  c.String("families"),
				Schedules: c.StringSlice("schedule"),
				Holdout:   c.Float64("holdout"),
				Seed:      c.Uint64("seed"),
				InSample:  c.Bool("in-sample"),
				Draws:     c.Int("draws"),
				Ages:      c.String("at"),
				Format:    c.String("format"),
				Load:      load,
			}.Run(stdout, stderr)
		},
	}
}

// loadOf reads --arrivals and --burst.
func loadOf(c *cli.Context) (app.Load, error) {
	var l app.Load
	if s := c.String("arrivals"); s != "" {
		r, err := app.ParseRate("arrivals", s)
		if err != nil {
			return l, err
		}
		l.Arrivals = r
	}
	l.Burst = c.Int("burst")
	if l.Burst < 0 {
		return l, app.Usagef("--burst %d: want a number of items ≥ 0", l.Burst)
	}
	if l.Burst > 0 && l.Arrivals == 0 {
		return l, app.Usagef("--burst needs --arrivals")
	}
	return l, nil
}

func sweepCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "sweep",
		Usage: "the lag–budget frontier: the optimum, the K-phase schedule and each family across budgets, your schedules as points",
		UsageText: "pollfit sweep --input FILE --column NAME (--budgets 10..300[:N] | --mean-polls-range 2..20[:N]) [--families …] [--schedule SPEC …]\n" +
			"   [--segment COLUMN] [-o sweep.csv] [--plot sweep.svg|png]",
		Flags: flags(inputFlags(), sweepSolveFlags(), fitFlags("fit-"), contestFlags(), []cli.Flag{
			&cli.StringFlag{Name: "budgets", Usage: "stuck-poll budgets `A..B[:N]`: N points (default 12) log-spaced from A to B"},
			&cli.StringFlag{Name: "mean-polls-range", Usage: "mean-poll budgets `A..B[:N]` instead of stuck polls"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the CSV to `FILE` (written whole or not at all); default stdout"},
			&cli.StringFlag{Name: "plot", Usage: "draw mean lag against budget to `FILE`.svg or .png" + perSegmentPlot},
		}),
		Action: func(c *cli.Context) error {
			in, err := inputOf(c, stderr, false)
			if err != nil {
				return err
			}
			sv, err := solveOf(c)
			if err != nil {
				return err
			}
			return app.Sweep{
				Input:     in,
				Fit:       fitOf(c, "fit-"),
				Solve:     sv,
				Budgets:   c.String("budgets"),
				MeanPolls: c.String("mean-polls-range"),
				Families:  c.String("families"),
				Schedules: c.StringSlice("schedule"),
				Holdout:   c.Float64("holdout"),
				Seed:      c.Uint64("seed"),
				Draws:     c.Int("draws"),
				Out:       c.String("output"),
				Plot:      c.String("plot"),
				Quiet:     c.Bool("quiet"),
			}.Run(stdout, stderr)
		},
	}
}
