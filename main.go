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
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/app"
	"github.com/pollfit/pollfit/internal/outfile"
	"github.com/pollfit/pollfit/optimize"
)

// bundled is the real dataset plan runs on without --input: Julia CI job
// durations (MIT; see fixtures/README.md).
//
//go:embed fixtures/julia_ci_job_durations.csv
var bundled []byte

func main() {
	// A run stopped by ^C or kill leaves no temporary output files.
	outfile.RemoveTempsOnSignal()
	// The heap is mostly the sample's pointer-free arrays, which the
	// collector does not scan: collecting at 25% growth instead of 100%
	// cost 4% more CPU on 10⁷ rows and cut the peak memory by a third
	// (docs/performance.md, Memory). GOGC, when set, decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(app.GCPercent)
	}
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

// version is the module version, or the VCS revision of a build from a
// clone ("devel" when neither is known).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel " + rev
}

// run runs the command line args (args[0] is the program name).
func run(args []string, stdout, stderr io.Writer) error {
	a := newApp(stdout, stderr)
	a.Metadata = map[string]any{"args": args} // for report's command line
	return a.Run(args)
}

func newApp(stdout, stderr io.Writer) *cli.App {
	a := &cli.App{
		Name:                      "pollfit",
		Usage:                     "derive poll schedules from historical settle times",
		UsageText:                 "pollfit COMMAND [options]\n   pollfit help COMMAND: the command's options, by category",
		Writer:                    stdout,
		ErrWriter:                 stderr,
		DisableSliceFlagSeparator: true, // specs contain commas
		HideHelpCommand:           true,
		ExitErrHandler:            func(*cli.Context, error) {}, // main decides the exit code
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &app.UsageError{Err: err}
		},
		Version: version(),
		Action: func(c *cli.Context) error {
			switch c.Args().First() {
			case "":
				return cli.ShowAppHelp(c)
			case "help":
				return helpAction(c)
			case "version":
				cli.ShowVersion(c)
				return nil
			}
			return &app.UsageError{Err: fmt.Errorf("unknown command %q (see pollfit --help)", c.Args().First())}
		},
		Commands: []*cli.Command{
			planCommand(stdout, stderr),
			fitCommand(stdout, stderr),
			optimizeCommand(stdout, stderr),
			exportCommand(stdout, stderr),
			evaluateCommand(stdout, stderr),
			compareCommand(stdout, stderr),
			sweepCommand(stdout, stderr),
			reportCommand(stdout, stderr),
			completionCommand(stdout),
			manCommand(stdout),
		},
	}
	for _, c := range a.Commands {
		c.CustomHelpTemplate = commandHelp
		categorize(c)
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return &app.UsageError{Err: fmt.Errorf("%w (see pollfit %s --help)", flagValueError(c, err), c.Name)}
		}
		if c.Name == "completion" {
			continue // takes the shell as its argument
		}
		// No other command takes arguments: a stray word is a flag gone wrong.
		c.Before = func(ctx *cli.Context) error {
			if ctx.Args().Present() {
				return &app.UsageError{Err: fmt.Errorf("unexpected argument %q: options come as --name value (see pollfit %s --help)", ctx.Args().First(), c.Name)}
			}
			return nil
		}
	}
	return a
}

// perSegmentPlot ends the help of every --plot flag.
const perSegmentPlot = "; with --segment, one more per segment, named FILE-SEGMENT.png (or .svg)"

// inputFlags are the flags of every command that reads settle times.
func inputFlags() []cli.Flag {
	return inCategory(catInput, []cli.Flag{
		&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "settle times: a CSV (.csv, .csv.gz, .csv.zst) or Parquet `FILE`, a glob, a directory (Hive-partitioned too) or - for stdin; repeatable. Without it, data piped or redirected in is read as -; a terminal or /dev/null is no data"},
		&cli.StringFlag{Name: "column", Aliases: []string{"c"}, Usage: "column holding settle times (bare numbers in --unit, or Go durations such as 1.5s); may go with --start or --end, whose timestamps then place each item in time"},
		&cli.StringFlag{Name: "unit", Usage: "unit of bare numbers: ns, us, ms, s, m, h or d", DefaultText: "from the column name, as in Latency(ms), settle_ms, duration_seconds, elapsedMillis; else s"},
		&cli.StringFlag{Name: "start", Usage: "the column of creation timestamps (RFC 3339, where no zone means UTC, or epoch numbers with --epoch): with --end, settle times are end − start; with --column, items were created at start"},
		&cli.StringFlag{Name: "end", Usage: "the column of settle timestamps, empty when still pending: with --start, settle times are end − start; with --column, items were created at end − column (pending ones at --observed-at − column)"},
		&cli.StringFlag{Name: "epoch", Usage: "numeric timestamps are epoch s, ms, us or ns, in --start, --end and --observed-at alike (RFC 3339 ones are still read as such)"},
		&cli.StringFlag{Name: "status", Usage: "column of outcomes; any terminal outcome, failed included, is a settle"},
		&cli.StringFlag{Name: "pending", Usage: "comma-separated --status values of items still pending (right-censored)"},
		&cli.StringFlag{Name: "observed-at", Usage: "when observation ended (RFC 3339, where no zone means UTC, or an epoch number with --epoch): the censoring age of pending rows without a duration, or with --end and --column their creation"},
		&cli.StringFlag{Name: "exclude-status", Usage: "comma-separated --status values whose rows are left out on purpose (counted)"},
		&cli.StringFlag{Name: "id", Usage: "a poll log: the item id `COLUMN`; each row is one poll, its age in --column or its timestamp in --polled-at, what it saw in --status (--pending values, else settled); each id becomes one interval, from its last pending poll to its first settled one (docs/polllog.md)"},
		&cli.StringFlag{Name: "polled-at", Usage: "with --id: the `COLUMN` of the polls' timestamps; ages count from --start, or without it from each id's first poll"},
		&cli.StringFlag{Name: "last-pending", Usage: "with --start and --first-settled: the timestamp `COLUMN` of each item's last poll that saw it pending (empty: its first poll found it settled)"},
		&cli.StringFlag{Name: "first-settled", Usage: "with --start and --last-pending: the timestamp `COLUMN` of each item's first poll that saw it settled (empty: still pending at its last pending poll, censored)"},
		&cli.StringFlag{Name: "segment", Usage: "column whose values are reported separately (e.g. payment method): a table per segment after all items', a segment column in CSV and JSON, a plot per segment"},
		&cli.IntFlag{Name: "min-segment-rows", Value: app.DefaultMinSegmentRows, Usage: "fold segments with fewer rows into \"other\""},
		&cli.BoolFlag{Name: "binned", Usage: "rows are bins: lower, upper, count[, censored] (see docs/scale.md)"},
		&cli.StringFlag{Name: "delimiter", Value: ",", Usage: "CSV field delimiter: one character, such as ';', or tab (also written \\t) for tab-separated files"},
		&cli.BoolFlag{Name: "drop-invalid", Usage: "drop rows with empty, non-numeric, infinite, out-of-range or negative values (counted per reason on stderr) instead of failing"},
		&cli.StringFlag{Name: "negative", Value: "error", Usage: "negative durations and ends before starts (clock skew): error, drop, or zero (set them to 0); counted on stderr"},
		&cli.StringFlag{Name: "dedupe", Usage: "keep the first row of each value of the id `COLUMN`, drop later ones (counted on stderr)"},
		&cli.IntFlag{Name: "max-rows", Usage: "fail when the input has more than `N` rows (bins with --binned)", DefaultText: "what the memory available holds at 16 bytes a row, 24 with --start or --end"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "do not report row counts and progress on stderr"},
	})
}

func inputOf(c *cli.Context, stderr io.Writer, withBundled bool) (app.Input, error) {
	unit, err := ingest.ParseUnit(c.String("unit"))
	if err != nil || (c.IsSet("unit") && unit == 0) {
		return app.Input{}, app.Usagef("--unit %q: want ns, us, ms, s, m, h or d", c.String("unit"))
	}
	epoch, err := ingest.ParseUnit(c.String("epoch"))
	if err != nil || epoch > ingest.Second || (c.IsSet("epoch") && epoch == 0) {
		return app.Input{}, app.Usagef("--epoch %q: want s, ms, us or ns", c.String("epoch"))
	}
	negative, err := ingest.ParseNegative(c.String("negative"))
	if err != nil {
		return app.Input{}, app.Usagef("--negative %v", err)
	}
	delim := []rune(c.String("delimiter"))
	switch c.String("delimiter") {
	case "tab", `\t`:
		delim = []rune{'\t'}
	}
	if len(delim) != 1 {
		return app.Input{}, app.Usagef("--delimiter %q: want one character, or tab for tab-separated files", c.String("delimiter"))
	}
	in := app.Input{
		Paths:          c.StringSlice("input"),
		Quiet:          c.Bool("quiet"),
		MinSegmentRows: c.Int("min-segment-rows"),
		Read: ingest.ReadOptions{
			Column:        c.String("column"),
			Unit:          unit,
			DropInvalid:   c.Bool("drop-invalid"),
			Negative:      negative,
			Dedupe:        c.String("dedupe"),
			Delimiter:     delim[0],
			Start:         c.String("start"),
			End:           c.String("end"),
			Epoch:         epoch,
			Status:        c.String("status"),
			Pending:       app.SplitList(c.String("pending")),
			ExcludeStatus: app.SplitList(c.String("exclude-status")),
			Segment:       c.String("segment"),
			Binned:        c.Bool("binned"),
			MaxRows:       c.Int("max-rows"),
			PollID:        c.String("id"),
			PolledAt:      c.String("polled-at"),
			LastPending:   c.String("last-pending"),
			FirstSettled:  c.String("first-settled"),
		},
	}
	if c.IsSet("max-rows") && in.Read.MaxRows <= 0 {
		return app.Input{}, app.Usagef("--max-rows %d: want a number of rows ≥ 1 (leave it out for what memory holds)", in.Read.MaxRows)
	}
	if s := c.String("observed-at"); s != "" {
		t, err := ingest.ParseTime(s, epoch)
		if err != nil {
			return app.Input{}, app.Usagef("--observed-at: %v", err)
		}
		if ingest.Zoneless(s) {
			fmt.Fprintf(stderr, "warning: --observed-at %s has no time zone and was read as UTC; for a local time, write the offset (as in 2026-11-01T08:00:00+01:00)\n", s)
		}
		in.Read.ObservedAt = t
	}
	if f, ok := stderr.(*os.File); ok && !in.Quiet {
		in.Read.Progress = ingest.TerminalProgress(f)
	}
	if withBundled {
		in.Bundled = &app.Bundled{Name: "julia_ci_job_durations.csv", Data: bundled, Column: "duration_s", About: "Julia CI job durations"}
	}
	// Without --input, data piped in is read as --input - reads it; a
	// --dist model or a --density file is what the command works from
	// instead.
	if c.String("dist") == "" && c.String("density") == "" {
		if _, err := in.FromStdin(stdin, stderr); err != nil {
			return app.Input{}, err
		}
	}
	if in.Read.Stdin == nil && slices.Contains(in.Paths, "-") {
		in.Read.Stdin = stdin
	}
	return in, nil
}

// stdin is the standard input commands read when no --input is given and
// it holds data (app.StdinData); tests replace it.
var stdin = os.Stdin

func evaluateCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "evaluate",
		Usage:     "score schedules: polls by age, stuck cost and, with --input, lag quantiles and polls per item",
		UsageText: "pollfit evaluate [--input FILE --column NAME] --schedule SPEC_OR_FILE [--schedule …] [--segment COLUMN] [--at 30s,2m,15m] [--format table|json|csv] [--polls]",
		Flags: append(append(inputFlags(),
			&cli.StringSliceFlag{Name: "schedule", Aliases: []string{"s"}, Usage: "a spec (\"every 1s until 30s, every 2s until 2m\"), NAME=SPEC, a reference name (before, 76cd188, a74b69e, now) or a schedule file; repeatable"},
			&cli.BoolFlag{Name: "polls", Usage: "list each schedule's poll times (seconds from age 0)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the Monte Carlo draws of jittered schedules"},
			&cli.IntFlag{Name: "draws", Value: 200, Usage: "Monte Carlo draws for jittered schedules"},
			&cli.StringFlag{Name: "plot", Usage: "draw each schedule's poll times over the settle-time distribution to `FILE`.png or .svg" + perSegmentPlot},
		), scoreFlags()...),
		Action: func(c *cli.Context) error {
			in, err := inputOf(c, stderr, false)
			if err != nil {
				return err
			}
			load, err := loadOf(c)
			if err != nil {
				return err
			}
			return app.Evaluate{
				Load:      load,
				Plot:      c.String("plot"),
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

// bundledPreset is what plan does on the bundled Julia CI data without
// flags: most CI jobs finish within two hours.
var bundledPreset = struct {
	horizon string
	budget  int
}{"2h", 120}

// solveFlags are the flags of the commands that derive a schedule.
func solveFlags() []cli.Flag {
	return inCategory(catSolve, []cli.Flag{
		&cli.IntFlag{Name: "budget", Aliases: []string{"n"}, Usage: "stuck cost: polls made within the horizon by an item that never settles", DefaultText: "none"},
		&cli.Float64Flag{Name: "mean-polls", Aliases: []string{"m"}, Usage: "expected polls per item (what the server pays)", DefaultText: "none"},
		&cli.Float64Flag{Name: "poll-cost", Usage: "instead of a budget, the `SECONDS` of lag one poll is worth", DefaultText: "none"},
		&cli.StringFlag{Name: "horizon", Usage: "age of the last poll: a duration such as 15m, or seconds", DefaultText: "a nice duration above the 99th percentile of the settle times (of the Kaplan–Meier estimate among items that settle, with pending rows)"},
		&cli.StringFlag{Name: "phases", Value: "auto", Usage: "phases of the schedule: 1 to 8, auto (fewest within 5% of the exact optimum) or exact (the exact optimum as explicit gaps)"},
		&cli.StringFlag{Name: "method", Value: "exact", Usage: "exact (the exact discrete optimum) or sqrt (the √f / √hazard rule)"},
		&cli.DurationFlag{Name: "resolution", Usage: "grid step of poll times", DefaultText: "a nice step near horizon/8192 dividing the nice gaps"},
		&cli.DurationFlag{Name: "min-gap", Usage: "smallest gap between polls, of every schedule compared (0: the resolution)", DefaultText: "a nice gap near horizon/1000"},
		&cli.DurationFlag{Name: "max-gap", Usage: "largest gap between polls", DefaultText: "none"},
		&cli.StringFlag{Name: "nice-gaps", Usage: "gaps a phased schedule may use, e.g. 1s,2s,5s,10s,30s,1m", DefaultText: "1, 1.5, 2, 3, 5 × 10^k s and the clock's 15s, 20s, 30s, 45s, 1m, 90s, 2m, …, from the min gap to the horizon"},
		&cli.StringFlag{Name: "nice-bounds", Usage: "phase ends a phased schedule may use, e.g. 30s,2m,5m,15m; the horizon is always one, and a phase of one poll is a plain gap that needs none", DefaultText: "any: a phase may end at any of its polls"},
	})
}

func solveOf(c *cli.Context) (app.Solve, error) {
	phases, err := app.ParsePhases(c.String("phases"))
	if err != nil {
		return app.Solve{}, err
	}
	gaps, err := app.ParseDurations("nice-gaps", c.String("nice-gaps"))
	if err != nil {
		return app.Solve{}, err
	}
	bounds, err := app.ParseDurations("nice-bounds", c.String("nice-bounds"))
	if err != nil {
		return app.Solve{}, err
	}
	var horizon time.Duration
	if c.IsSet("horizon") {
		if horizon, err = app.ParseDuration("horizon", c.String("horizon")); err != nil {
			return app.Solve{}, err
		}
		if horizon <= 0 {
			return app.Solve{}, app.Usagef("--horizon %q: want a positive duration such as 15m (leave it out to take one from the data)", c.String("horizon"))
		}
	}
	if c.IsSet("resolution") && c.Duration("resolution") <= 0 {
		return app.Solve{}, app.Usagef("--resolution %s: want a positive duration such as 100ms (leave it out for one near horizon/8192)", c.Duration("resolution"))
	}
	minGap := c.Duration("min-gap")
	if c.IsSet("min-gap") {
		if minGap < 0 {
			return app.Solve{}, app.Usagef("--min-gap %s: want a duration ≥ 0", minGap)
		}
		minGap = max(minGap, 1) // 0: down to the resolution
	}
	return app.Solve{
		Budget: optimize.Budget{StuckPolls: c.Int("budget"), MeanPolls: c.Float64("mean-polls"), PollCost: c.Float64("poll-cost")},
		Options: optimize.Options{
			Horizon:    horizon,
			Resolution: c.Duration("resolution"),
			MinGap:     minGap,
			MaxGap:     c.Duration("max-gap"),
			NiceGaps:   gaps,
			NiceBounds: bounds,
		},
		Phases: phases,
		Method: c.String("method"),
	}, nil
}

// distFlag is --dist, of the commands that can work from a model alone.
var distFlag = &cli.StringFlag{Name: "dist", Category: catInput, Usage: "a parametric `MODEL` instead of data, e.g. lognormal:mu=2,sigma=1 or weibull:k=1.5,lambda=30"}

// fitFlags are the density-estimation flags; prefix is "fit-" where
// --method means the solver's method.
func fitFlags(prefix string) []cli.Flag {
	return inCategory(catFit, []cli.Flag{
		&cli.StringFlag{Name: prefix + "method", Value: "kde", Usage: "density estimate: kde, histogram, a parametric family fitted by maximum likelihood (lognormal, weibull, gamma, exponential), or lognormal-mixture (K by BIC) or lognormal-mixture:K fitted by EM"},
		&cli.StringFlag{Name: "bandwidth", Usage: "KDE bandwidth: silverman, scott, sj, isj (Botev's improved Sheather–Jones; docs/fit.md says why) or a number", DefaultText: fit.DefaultBandwidth},
		&cli.StringFlag{Name: "domain", Usage: "where the KDE smooths: log, linear or reflect", DefaultText: fit.DefaultDomain},
		&cli.StringFlag{Name: "atoms", Value: "auto", Usage: "point masses (instant settles, batch boundaries) and deadline spikes, kept apart from the smooth density: auto or off"},
		&cli.IntFlag{Name: "grid", Usage: "grid points of the density (at least 16)", DefaultText: strconv.Itoa(fit.DefaultGrid)},
	})
}

// batchFlags are the flags of wall-clock batches (plan and fit).
func batchFlags() []cli.Flag {
	return inCategory(catFit, []cli.Flag{
		&cli.StringFlag{Name: "batch-period", Usage: "wall-clock batches (an upstream that settles every P on the clock): auto finds them in the settle instants (needs --start or --end), a `PERIOD` such as 5m states them, off ignores them", DefaultText: "auto"},
		&cli.StringFlag{Name: "batch-offset", Usage: "with --batch-period: where the boundaries fall within the period, past each multiple of it on the UTC clock (0s: :00, :05, …)", DefaultText: "found in the data"},
	})
}

func batchesOf(c *cli.Context) app.Batches {
	return app.Batches{Period: c.String("batch-period"), Offset: c.String("batch-offset")}
}

func fitOf(c *cli.Context, prefix string) fit.Options {
	return fit.Options{
		Method:    c.String(prefix + "method"),
		Bandwidth: c.String("bandwidth"),
		Domain:    c.String("domain"),
		Atoms:     c.String("atoms"),
		Grid:      c.Int("grid"),
	}
}

func flags(groups ...[]cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func planCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "fit settle times, derive the optimal schedule under a budget and compare it with the reference schedules",
		UsageText: "pollfit plan [--input FILE --column NAME | --dist MODEL] (--budget N | --mean-polls M) [--horizon 15m] [--phases K] [--format table|json]\n" +
			"   without --input or --dist: the bundled Julia CI job durations, --horizon 2h --budget 120",
		Flags: flags(inputFlags(), solveFlags(), fitFlags("fit-"), batchFlags(), []cli.Flag{
			distFlag,
			&cli.StringFlag{Name: "at", Usage: "count polls made by these ages, e.g. 30s,2m,15m", DefaultText: "horizon/30, horizon/7.5 and the horizon, rounded to nice durations"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table or json"},
			&cli.Float64Flag{Name: "holdout", Value: 0.3, Usage: "share of rows held out: fit on the rest, score on these"},
			&cli.BoolFlag{Name: "in-sample", Usage: "fit and score on all rows (flatters every schedule fitted on them)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the held-out split and of Monte Carlo draws"},
			&cli.StringFlag{Name: "plot", Usage: "draw the poll times over the density to `FILE`.png or .svg" + perSegmentPlot},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "also write the schedule JSON document to `FILE`"},
		}),
		Action: func(c *cli.Context) error {
			in, err := inputOf(c, stderr, true)
			if err != nil {
				return err
			}
			if len(in.Paths) == 0 && c.String("dist") == "" {
				if !c.IsSet("horizon") {
					c.Set("horizon", bundledPreset.horizon)
				}
				if !c.IsSet("budget") && !c.IsSet("mean-polls") && !c.IsSet("poll-cost") {
					c.Set("budget", fmt.Sprint(bundledPreset.budget))
				}
			}
			solve, err := solveOf(c)
			if err != nil {
				return err
			}
			return app.Plan{
				Input:    in,
				Dist:     c.String("dist"),
				Fit:      fitOf(c, "fit-"),
				Solve:    solve,
				Ages:     c.String("at"),
				Format:   c.String("format"),
				Holdout:  c.Float64("holdout"),
				InSample: c.Bool("in-sample"),
				Seed:     c.Uint64("seed"),
				Plot:     c.String("plot"),
				Out:      c.String("output"),
				Batches:  batchesOf(c),
			}.Run(stdout, stderr)
		},
	}
}

func fitCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "fit",
		Usage:     "estimate the settle-time distribution: density, CDF, survival, hazard, atoms, Kaplan–Meier",
		UsageText: "pollfit fit --input FILE --column NAME [--method kde|histogram|lognormal|lognormal-mixture[:K]|…] [--holdout 0.3] [--format json|csv] [-o density.json]",
		Flags: flags(inputFlags(), fitFlags(""), batchFlags(), []cli.Flag{
			distFlag,
			&cli.StringFlag{Name: "horizon", Usage: "last grid time: a duration such as 15m, or seconds; mass beyond it is reported (the JSON stuck_share)", DefaultText: "the largest time"},
			&cli.Float64Flag{Name: "holdout", Usage: "share of rows held out to report the held-out log-likelihood and Kolmogorov–Smirnov distance"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the held-out split"},
			&cli.StringFlag{Name: "plot", Usage: "draw histogram, density, survival (with the data's) and hazard to `FILE`.png or .svg" + perSegmentPlot},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "json", Usage: "json (everything) or csv (the grid as one table: t_s, pdf_per_s, cdf, survival, hazard_per_s)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the JSON or CSV to `FILE` (default stdout)"},
		}),
		Action: func(c *cli.Context) error {
			in, err := inputOf(c, stderr, false)
			if err != nil {
				return err
			}
			opt := fitOf(c, "")
			if h := c.String("horizon"); c.IsSet("horizon") {
				d, err := app.ParseDuration("horizon", h)
				if err != nil {
					return err
				}
				if d <= 0 {
					return app.Usagef("--horizon %q: want a positive duration such as 15m (leave it out for the largest time)", h)
				}
				opt.Horizon = d.Seconds()
			}
			opt.Holdout = c.Float64("holdout")
			opt.Seed = c.Uint64("seed")
			return app.Fit{
				Input:   in,
				Options: opt,
				Dist:    c.String("dist"),
				Plot:    c.String("plot"),
				Format:  c.String("format"),
				Out:     c.String("output"),
				Batches: batchesOf(c),
			}.Run(stdout, stderr)
		},
	}
}

func optimizeCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "optimize",
		Usage:     "derive the optimal schedule from a density, a model or data, as a schedule JSON document",
		UsageText: "pollfit optimize (--density density.json | --dist MODEL | --input FILE --column NAME) (--budget N | --mean-polls M | --poll-cost S) [--horizon H] [--phases K] [-o schedule.json]",
		Flags: flags(inputFlags(), solveFlags(), fitFlags("fit-"), []cli.Flag{
			distFlag,
			&cli.StringFlag{Name: "density", Usage: "a density JSON `FILE` written by pollfit fit"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the schedule JSON to `FILE` (default stdout)"},
		}),
		Action: func(c *cli.Context) error {
			in, err := inputOf(c, stderr, false)
			if err != nil {
				return err
			}
			solve, err := solveOf(c)
			if err != nil {
				return err
			}
			return app.Optimize{
				Input:   in,
				Density: c.String("density"),
				Dist:    c.String("dist"),
				Fit:     fitOf(c, "fit-"),
				Solve:   solve,
				Out:     c.String("output"),
			}.Run(stdout, stderr)
		},
	}
}

func exportCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a schedule as Go, JSON, TypeScript, Kotlin or Swift, or through your own template",
		UsageText: "pollfit export --schedule FILE_OR_SPEC --lang go|json|ts|kotlin|swift [--package NAME] [--name NAME] [-o FILE]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "schedule", Aliases: []string{"s"}, Usage: "a spec, a reference name, or a schedule file (JSON document or spec)"},
			&cli.StringFlag{Name: "lang", Aliases: []string{"l"}, Value: "json", Usage: "go, json, ts, kotlin or swift"},
			&cli.StringFlag{Name: "template", Usage: "render your own Go text/template `FILE` (data model: docs/export.md)"},
			&cli.StringFlag{Name: "package", Usage: "Go package (or Kotlin package path) of the generated code"},
			&cli.StringFlag{Name: "name", Usage: "name of the generated type (default Backoff)"},
			&cli.StringFlag{Name: "jitter", Usage: "jitter in the generated code: none, full, equal, decorrelated or ±P%"},
			&cli.BoolFlag{Name: "tests", Usage: "Go: also write an Example and a unit test beside -o (FILE_test.go; a hand-written one is refused)"},
			&cli.BoolFlag{Name: "polls", Usage: "JSON: list every poll time (polls_ms)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (default stdout)"},
		},
		Action: func(c *cli.Context) error {
			return app.Export{
				Schedule: c.String("schedule"),
				Lang:     c.String("lang"),
				Template: c.String("template"),
				Options:  export.Options{Package: c.String("package"), Name: c.String("name")},
				Jitter:   c.String("jitter"),
				Tests:    c.Bool("tests"),
				Polls:    c.Bool("polls"),
				Out:      c.String("output"),
			}.Run(stdout, stderr)
		},
	}
}

// scoreFlags are the output flags of the commands that print score tables.
func scoreFlags() []cli.Flag {
	return inCategory(catOutput, []cli.Flag{
		&cli.StringFlag{Name: "at", Usage: "count polls made by these ages, e.g. 30s,2m,15m", DefaultText: "horizon/30, horizon/7.5 and the horizon, rounded to nice durations"},
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "table, json or csv"},
		&cli.StringFlag{Name: "arrivals", Usage: "arrival `RATE` of items (50/s, 2000/min, 100/h): adds the request rate at the server"},
		&cli.IntFlag{Name: "burst", Usage: "with --arrivals: peak request rate when `N` items start together (unjittered schedules)"},
	})
}

// flagParseError matches urfave/cli's error for a flag value its type does
// not parse: `invalid value "1e9" for flag -budget: parse error`.
var flagParseError = regexp.MustCompile(`^invalid value "(.*)" for flag -([\w-]+): parse error$`)

// flagValueError says what a flag wants where urfave/cli says "parse
// error" (--budget 1e9, --seed -1): a whole number for integer flags, one
// of 0 or more for unsigned ones, a number for float ones. Other errors
// come back as they are.
func flagValueError(c *cli.Command, err error) error {
	m := flagParseError.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want, name := "", m[2]
	for _, f := range c.Flags {
		names := f.Names()
		if !slices.Contains(names, m[2]) {
			continue
		}
		name = names[0] // the flag's own name, not the alias typed
		switch f.(type) {
		case *cli.IntFlag, *cli.Int64Flag:
			want = "a whole number written in digits, such as 30"
		case *cli.UintFlag, *cli.Uint64Flag:
			want = "a whole number 0 or more, such as 7"
		case *cli.Float64Flag:
			want = "a number, such as 0.5 or 1e-3"
		}
	}
	if want == "" {
		return err
	}
	return fmt.Errorf("--%s %q: want %s", name, m[1], want)
}
