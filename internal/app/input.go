// Package app runs pollfit's commands: each takes a settings struct made
// from the flags by main.go and writes to the given stdout and stderr.
package app

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
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
	// header, when not nil, starts the command's stdout with the line
	// that says what was read and in which unit (source.line) instead of
	// stderr: the commands that print tables set it (headed), so that
	// the unit is shown beside the figures it makes, --quiet or not.
	header *headed
	// MinSegmentRows: segments (Read.Segment) with fewer rows are
	// reported together as "other"; 0 keeps every segment apart. The
	// command's flag defaults to DefaultMinSegmentRows.
	MinSegmentRows int
}

// DefaultMinSegmentRows is the default of --min-segment-rows.
const DefaultMinSegmentRows = 200

// Bundled is a dataset compiled into the binary with its presets.
type Bundled struct {
	Name   string // its file name, shown as where the rows came from
	Data   []byte
	Column string
	// About names the data in errors, which must not name a file the
	// user never named: "Julia CI job durations".
	About string
}

// StdinData reports whether f, standard input, holds data to read when no
// --input is given: a pipe, a socket or a regular file does (cat d.csv |
// pollfit plan, pollfit plan < d.csv); a terminal or another device, such
// as /dev/null, does not. ripgrep decides whether to search standard
// input the same way (its is_readable_stdin).
func StdinData(f *os.File) bool {
	if f == nil {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	m := st.Mode()
	return m.IsRegular() || m&(fs.ModeNamedPipe|fs.ModeSocket) != 0
}

// FromStdin has in read standard input f, as --input - does, when no
// --input is given and f holds data (StdinData); stderr is told so first,
// unless in.Quiet, since the read waits for the data. An empty pipe or
// file (a harness that closes standard input at once) is no data: in
// is left as it was, on the bundled data or none, and stderr is warned,
// even with in.Quiet, since the data piped in was not read. It
// reports whether standard input is read.
func (in *Input) FromStdin(f *os.File, stderr io.Writer) (bool, error) {
	if len(in.Paths) > 0 || !StdinData(f) {
		return false, nil
	}
	what := "a pipe"
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		what = "a file"
	}
	if !in.Quiet {
		fmt.Fprintf(stderr, "no --input: reading settle times from standard input (%s)\n", what)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	if _, err := r.Peek(1); err != nil {
		if !errors.Is(err, io.EOF) {
			return false, fmt.Errorf("stdin: %w", err)
		}
		instead := "no data read"
		if in.Bundled != nil {
			instead = "planning on the bundled example data, " + in.Bundled.About
		}
		fmt.Fprintf(stderr, "warning: standard input (%s) is empty: %s; give --input FILE for yours\n", what, instead)
		return false, nil
	}
	in.Paths = []string{"-"}
	in.Read.Stdin = r
	return true, nil
}

// source is what was read: the reader's counts and unit, where the rows
// came from, and what --unit ms would make of them when the unit is the
// default one. JSON "input" of plan and fit.
type source struct {
	// Name is the input as given (paths, "stdin"), or the bundled
	// data's file with "(bundled)".
	Name string `json:"source"`
	*ingest.Report
	// UnitHint, for bare whole numbers read in seconds by default, says
	// what --unit ms would read (unitHint).
	UnitHint string `json:"unit_hint,omitempty"`
	// start and end are the timestamp columns of the settle times, when
	// they are end − start.
	start, end string
}

// line says what was read and in which unit, for stdout, where --quiet
// keeps it: `input: d.csv; unit: ms (from the column name "Latency(ms)";
// --unit overrides)`.
func (src *source) line() string {
	u := UnitLine(src.Report)
	switch {
	case u == "" && src.start != "" && src.end != "":
		u = fmt.Sprintf("settle times %s − %s (timestamps)", src.end, src.start)
	case src.UnitHint != "" && src.UnitFrom == ingest.UnitFromDefault:
		u = fmt.Sprintf("unit: %s (default; %s)", src.Unit, src.UnitHint)
	}
	if u == "" {
		return "input: " + src.Name
	}
	return "input: " + src.Name + "; " + u
}

// headed returns the stdout of a command that prints in format: for a
// table, stdout starting with the line that says what was read (set by
// load; see headed), else stdout itself: JSON says it in its "input", and
// CSV readers take no such line.
func (in *Input) headed(format string, stdout io.Writer) io.Writer {
	if format == "json" || format == "csv" {
		return stdout
	}
	in.header = &headed{w: stdout}
	return in.header
}

// headed is a command's stdout that starts with a line, written with the
// output's first bytes: a command that fails after reading its input
// writes nothing to stdout.
type headed struct {
	w    io.Writer
	line string // "" until the input is read
	done bool
}

func (h *headed) Write(p []byte) (int, error) {
	if !h.done && h.line != "" {
		h.done = true
		if _, err := io.WriteString(h.w, h.line+"\n"); err != nil {
			return 0, err
		}
	}
	return h.w.Write(p)
}

// name names the input as stdout shows it: the paths as given, "-" as
// stdin, or the bundled data's file.
func (in Input) name() string {
	if len(in.Paths) == 0 && in.Bundled != nil {
		return in.Bundled.Name + " (bundled)"
	}
	names := slices.Clone(in.Paths)
	for i, n := range names {
		if n == "-" {
			names[i] = "stdin" // as errors name it
		}
	}
	return strings.Join(names, ", ")
}

// unitHint says, for bare numbers read in seconds because nothing said
// otherwise, that they are whole numbers and what --unit ms would read
// their median as: "the values are whole numbers: --unit ms would read
// the median 1801 as 1.801s" (a wait column of milliseconds read as
// seconds planned a 48-hour schedule with a 3-minute min gap, and only
// stderr named the unit). Where ms would read the median as more than a
// day, the first of us and ns that does not is named instead. "" for
// other input, and for binned input, whose bounds are whole numbers by
// design.
func unitHint(rep *ingest.Report, s *ingest.Sample) string {
	if rep == nil || rep.UnitFrom != ingest.UnitFromDefault || rep.Unit != ingest.Second || s == nil || s.Weights != nil || s.Len() == 0 {
		return ""
	}
	for _, t := range s.Times {
		if t != math.Trunc(t) || t >= 1<<53 {
			return ""
		}
	}
	med := wholeMedian(s.Times)
	name, unit := "ms", time.Millisecond
	for _, u := range []struct {
		name string
		unit time.Duration
	}{{"us", time.Microsecond}, {"ns", time.Nanosecond}} {
		if med*unit.Seconds() <= 86400 {
			break
		}
		name, unit = u.name, u.unit
	}
	as := formatSeconds(med * unit.Seconds())
	if med <= float64(math.MaxInt64/unit) {
		as = optimize.FormatDuration(time.Duration(med) * unit) // exact: 1.801s
	}
	return fmt.Sprintf("the values are whole numbers: --unit %s would read the median %s as %s",
		name, strconv.FormatFloat(med, 'f', -1, 64), as)
}

// wholeMedian returns the lower median of xs, its ⌈n/2⌉-th smallest
// value, for whole numbers 0 ≤ x < 2⁵³, exactly and without reordering
// or copying xs (it may hold 10⁸ rows): a most-significant-digit radix
// selection on x − min, 16 bits a pass, at most four passes over xs,
// each counting the values whose digits so far are the median's. It
// panics on an empty slice.
func wholeMedian(xs []float64) float64 {
	lo, hi := slices.Min(xs), slices.Max(xs)
	k := uint64((len(xs)+1)/2 - 1) // the rank sought, from 0
	counts := make([]uint64, 1<<16)
	var prefix uint64 // the digits of the value found so far
	for shift := (bits.Len64(uint64(hi-lo)) + 15) / 16 * 16; shift > 0; {
		shift -= 16
		clear(counts)
		for _, x := range xs {
			// A shift of 64 gives 0 in Go: every value is in the
			// first pass.
			if v := uint64(x - lo); v>>(shift+16) == prefix {
				counts[(v>>shift)&0xffff]++
			}
		}
		for d, c := range counts {
			if k < c {
				prefix = prefix<<16 | uint64(d)
				break
			}
			k -= c
		}
	}
	return lo + float64(prefix)
}

// load reads the input and reports the row counts on stderr. It returns
// nil, nil, nil when there is no input.
func (in Input) load(stderr io.Writer) (*ingest.Sample, *ingest.Report, error) {
	s, src, err := in.loadSource(stderr)
	if src == nil {
		return s, nil, err
	}
	return s, src.Report, err
}

// loadSource is load, returning with the reader's report what stdout
// says of the input (source). The line that says what was read and in
// which unit goes to in.Header when set, else to stderr unless quiet.
func (in Input) loadSource(stderr io.Writer) (*ingest.Sample, *source, error) {
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
			with := "--input"
			if in.Read.Stdin != nil {
				with = "data on standard input"
			}
			return nil, nil, Usagef("--column is required with %s: name the column that holds settle times (or give --start and --end)", with)
		}
		collectTighter(in.Paths)
		s, rep, err = ingest.Read(in.Paths, in.Read)
	case in.Bundled != nil:
		opt := in.Read
		if opt.Column == "" {
			opt.Column = in.Bundled.Column
		}
		if opt.Column != in.Bundled.Column {
			// Read, the column would be looked for in a file the user
			// never named.
			return nil, nil, Usagef("--column %s names a column of your data: give the file with --input FILE, or pipe it in; without them the bundled example data is read, %s (column %s)",
				opt.Column, in.Bundled.About, in.Bundled.Column)
		}
		s, rep, err = ingest.ReadCSV(bytes.NewReader(in.Bundled.Data), "the bundled example data ("+in.Bundled.About+"; no --input given)", opt)
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
	src := &source{Name: in.name(), Report: rep, UnitHint: unitHint(rep, s), start: in.Read.Start, end: in.Read.End}
	if !in.Quiet {
		fmt.Fprintf(stderr, "%s: %s\n", src.Name, rep)
	}
	if in.header != nil {
		in.header.line = src.line()
	} else if u := UnitLine(rep); u != "" && !in.Quiet {
		if src.UnitHint != "" {
			u = fmt.Sprintf("unit: %s (default; %s; --unit sets it)", rep.Unit, src.UnitHint)
		}
		fmt.Fprintln(stderr, u)
	}
	for _, w := range rep.Warnings { // even with --quiet: they need a look
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return s, src, nil
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
