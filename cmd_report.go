package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pollfit/pollfit/internal/app"
)

// reportFlags are compare's contest flags with the report's own default
// families (app.DefaultReportFamilies).
func reportContestFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range contestFlags() {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "families" {
			g := *sf
			g.Value = app.DefaultReportFamilies
			f = &g
		}
		out = append(out, f)
	}
	return out
}

func reportCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write one self-contained HTML page: the data, the fit, the schedule compared on held-out rows, what the budget buys, the export",
		UsageText: "pollfit report [--input FILE --column NAME] (--budget N | --mean-polls M) [--segment COLUMN] [the plan flags] [--budgets A..B[:N]] -o report.html\n" +
			"   without --input: the bundled Julia CI job durations, --horizon 2h --budget 120",
		Flags: flags(inputFlags(), solveFlags(), fitFlags("fit-"), batchFlags(), reportContestFlags(), []cli.Flag{
			&cli.StringFlag{Name: "budgets", Usage: "the slider's stuck-poll budgets `A..B[:N]`, log-spaced", DefaultText: fmt.Sprintf("%d from a quarter of --budget to four times it", app.DefaultReportSteps)},
			&cli.StringFlag{Name: "mean-polls-range", Usage: "the slider's mean-poll budgets `A..B[:N]` instead of stuck polls"},
			&cli.StringFlag{Name: "at", Usage: "count polls made by these ages, e.g. 30s,2m,15m", DefaultText: "horizon/30, horizon/7.5 and the horizon, rounded to nice durations"},
			&cli.StringFlag{Name: "title", Usage: "the page's `TITLE`", DefaultText: "pollfit report: and the input's name"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the page to `FILE` (written whole or not at all); default stdout"},
		}),
		Action: func(c *cli.Context) error {
			in, err := inputOf(c, stderr, true)
			if err != nil {
				return err
			}
			bundledDefaults(c, in)
			sv, err := solveOf(c)
			if err != nil {
				return err
			}
			return app.Report{
				Input:     in,
				Fit:       fitOf(c, "fit-"),
				Solve:     sv,
				Families:  c.String("families"),
				Schedules: c.StringSlice("schedule"),
				Holdout:   c.Float64("holdout"),
				Seed:      c.Uint64("seed"),
				Draws:     c.Int("draws"),
				Ages:      c.String("at"),
				Batches:   batchesOf(c),
				Budgets:   c.String("budgets"),
				MeanPolls: c.String("mean-polls-range"),
				Title:     c.String("title"),
				Command:   commandLine(c),
				Version:   version(),
				Out:       c.String("output"),
			}.Run(stdout, stderr)
		},
	}
}

// bundledDefaults sets the bundled data's horizon and budget (bundledPreset)
// on a run without --input where they are not given.
func bundledDefaults(c *cli.Context, in app.Input) {
	if len(in.Paths) > 0 || c.String("dist") != "" {
		return
	}
	if !c.IsSet("horizon") {
		c.Set("horizon", bundledPreset.horizon)
	}
	if !c.IsSet("budget") && !c.IsSet("mean-polls") && !c.IsSet("poll-cost") {
		c.Set("budget", fmt.Sprint(bundledPreset.budget))
	}
}

// commandLine is the command line the app runs, quoted for a POSIX shell
// where a word needs it, for the report to say how it was made.
func commandLine(c *cli.Context) string {
	args, _ := c.App.Metadata["args"].([]string)
	if len(args) == 0 {
		return "pollfit " + c.Command.Name
	}
	words := []string{"pollfit"}
	for _, a := range args[1:] {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:=,@%+.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
