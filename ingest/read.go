package ingest

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Sentinel errors wrapped by ParseError; check them with errors.Is.
var (
	ErrMissingColumn = errors.New("column not found")
	ErrEmptyValue    = errors.New("empty value")
	ErrNotNumber     = errors.New("not a number or duration")
	ErrNotFinite     = errors.New("not a finite number")
	ErrNegative      = errors.New("negative duration")
	// ErrDuplicateColumn is a column in use whose name the header has twice.
	ErrDuplicateColumn = errors.New("ambiguous column")
	ErrNoRows          = errors.New("no data rows")
	ErrBadTimestamp    = errors.New("bad timestamp")
	ErrEndBeforeStart  = errors.New("end before start")
	ErrNoObservation   = errors.New("pending row without end time or observation time")
	// ErrObservedBeforeStart is a pending row whose start is after the
	// observation time (ReadOptions.ObservedAt): the time is wrong, not
	// the row, so Negative does not drop or zero it.
	ErrObservedBeforeStart = errors.New("observation time before start")
	ErrFieldCount          = errors.New("wrong number of fields")
	ErrNotUTF8             = errors.New("invalid UTF-8")
	ErrQuote               = errors.New("bad quoting")
	ErrWrongType           = errors.New("wrong column type")
	ErrBadBin              = errors.New("bad bin")
	ErrCorrupt             = errors.New("corrupt or truncated file")
	ErrNoFiles             = errors.New("no input files")
	// ErrOption is an invalid ReadOptions field (a usage error).
	ErrOption = errors.New("invalid option")
	// ErrOutOfRange is a value beyond what can be held: a duration above
	// MaxSeconds, a timestamp outside the years 1678–2261 (Unix
	// nanoseconds in an int64), a bin count above MaxBinCount.
	ErrOutOfRange = errors.New("out of range")
	// ErrTooManyRows is an input with more rows than ReadOptions.MaxRows,
	// or than memory would hold.
	ErrTooManyRows = errors.New("too many rows")
	// ErrLineEnds is CSV whose lines end in a carriage return alone.
	ErrLineEnds = errors.New("lines end in CR only")
	// ErrBadInterval is a row whose last pending age
	// (ReadOptions.SettledAfter) is above its first settled age.
	ErrBadInterval = errors.New("pending after settled")
)

// maxQuoted is the most bytes of an input value an error quotes, and
// maxMessage the longest ParseError message: a 12.9 MB file with CR-only
// line endings was once quoted whole, as its header.
const (
	maxQuoted  = 64
	maxMessage = 2048
)

// quote quotes a value of the input for an error, cut to maxQuoted bytes
// (at a character boundary) with its length said.
func quote[T ~string | ~[]byte](v T) string {
	if len(v) <= maxQuoted {
		return strconv.Quote(string(v))
	}
	cut := maxQuoted
	for cut > maxQuoted-utf8.UTFMax && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(string(v[:cut])), len(v))
}

// howMany writes n and the noun, plural unless n is 1: "1 row", "2 rows".
func howMany(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// wereOf is "was" for 1 and "were" otherwise.
func wereOf(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// ParseError reports bad input at a position. For CSV, Row is the 1-based
// line of the file where the record starts, header included, and RowGroup
// is -1. For Parquet, RowGroup is the 0-based row group and Row the 1-based
// row within it. Row is 0 when the error is not about one row (a missing
// column, an empty file).
type ParseError struct {
	File     string
	Row      int
	RowGroup int // Parquet only; -1 for CSV
	Column   string
	Err      error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.RowGroup >= 0 {
		fmt.Fprintf(&b, ": row group %d", e.RowGroup)
		if e.Row > 0 {
			fmt.Fprintf(&b, ", row %d", e.Row)
		}
	} else if e.Row > 0 {
		fmt.Fprintf(&b, ": row %d", e.Row)
	}
	if e.Column != "" {
		fmt.Fprintf(&b, ", column %s", quote(e.Column))
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if b.Len() > maxMessage {
		s := b.String()
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%s… (message cut: %d bytes)", s[:cut], len(s))
	}
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// ReadOptions says where the settle times are in the input and how to read
// them. The zero value reads nothing useful: set Column, or Start and End,
// or Column with Start or End, or Binned; or, for what a client's poller
// saw, a poll log (PollID) or interval timestamps (Start with LastPending
// and FirstSettled), whose items are intervals (Sample.Lower).
//
// A row's settle time is the value of Column (a duration) when Column is
// set, else End − Start (two timestamps). Its creation instant
// (Sample.Created) comes from the timestamps, when there are any:
//
//	Start and End      created = Start, settle time End − Start
//	Start and Column   created = Start, settle time Column
//	End and Column     created = End − Column, settle time Column
//	Column alone       no creation instants (Sample.Created is nil)
//
// A row whose Status is one of Pending is still pending at the end of
// observation: its time is its age then and it is marked right-censored.
// Every other status (failed included) is a settle. A row whose Status is
// one of ExcludeStatus is left out and counted in Report.Excluded.
type ReadOptions struct {
	// Column is the name of the duration column: bare integer or decimal
	// numbers in Unit, Go duration strings ("1.5s", "2m"), or a Parquet
	// integer, floating or duration column. It may be set with one of
	// Start and End, which then place each item in time, not with both.
	Column string
	// Unit is the unit of bare numbers in Column and in binned bounds.
	// 0 means the unit the column's name says (UnitInName: "Latency(ms)",
	// "settle_ms", "duration_seconds"; for binned input, the bound
	// columns' names), else seconds. A Parquet duration column holds its
	// own unit, which is used whatever Unit says. Report.Unit and
	// Report.UnitFrom tell which unit was used and why.
	Unit Unit
	// DropInvalid drops rows with bad values instead of failing; each
	// drop is counted per reason in Report.Dropped.
	DropInvalid bool
	// Negative says what a negative duration, or an end before its start,
	// does: NegativeError (the zero value) fails, or drops the row with
	// DropInvalid; NegativeDrop drops it, NegativeZero makes it 0 (small
	// negative durations come from clock skew between the machines that
	// wrote the timestamps). Both are counted in the Report. Binned
	// bounds must not be negative whatever it says.
	Negative Negative
	// Dedupe names an id column: of the rows with the same value in it,
	// the first row used is kept and later ones are dropped, counted as
	// "duplicate id" in Report.Dropped. Empty means no deduplication;
	// rows that repeat an earlier row exactly are then counted in
	// Report.Repeated and warned about.
	Dedupe string
	// Delimiter separates CSV fields; 0 means ','. It must be an ASCII
	// character other than '"', '\r' and '\n'.
	Delimiter rune

	// Start and End name timestamp columns: of creation and of settling.
	// With both, the settle time is End − Start; with Column, one of them
	// places the item in time (Sample.Created). Text timestamps are RFC
	// 3339, with or without fractional seconds, 'T' or ' ' between date
	// and time, and an optional zone (none means UTC, counted in a
	// warning per column); with Epoch set,
	// numbers are epoch numbers and RFC 3339
	// text is still read as such. Parquet timestamp and date columns are read as
	// they are. A creation instant beyond the range of Unix nanoseconds in
	// an int64, or, with Start and Column, a settle instant beyond it, is
	// ErrOutOfRange.
	Start, End string
	// Epoch is the unit of numeric timestamps (Second, Millisecond,
	// Microsecond or Nanosecond since 1970-01-01 UTC), in Start and End
	// alike; 0 means timestamps are RFC 3339 text or Parquet timestamps.
	// Start and End in two epoch units cannot be read: an end that this
	// puts before its start is ErrBadTimestamp, naming the unit that fits.
	Epoch Unit

	// Status names the outcome column. Empty means no column: then, with
	// End, a row with an empty End is pending.
	Status string
	// Pending lists the Status values of rows still pending at the end of
	// observation (right-censored). Their age is, in order of preference:
	// the duration in Column; End − Start when End is not empty;
	// ObservedAt − Start. With End and Column, a pending row with an
	// empty End was created at ObservedAt − its duration (the duration is
	// its age when observation ended).
	Pending []string
	// ObservedAt is when observation ended (the log's export time); the
	// zero value means unknown, and a pending row that needs it is an
	// error (ErrNoObservation): with Start and End, for its age; with End
	// and Column, for its creation instant.
	ObservedAt time.Time
	// ExcludeStatus lists Status values whose rows are left out on
	// purpose (counted in Report.Excluded), such as "cancelled".
	ExcludeStatus []string

	// Segment names a column whose values split the sample (Sample.Segment).
	// In a Hive-partitioned directory (dir/method=momo/part-0.parquet) a
	// partition key is a column too.
	Segment string

	// Binned reads pre-aggregated histogram rows instead of one row per
	// item: see ReadBinned for the columns and how counts become weights.
	Binned bool
	// Bins names the columns of binned input; zero fields mean the
	// DefaultBinColumns names.
	Bins BinColumns

	// PollID names the item id column of a poll log: one row per poll a
	// client made, with the poll's age (Column, a duration) or timestamp
	// (PolledAt), and the status it saw (Status: one of Pending, else
	// settled; ExcludeStatus leaves a poll out, such as a failed
	// request's). The reader groups the polls by id, one item each: it
	// settled after the last poll that saw it pending and by the first
	// that saw it settled (Sample.Lower, Sample.Times), or is censored at
	// its last poll (see polllog.go). Report.Polls counts what the
	// grouping found. Ids are told apart by a 64-bit hash: two of 10⁷ ids
	// share one with probability below 3·10⁻⁶.
	PollID string
	// PolledAt names the column of the polls' timestamps in a poll log:
	// a poll's age is PolledAt − Start with Start, else PolledAt − the
	// item's first poll (which then has age 0 and places the item in
	// time, Sample.Created).
	PolledAt string
	// LastPending and FirstSettled name timestamp columns of one row per
	// item: when the last poll that saw it pending and the first that saw
	// it settled were made. With Start, the item settled after
	// LastPending − Start and by FirstSettled − Start (Sample.Lower,
	// Sample.Times); an empty LastPending is the item's start (its first
	// poll found it settled). A row with an empty FirstSettled, or a
	// pending Status, is still pending: censored at LastPending − Start.
	// Timestamps are read as Start's are (Epoch, RFC 3339, Parquet
	// timestamps).
	LastPending, FirstSettled string

	// Progress, when not nil, receives a progress bar for long reads (the
	// CLI passes os.Stderr when it is a terminal and --quiet is not set).
	Progress io.Writer
	// Stdin is what the path "-" reads; nil means os.Stdin. The CLI sets
	// it to standard input with the bytes it looked at to find whether
	// any data was piped in put back in front.
	Stdin io.Reader
	// Workers is the number of goroutines parsing in parallel; 0 means
	// GOMAXPROCS.
	Workers int
	// MaxRows is the most rows read, all inputs together (bins for
	// binned input); 0 means DefaultMaxRows. More rows fail the read
	// with ErrTooManyRows, before memory runs out: a 3.9 MB gzip of a
	// billion rows, or a Parquet footer claiming 2⁴⁰ rows, used to end
	// the process. Reading fails the same way, whatever MaxRows says,
	// when growing the sample would take more memory than is available.
	MaxRows int
}

// BytesPerRow is the memory a row read may take, all of pollfit's work on
// it included (docs/performance.md measures it): the sample holds 8 bytes
// a row for its time, 1 for the censoring flag and 4 for the segment.
// Input with timestamps (ReadOptions.Start or End) holds each item's
// creation instant too: CreatedBytesPerRow more.
const BytesPerRow = 16

// CreatedBytesPerRow is what Sample.Created adds to BytesPerRow: an int64
// a row, on input with timestamps only.
const CreatedBytesPerRow = 8

// LowerBytesPerRow is what Sample.Lower adds to BytesPerRow: a float64 a
// row, on interval input (ReadOptions.SettledAfter) only.
const LowerBytesPerRow = 8

// memAvailable is systemMemAvailable, a variable for tests.
var memAvailable = systemMemAvailable

// DefaultMaxRows returns the default of ReadOptions.MaxRows for input
// without timestamps: the rows the memory available now holds at
// BytesPerRow bytes each (the kernel's estimate, within the memory
// cgroup's limit), or 0, no limit, where that is unknown (outside Linux).
// Input with timestamps is allowed the rows that BytesPerRow +
// CreatedBytesPerRow bytes each hold.
func DefaultMaxRows() int {
	return int(memAvailable() / BytesPerRow)
}

// Negative is what reading does with a negative duration, or an end
// before its start (ReadOptions.Negative).
type Negative int

const (
	// NegativeError fails, naming the row (or drops it with DropInvalid).
	NegativeError Negative = iota
	// NegativeDrop drops the row, counted as "negative" or "end before
	// start" in Report.Dropped.
	NegativeDrop
	// NegativeZero makes the duration 0, counted in Report.Zeroed.
	NegativeZero
)

// ParseNegative parses "error", "drop" or "zero"; "" is "error".
func ParseNegative(s string) (Negative, error) {
	switch s {
	case "", "error":
		return NegativeError, nil
	case "drop":
		return NegativeDrop, nil
	case "zero":
		return NegativeZero, nil
	}
	return 0, fmt.Errorf("%q: want error, drop or zero", s)
}

func (n Negative) String() string {
	switch n {
	case NegativeDrop:
		return "drop"
	case NegativeZero:
		return "zero"
	}
	return "error"
}

// Report counts what happened to the rows of an input: every row read is
// used, excluded on purpose, or dropped for a reason, so
// Read = Used + Excluded + DroppedTotal(). Nothing is dropped without being
// counted here. For binned input rows are bins; Items and Censored then
// count the items the bins stand for.
type Report struct {
	Read     int `json:"read"`
	Used     int `json:"used"`
	Censored int `json:"censored"`
	// Intervals counts the rows used that are interval-censored: known to
	// settle after their ReadOptions.SettledAfter age and by their
	// Column age, the two apart (the others are exact or censored).
	Intervals int            `json:"intervals,omitempty"`
	Excluded  int            `json:"excluded"`
	Dropped   map[string]int `json:"dropped"`
	// BlankLines counts the blank lines of CSV input, which are skipped,
	// not rows (a line of a one-column file is a row only with a value).
	BlankLines int `json:"blank_lines,omitempty"`
	// Files is the number of input files read.
	Files int `json:"files,omitempty"`
	// Items is the total count of binned input (0 for raw input).
	Items float64 `json:"items,omitempty"`
	// Zeroed counts the negative durations (or ends before starts) made
	// 0 by NegativeZero, and Lowest is the most negative of them in
	// seconds. Zeroed rows are among Used.
	Zeroed int     `json:"zeroed,omitempty"`
	Lowest float64 `json:"lowest,omitempty"`
	// Repeated counts the rows that repeat an earlier row exactly (CSV:
	// the whole line; Parquet: the columns in use, when they include
	// timestamps), when Dedupe is not set. It is exact when
	// RepeatedExact is true and estimated from a sample of the rows
	// otherwise (beyond 4,096 distinct rows: see ingest/dedupe.go).
	Repeated      int  `json:"repeated,omitempty"`
	RepeatedExact bool `json:"repeated_exact,omitempty"`
	// Unit is the unit bare numbers of the duration column (or the bounds
	// of binned input) were read in, UnitFrom why, and UnitColumn the
	// column whose name or type said it. Zero for timestamp input.
	Unit       Unit       `json:"unit,omitempty"`
	UnitFrom   UnitSource `json:"unit_from,omitempty"`
	UnitColumn string     `json:"unit_column,omitempty"`
	// Polls, for a poll log (ReadOptions.PollID), counts the items its
	// polls made and what the checks found; rows are polls. Nil otherwise.
	Polls *PollCounts `json:"polls,omitempty"`
	// Warnings are things about the input a person should look at, such
	// as a pending status that no row has.
	Warnings []string `json:"warnings,omitempty"`
}

func (r *Report) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// DroppedTotal returns the number of dropped rows, all reasons together.
func (r *Report) DroppedTotal() int {
	n := 0
	for _, v := range r.Dropped {
		n += v
	}
	return n
}

// String gives the counts in one line, reasons sorted:
// "read 100 rows: used 97 (censored 3), excluded 0, dropped 3 (empty 2, negative 1)";
// zeroed negatives add "; 2 negative set to 0, lowest -350ms" after the
// censored count.
func (r *Report) String() string {
	var b strings.Builder
	if r.Items > 0 { // binned input: rows are bins, Censored counts items
		fmt.Fprintf(&b, "read %s (bins): used %d, holding %s items (censored %d), excluded %d, dropped %d",
			howMany(r.Read, "row"), r.Used, strconv.FormatFloat(r.Items, 'f', -1, 64), r.Censored, r.Excluded, r.DroppedTotal())
	} else if r.Polls != nil { // a poll log: rows are polls, Censored counts items
		fmt.Fprintf(&b, "read %s (polls): used %d", howMany(r.Read, "row"), r.Used)
		if r.Zeroed > 0 {
			fmt.Fprintf(&b, " (%d negative set to 0, lowest %s)", r.Zeroed, fmtSigned(r.Lowest))
		}
		fmt.Fprintf(&b, ", excluded %d, dropped %d", r.Excluded, r.DroppedTotal())
	} else {
		fmt.Fprintf(&b, "read %s: used %d (censored %d", howMany(r.Read, "row"), r.Used, r.Censored)
		if r.Zeroed > 0 {
			fmt.Fprintf(&b, "; %d negative set to 0, lowest %s", r.Zeroed, fmtSigned(r.Lowest))
		}
		fmt.Fprintf(&b, "), excluded %d, dropped %d", r.Excluded, r.DroppedTotal())
	}
	if len(r.Dropped) > 0 {
		b.WriteString(" (")
		for i, k := range slices.Sorted(maps.Keys(r.Dropped)) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %d", k, r.Dropped[k])
		}
		b.WriteString(")")
	}
	if r.BlankLines > 0 {
		fmt.Fprintf(&b, "; skipped %s", howMany(r.BlankLines, "blank line"))
	}
	if c := r.Polls; c != nil {
		fmt.Fprintf(&b, "; %s: %d settled, %d pending at their last poll (censored)", howMany(c.Items, "item"), c.Settled, c.Items-c.Settled)
		if s := c.String(); s != "" {
			b.WriteString("; ")
			b.WriteString(s)
		}
	}
	return b.String()
}
