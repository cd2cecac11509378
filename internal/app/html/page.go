// Package html writes pollfit's report: one self-contained HTML page that
// shows the data, the fit, the schedule, what the budget buys and the
// schedule to export, for all items and for each segment.
//
// The page needs nothing beyond itself: its style sheet, script and
// figures (SVG drawn by gonum/plot, see CompactSVG) are inline, and its
// Content-Security-Policy forbids loading anything else, so it reads the
// same opened from disk, from an e-mail attachment or offline. Everything
// but the budget slider is plain HTML and works with JavaScript off; the
// slider's steps are precomputed (Step), so the page needs no server.
//
// The package renders a Page built by the command (internal/app): the
// figures and texts come formatted, so that the page says what pollfit's
// tables say. Text is escaped by html/template for its context.
package html

import (
	_ "embed"
	"html/template"
	"io"
	"strings"
)

// Page is the report.
type Page struct {
	Title   string
	Version string // pollfit's version
	Command string // the command line that made the report
	Notes   []string
	// Summary has a row per part: the schedule and its held-out figures.
	Summary Table
	Parts   []Part
	Export  Export
}

// Part is the report on all items or on one segment.
type Part struct {
	ID    string // HTML id, unique in the page: letters, digits, '-'
	Title string // "All items", "Segment card"

	Data      []Fact
	Quantiles Table

	Fit         []Fact
	Goodness    []Fact
	FitWarnings []string
	FitFigure   Figure

	Spec             string // the derived schedule
	Schedule         []Fact
	Simplicity       Table
	ScheduleWarnings []string
	FamilyNotes      []string // how the families' tuning went
	Timeline         Figure
	Comparison       Table
	ComparisonNote   string
	Specs            []Fact // the compared schedules' specs
	SameCost         string

	Budget Budget
}

// Fact is one labelled figure: "held-out KS distance", "0.0147", with a
// note that reads after it.
type Fact struct {
	Label, Value, Note string
	Warn               bool // shown as a warning
}

// Table is a table of formatted cells; the first column heads its row.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
	// Links, when not empty, links the first cell of row i to #Links[i].
	Links []string
	// Mark is the index of a row to highlight, or -1.
	Mark int
	// Wrap is the index of a column of long text (a spec) whose cells
	// wrap and align left; 0 means none.
	Wrap int
}

// Figure is an SVG figure.
type Figure struct {
	ID      string // HTML id of the figure, for the slider's marks; may be empty
	Caption string
	SVG     template.HTML // the <svg> element (CompactSVG of gonum/plot's output)
}

// Budget is what the budget buys: the frontier's figures, and the slider
// over the budgets of the sweep.
type Budget struct {
	Intro    string
	Charts   []Figure
	Steps    []Step
	Start    int // the step the slider starts at (the plan's budget)
	Axis     []Tick
	Table    Table // every step, for reading without JavaScript
	Warnings []string
}

// Step is one budget of the sweep as the slider shows it: the derived
// schedule at that budget and its figures.
type Step struct {
	Label   string `json:"label"` // "152 stuck polls"
	Spec    string `json:"spec"`
	Figures []Fact `json:"figures"`
	// Polls are the poll times on the slider's axis, 0 (age 0) to 1 (the
	// horizon): for a schedule with a wall-clock phase, those every item
	// makes at the same ages.
	Polls []float64 `json:"polls"`
	// Clock, for a schedule with a wall-clock phase, is the stretch of the
	// axis where its polls follow the clock, at ages that differ from item
	// to item; nil for other schedules.
	Clock *ClockSpan `json:"clock,omitempty"`
	// Marks are the step's point on each of the Budget's charts: x, y in
	// the chart's SVG coordinates, or nil where it has none.
	Marks [][]float64 `json:"marks"`
}

// ClockSpan is the stretch of the slider's axis (0 to 1) from From to To
// where a schedule polls at instants of the clock, and its wall-clock
// phases as a spec writes them: "after each 5m (+1s +2.5s)".
type ClockSpan struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
	Text string  `json:"text"`
}

// Tick labels the slider's time axis at At (0 to 1).
type Tick struct {
	At    float64 `json:"at"`
	Label string  `json:"label"`
}

// Export is the schedule document and the Go code that polls by it.
type Export struct {
	JSON string
	Go   string
	Hint string
}

// SliderData is what the slider's script reads: the steps, the step it
// starts at and the labels of its time axis.
func (b Budget) SliderData() any {
	return struct {
		Steps []Step `json:"steps"`
		Start int    `json:"start"`
		Axis  []Tick `json:"axis"`
	}{b.Steps, b.Start, b.Axis}
}

//go:embed page.tmpl
var pageTemplate string

//go:embed style.css
var styleSheet string

//go:embed script.js
var script string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"css":    func() template.CSS { return template.CSS(styleSheet) },
	"script": func() template.JS { return template.JS(script) },
	"last":   func(s []Step) int { return len(s) - 1 },
	"join":   strings.Join,
}).Parse(pageTemplate))

// Write writes the page.
func Write(w io.Writer, p *Page) error {
	return page.Execute(w, p)
}
