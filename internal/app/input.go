// Package app runs pollfit's commands: each takes a settings struct made
// from the flags by main.go and writes to the given stdout and stderr.
package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/outfile"
	"github.com/pollfit/pollfit/optimize"
)

// UsageError marks an error in how the command was called (a bad or
// missing flag); the command exits 2 for it instead of 1.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a *UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// Input names the settle-time data of a command.
type Input struct {
	Paths   []string // files, globs, directories or "-"; none means no input
	Read    ingest.ReadOptions
	Bundled *Bundled // used when Paths is empty; nil means no data
	Quiet   bool
	// MinSegmentRows: segments (Read.Segment) with fewer rows are
	// reported together as "other"; 0 keeps every segment apart. The
	// command's flag defaults to DefaultMinSegmentRows.
	MinSegmentRows int
}

// DefaultMinSegmentRows is the default of --min-segment-rows.
const DefaultMinSegmentRows = 200

// Bundled is a dataset compiled into the binary with its presets.
type Bundled struct {
	Name   string
	Data   []byte
	Column string
}

// load reads the input and reports the row counts on stderr. It returns
// nil, nil, nil when there is no input.
func (in Input) load(stderr io.Writer) (*ingest.Sample, *ingest.Report, error) {
	var (
		s   *ingest.Sample
		rep *ingest.Report
		err error
	)
	if in.MinSegmentRows < 0 {
		return nil, nil, Usagef("--min-segment-rows %d: want a count ≥ 0", in.MinSegmentRows)
	}
	switch {
	case len(in.Paths) > 0:
		if in.Read.Column == "" && in.Read.Start == "" && in.Read.End == "" && !in.Read.Binned && in.Read.PollID == "" && in.Read.PolledAt == "" && in.Read.LastPending == "" && in.Read.FirstSettled == "" {
			return nil, nil, Usagef("--column is required with --input: name the column that holds settle times (or give --start and --end)")
		}
		collectTighter(in.Paths)
		s, rep, err = ingest.Read(in.Paths, in.Read)
	case in.Bundled != nil:
		opt := in.Read
		if opt.Column == "" {
			opt.Column = in.Bundled.Column
		}
		s, rep, err = ingest.ReadCSV(strings.NewReader(string(in.Bundled.Data)), in.Bundled.Name, opt)
	default:
		return nil, nil, nil
	}
	if err != nil {
		var pe *ingest.ParseError
		header := errors.As(err, &pe) && pe.RowGroup < 0 && pe.Row == 1 && pe.Column == ""
		switch {
		case errors.Is(err, ingest.ErrNotUTF8) && header:
			err = fmt.Errorf("%w (re-encode the file as UTF-8, e.g. iconv -f LATIN1 -t UTF-8 FILE > FILE.utf8.csv)", err)
		case errors.Is(err, ingest.ErrNotUTF8) && !in.Read.DropInvalid:
			err = fmt.Errorf("%w (re-encode the file as UTF-8, e.g. iconv -f LATIN1 -t UTF-8; --drop-invalid drops such rows and counts them)", err)
		case errors.Is(err, ingest.ErrFieldCount) && !in.Read.DropInvalid:
			err = fmt.Errorf("%w (check the delimiter, --delimiter, and that fields holding it are quoted; --drop-invalid drops such rows and counts them)", err)
		case in.Read.DropInvalid:
		case !in.Read.Binned && (errors.Is(err, ingest.ErrNegative) || errors.Is(err, ingest.ErrEndBeforeStart)):
			err = fmt.Errorf("%w (--negative drop drops such rows, --negative zero sets them to 0; both are counted)", err)
		case errors.Is(err, ingest.ErrNotNumber) || errors.Is(err, ingest.ErrNegative) ||
			errors.Is(err, ingest.ErrEmptyValue) || errors.Is(err, ingest.ErrNotFinite) || errors.Is(err, ingest.ErrOutOfRange):
			err = fmt.Errorf("%w (--drop-invalid drops such rows and counts them)", err)
		}
		if errors.Is(err, ingest.ErrOption) {
			err = &UsageError{err}
		}
		return nil, nil, err
	}
	if !in.Quiet {
		names := slices.Clone(in.Paths)
		for i, n := range names {
			if n == "-" {
				names[i] = "stdin" // as errors name it
			}
		}
		name := strings.Join(names, ", ")
		if name == "" {
			name = in.Bundled.Name + " (bundled)"
		}
		fmt.Fprintf(stderr, "%s: %s\n", name, rep)
		if u := UnitLine(rep); u != "" {
			fmt.Fprintln(stderr, u)
		}
	}
	for _, w := range rep.Warnings { // even with --quiet: they need a look
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return s, rep, nil
}

// UnitLine says which unit bare numbers were read in and why, for
// stderr: `unit: ms (from the column name "Latency(ms)"; --unit
// overrides)`. It is empty for timestamp input.
func UnitLine(rep *ingest.Report) string {
	switch rep.UnitFrom {
	case ingest.UnitFromName:
		return fmt.Sprintf("unit: %s (from the column name %q; --unit overrides)", rep.Unit, rep.UnitColumn)
	case ingest.UnitFromType:
		return fmt.Sprintf("unit: %s (the Parquet type of column %q)", rep.Unit, rep.UnitColumn)
	case ingest.UnitFromOption:
		return fmt.Sprintf("unit: %s (--unit)", rep.Unit)
	case ingest.UnitFromDefault:
		return fmt.Sprintf("unit: %s (default; --unit sets it)", rep.Unit)
	}
	return ""
}

// ParseAges parses a comma-separated list of ages such as "30s,2m,15m",
// keeping each as written for labels; "" gives none, for HorizonAges.
func ParseAges(list string) ([]time.Duration, []string, error) {
	if list == "" {
		return nil, nil, nil
	}
	var ages []time.Duration
	var labels []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < 0 {
			return nil, nil, Usagef("--at %q: want ages such as 30s,2m,15m", f)
		}
		ages = append(ages, d)
		labels = append(labels, f)
	}
	if len(ages) == 0 {
		return nil, nil, Usagef("--at is empty: want ages such as 30s,2m,15m")
	}
	return ages, labels, nil
}

// HorizonAges returns ages and labels as given, or, when none are, the
// ages that follow horizon h: the nice durations nearest h/30 and h/7.5,
// and h itself (30s, 2m and 15m for the brief's 15 minutes).
func HorizonAges(ages []time.Duration, labels []string, h time.Duration) ([]time.Duration, []string) {
	if ages != nil {
		return ages, labels
	}
	ages = []time.Duration{optimize.NiceNearest(h / 30), optimize.NiceNearest(h * 2 / 15), h}
	labels = make([]string, len(ages))
	for i, a := range ages {
		labels[i] = optimize.FormatDuration(a)
	}
	return ages, labels
}

// itemsOf prepares a sample for scoring.
func itemsOf(s *ingest.Sample) *optimize.Items {
	if s == nil {
		return nil
	}
	return optimize.NewItems(s.Times, s.Censored, s.Weights)
}

// scoring is a sample prepared for scoring schedules: its items for
// age-indexed schedules and, made on first use, its items with creation
// instants for schedules with a wall-clock phase.
type scoring struct {
	items  *optimize.Items
	sample *ingest.Sample
	timed  *optimize.Timed
}

func scoringOf(s *ingest.Sample, items *optimize.Items) *scoring {
	return &scoring{items: items, sample: s}
}

// score scores s on the sample: item by item on their own creation
// instants when s has a wall-clock phase (optimize.ScoreTimed; callers
// check first that the sample has them, see checkClocked).
func (sc *scoring) score(s optimize.Schedule, opt optimize.ScoreOptions) optimize.Score {
	if s.Clocked() && sc.sample != nil && sc.sample.Created != nil {
		if sc.timed == nil {
			sc.timed = timedOf(sc.sample)
		}
		return optimize.ScoreTimed(s, sc.timed, opt)
	}
	return optimize.ScoreSchedule(s, sc.items, opt)
}

// checkClocked refuses to score a schedule with a wall-clock phase on a
// sample without creation instants: its polls depend on them.
func checkClocked(scheds []optimize.Schedule, s *ingest.Sample) error {
	for _, sch := range scheds {
		if sch.Clocked() && s != nil && s.Created == nil {
			return Usagef("schedule %q polls on the wall clock, so its polls depend on when each item was created: give the creation or settle timestamps (--start, or --end with --column)", sch.String())
		}
	}
	return nil
}

var errNoSchedule = errors.New("no schedule given: pass --schedule SPEC or FILE (e.g. --schedule 'every 2s until 2m')")

// SplitList splits a comma-separated flag value, trimming spaces and
// dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// outputs are the files a command writes, and the files it reads, so that
// check can refuse before any reading or fitting what would fail or
// destroy data after it.
type outputs struct {
	Out    string   // --output; "" or "-" for stdout
	Plots  []string // --plot files (per-segment plots are named after them)
	Inputs []string // --input paths (globs, directories), as given
	Files  []string // other files read: --density, --schedule, --template
}

// check fails when an output file cannot be written (its directory is
// missing, or it is a directory), when it is one of the input files (fit
// -i d.csv -o d.csv overwrote the data with JSON), when two outputs are
// one file, or when a plot file is neither .png nor .svg.
func (o outputs) check() error {
	type named struct{ flag, path string }
	var outs []named
	if o.Out != "" && o.Out != "-" {
		outs = append(outs, named{"--output", o.Out})
	}
	for _, p := range o.Plots {
		if p == "" {
			continue
		}
		if ext := strings.ToLower(filepath.Ext(p)); ext != ".png" && ext != ".svg" {
			return Usagef("--plot %s: want a .png or .svg file", p)
		}
		outs = append(outs, named{"--plot", p})
	}
	if len(outs) == 0 {
		return nil
	}
	for _, w := range outs {
		if err := outfile.CheckDir(w.path); err != nil {
			return &UsageError{fmt.Errorf("%s: %w", w.flag, err)}
		}
	}
	// Read's own expansion: a file matched by a glob or found in a
	// directory is an input too. Paths that name nothing fail later,
	// when they are read, with Read's error.
	inputs := slices.Clone(o.Files)
	for _, p := range o.Inputs {
		if files, err := ingest.Files([]string{p}); err == nil {
			inputs = append(inputs, files...)
		}
	}
	for i, w := range outs {
		for _, in := range inputs {
			if outfile.SameFile(w.path, in) {
				return Usagef("%s %s is also an input file (%s): writing it would destroy the data; choose another output file", w.flag, w.path, in)
			}
		}
		for _, v := range outs[:i] {
			if outfile.SameFile(w.path, v.path) || filepath.Clean(w.path) == filepath.Clean(v.path) {
				return Usagef("%s and %s both name %s: choose two files", v.flag, w.flag, w.path)
			}
		}
	}
	return nil
}

// largeInput is the size on disk from which inputs are read with the
// collector at tightGC: about 2·10⁶ rows of CSV, 10⁷ of Parquet.
const largeInput = 64 << 20

// GCPercent is the collector's percentage of heap growth that main sets
// when GOGC is not, and tightGC the one for large inputs while their rows
// are held.
const (
	GCPercent = 25
	tightGC   = 10
)

// tight is whether collectTighter set tightGC.
var tight bool

// collectTighter has the collector run at tightGC % heap growth instead
// of main's 25 % when the inputs take largeInput bytes or more on disk
// and GOGC is not set. Their heap is then mostly the sample's pointer-free
// arrays, which the collector does not scan, so collecting more often
// costs little CPU, and the peak over the live heap is 10 % instead of
// 25 %: plan on 10⁷ rows 157–164 → 150–153 MiB (issue 18's 16 bytes a
// row, docs/performance.md). Small inputs keep 25 %: their heaps are
// the solvers' small objects, where 10 % cost up to a third more CPU.
func collectTighter(paths []string) {
	if os.Getenv("GOGC") != "" {
		return
	}
	var size int64
	for _, p := range paths {
		_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // the reader reports what cannot be read
			}
			// Stat, not the entry's Lstat: a symbolic link to a large
			// file (the input given as a link) counts as that file.
			if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
				size += info.Size()
			}
			if size >= largeInput {
				return fs.SkipAll
			}
			return nil
		})
	}
	if size >= largeInput {
		debug.SetGCPercent(tightGC)
		tight = true
	}
}

// collectAsBefore undoes collectTighter once the rows are dropped: the
// heap is then the solvers' small objects (plan's schedule search).
func collectAsBefore() {
	if tight {
		debug.SetGCPercent(GCPercent)
		tight = false
	}
}
