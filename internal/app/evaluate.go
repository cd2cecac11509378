package app

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/internal/app/report"
	"github.com/pollfit/pollfit/optimize"
)

// Evaluate settings: see the evaluate command's help.
type Evaluate struct {
	Input     Input
	Schedules []string // specs, NAME=SPEC, reference names or files
	Ages      string   // "30s,2m,15m"
	Format    string   // table, json or csv
	Polls     bool     // list poll times
	Seed      uint64
	Draws     int
	Load      Load   // server load figures when Load.Arrivals > 0
	Plot      string // timeline plot file, or ""
}

// Run scores the schedules and prints one row each.
func (e Evaluate) Run(stdout, stderr io.Writer) error {
	if err := (outputs{Plots: []string{e.Plot}, Inputs: e.Input.Paths, Files: e.Schedules}).check(); err != nil {
		return err
	}
	if len(e.Schedules) == 0 {
		return &UsageError{errNoSchedule}
	}
	if err := checkDraws(e.Draws); err != nil {
		return err
	}
	ages, labels, err := ParseAges(e.Ages)
	if err != nil {
		return err
	}
	if err := checkFormat(e.Format, "table", "json", "csv"); err != nil {
		return err
	}
	var scheds []optimize.Schedule
	for _, arg := range e.Schedules {
		s, err := LoadSchedules(arg)
		if err != nil {
			return err
		}
		scheds = append(scheds, s...)
	}
	for i := range scheds {
		if scheds[i].Name == "" {
			scheds[i].Name = fmt.Sprintf("#%d", i+1)
		}
		if e.Polls && scheds[i].Clocked() {
			return Usagef("--polls: schedule %s has a wall-clock phase, whose polls depend on when each item was created, so no one list holds them; leave --polls out (--plot draws them)", scheds[i].Name)
		}
	}
	if e.Load.Arrivals > 0 && len(e.Input.Paths) == 0 {
		return Usagef("--arrivals needs --input: the request rate depends on the mean polls per item")
	}
	stdout = e.Input.headed(e.Format, stdout)
	sample, _, err := e.Input.load(stderr)
	if err != nil {
		return err
	}
	if err := checkClocked(scheds, sample); err != nil {
		return err
	}
	if sample == nil && !e.Input.Quiet {
		for _, s := range scheds {
			if s.Clocked() {
				lo, hi := s.StuckPollsRange()
				fmt.Fprintf(stderr, "note: %s polls on the wall clock: its polls are means over items created at all times (stuck polls %s, by when the item was created)\n", s.Name, polls(lo, hi))
			}
		}
	}
	parts, err := e.Input.parts(sample, stderr)
	if err != nil {
		return err
	}
	var horizon time.Duration
	for _, s := range scheds {
		horizon = max(horizon, s.Horizon())
	}
	ages, labels = HorizonAges(ages, labels, horizon)
	opt := optimize.ScoreOptions{Ages: ages, Seed: e.Seed, Draws: e.Draws}
	// Each part is scored alone: its rows are what a schedule of that
	// segment would meet.
	tables, err := eachPart(parts, func(pt part) (scored, error) {
		items := itemsOf(pt.Sample)
		rows := scoringOf(pt.Sample, items)
		t := scored{part: pt, rows: make([]report.Row, len(scheds)), scores: make([]optimize.Score, len(scheds))}
		for i, s := range scheds {
			var polls []time.Duration
			if e.Polls {
				polls = s.Polls()
			}
			t.scores[i] = rows.score(s, opt)
			t.rows[i] = report.NewRow(t.scores[i], labels, polls)
			t.rows[i].Segment = pt.Name
		}
		t.warnings = shortfallWarnings(scheds, items)
		if pt.Sample != nil {
			if w := roundingWarning(fit.Resolution(pt.Sample.Times), scheds, t.scores); w != "" {
				t.warnings = append(t.warnings, w)
			}
		}
		return t, nil
	})
	if err != nil {
		return err
	}
	if e.Plot != "" {
		err := plotParts(e.Plot, parts, stderr, e.Input.Quiet, func(i int, file string) error {
			return plotSample(file, parts[i], scheds)
		})
		if err != nil {
			return err
		}
	}
	defer func() {
		for _, t := range tables {
			for _, w := range t.warnings {
				if len(tables) > 1 {
					w = t.part.title() + ": " + w
				}
				fmt.Fprintf(stderr, "warning: %s\n", w)
			}
		}
	}()
	switch e.Format {
	case "json", "csv":
		var rows []report.Row
		for _, t := range tables {
			rows = append(rows, t.rows...)
		}
		return writeRows(stdout, e.Format, rows, "")
	}
	for i, t := range tables {
		if len(tables) > 1 {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "== %s: %s\n", t.part.title(), t.part.size())
		}
		if err := report.Table(stdout, t.rows, ""); err != nil {
			return err
		}
		if e.Load.Arrivals > 0 {
			if err := e.Load.write(stdout, e.Load.rows(scheds, t.scores)); err != nil {
				return err
			}
		}
	}
	return nil
}

// scored is the schedules' scores on one part of the input.
type scored struct {
	part     part
	rows     []report.Row
	scores   []optimize.Score
	warnings []string // schedules short of their horizon (shortfallWarnings)
}

func writeRows(w io.Writer, format string, rows []report.Row, note string) error {
	switch format {
	case "json":
		return report.JSON(w, struct {
			Rows []report.Row `json:"rows"`
		}{rows})
	case "csv":
		return report.CSV(w, rows)
	default:
		return report.Table(w, rows, note)
	}
}

// MaxDraws bounds --draws: each draw scores every item once more.
const MaxDraws = 100_000

// checkDraws refuses a --draws value that is not a count of draws; 0 is
// the library's default (optimize.DefaultDraws).
func checkDraws(n int) error {
	if n < 0 || n > MaxDraws {
		return Usagef("--draws %d: want 1 to %d Monte Carlo draws (0: the default, %d)", n, MaxDraws, optimize.DefaultDraws)
	}
	return nil
}

func checkFormat(got string, allowed ...string) error {
	for _, a := range allowed {
		if got == a {
			return nil
		}
	}
	return Usagef("--format %q: want one of %s", got, strings.Join(allowed, ", "))
}
