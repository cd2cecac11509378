package app

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pollfit/pollfit/internal/report"
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
	if err := checkOutputs("", e.Plot); err != nil {
		return err
	}
	if len(e.Schedules) == 0 {
		return &UsageError{errNoSchedule}
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
	}
	sample, _, err := e.Input.load(stderr)
	if err != nil {
		return err
	}
	items := itemsOf(sample)
	var horizon time.Duration
	for _, s := range scheds {
		horizon = max(horizon, s.Horizon())
	}
	ages, labels = HorizonAges(ages, labels, horizon)
	opt := optimize.ScoreOptions{Ages: ages, Seed: e.Seed, Draws: e.Draws}
	rows := make([]report.Row, len(scheds))
	scores := make([]optimize.Score, len(scheds))
	for i, s := range scheds {
		var polls []time.Duration
		if e.Polls {
			polls = s.Polls()
		}
		scores[i] = optimize.ScoreSchedule(s, items, opt)
		rows[i] = report.NewRow(scores[i], labels, polls)
	}
	if e.Plot != "" {
		if err := plotSample(e.Plot, sample, scheds); err != nil {
			return err
		}
	}
	if e.Load.Arrivals > 0 && items == nil {
		return Usagef("--arrivals needs --input: the request rate depends on the mean polls per item")
	}
	if err := writeRows(stdout, e.Format, rows, ""); err != nil {
		return err
	}
	if e.Load.Arrivals > 0 && e.Format == "table" {
		return e.Load.write(stdout, e.Load.rows(scheds, scores))
	}
	return nil
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

func checkFormat(got string, allowed ...string) error {
	for _, a := range allowed {
		if got == a {
			return nil
		}
	}
	return Usagef("--format %q: want one of %s", got, strings.Join(allowed, ", "))
}
