package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pollfit/pollfit/optimize"
	"github.com/pollfit/pollfit/pollschedule"
)

// CurrentVersion is the version of the JSON document that JSON writes and
// the newest that ReadJSON reads. It changes only when a reader of version
// 1 would misread a newer document.
const CurrentVersion = 1

// AllSegment names the overall schedule of a Document among its segments:
// generated code falls back to it for a segment it does not know, and no
// Segment may take the name.
const AllSegment = "all"

// Document is what pollfit exports: the overall schedule, optional
// per-segment schedules (a payment method, a region) and optional free
// metadata (budget, expected lag) that readers carry but do not interpret.
type Document struct {
	Schedule optimize.Schedule
	// Segments are ordered by name when read; names are non-empty, unique
	// and not AllSegment.
	Segments []Segment
	// Meta is a JSON object or empty; JSON writes it under "meta".
	Meta json.RawMessage
}

// Segment is the schedule of one segment of the data.
type Segment struct {
	Name     string
	Schedule optimize.Schedule
	Meta     json.RawMessage // a JSON object or empty
}

// Schedules returns the overall schedule followed by the segments' schedules.
func (d Document) Schedules() []optimize.Schedule {
	out := []optimize.Schedule{d.Schedule}
	for _, s := range d.Segments {
		out = append(out, s.Schedule)
	}
	return out
}

// JSONOptions configures JSON. The zero value writes no poll list.
type JSONOptions struct {
	// Polls adds "polls_ms", every poll time of each unjittered schedule,
	// for readers that would rather not implement the phases. ReadJSON
	// checks the list against the phases. A schedule with a wall-clock
	// phase has no such list (ErrClockPolls).
	Polls bool
}

// Errors wrapped by ReadJSON and Load.
var (
	// ErrVersion is returned for a document newer than CurrentVersion
	// (pollschedule.ErrVersion).
	ErrVersion = pollschedule.ErrVersion
	// ErrDocument is wrapped by every error about the content of a
	// schedule document (as opposed to reading it); pollschedule.ErrDocument.
	ErrDocument = pollschedule.ErrDocument
)

// Errors of the export targets for schedules with a wall-clock phase
// (optimize.WallClock), whose polls depend on when each item was created.
var (
	// ErrClockPolls is returned by JSON with JSONOptions.Polls for such a
	// schedule: no one list holds its polls.
	ErrClockPolls = errors.New("polls_ms cannot list the polls of a schedule with a wall-clock phase, which depend on when the item was created; export it without the poll list")
	// ErrClockEnd is returned by every target for such a schedule whose
	// last phase is a single gap: its horizon would differ from item to
	// item (pollschedule.ErrClockEnd).
	ErrClockEnd = pollschedule.ErrClockEnd
	// ErrToHorizon is returned by every target for a schedule jittered
	// "to horizon" (optimize.Jitter.ToHorizon), the way pollfit scores
	// baseline families: no runtime polls that way.
	ErrToHorizon = errors.New(`"jitter … to horizon" is how pollfit scores baseline families and has no runtime form; export the schedule with its jitter alone or with --jitter`)
)

// exportable checks what every target needs of a valid schedule beyond
// optimize's rules: one with a wall-clock phase ends with a repeating
// phase, so that its horizon, the last Until, is the same for every item;
// no jitter polls "to horizon".
func exportable(s optimize.Schedule) error {
	if s.Jitter.ToHorizon {
		return ErrToHorizon
	}
	if n := len(s.Phases); s.Clocked() && s.Phases[n-1].Growth == optimize.Once {
		return fmt.Errorf("%w: end it with the wall-clock phase or another repeating one (\"%s\")", ErrClockEnd, s.String())
	}
	return nil
}

// jsonDoc is the document as written: the overall schedule's fields at the
// top level, beside the version and the segments.
type jsonDoc struct {
	Version int `json:"version"`
	jsonSchedule
	Segments map[string]*jsonSchedule `json:"segments,omitempty"`
}

type jsonSchedule struct {
	Name      string          `json:"name,omitempty"`
	Spec      string          `json:"spec,omitempty"`
	StartMs   *json.Number    `json:"start_ms"`
	HorizonMs *json.Number    `json:"horizon_ms,omitempty"`
	Phases    []jsonPhase     `json:"phases"`
	Jitter    *jsonJitter     `json:"jitter,omitempty"`
	PollsMs   []json.Number   `json:"polls_ms,omitempty"`
	Meta      json.RawMessage `json:"meta,omitempty"`
}

type jsonPhase struct {
	Growth    string        `json:"growth"`
	GapMs     *json.Number  `json:"gap_ms,omitempty"`
	PeriodMs  *json.Number  `json:"period_ms,omitempty"`
	OffsetsMs []json.Number `json:"offsets_ms,omitempty"`
	StepMs    *json.Number  `json:"step_ms,omitempty"`
	Factor    *float64      `json:"factor,omitempty"`
	Exponent  *float64      `json:"exponent,omitempty"`
	CapMs     *json.Number  `json:"cap_ms,omitempty"`
	UntilMs   *json.Number  `json:"until_ms,omitempty"`
}

type jsonJitter struct {
	Kind   string   `json:"kind"`
	Spread *float64 `json:"spread,omitempty"`
}

// growthNames are the JSON (and template) names of optimize's growth kinds.
var growthNames = map[optimize.Growth]string{
	optimize.Once:        "once",
	optimize.Fixed:       "fixed",
	optimize.Linear:      "linear",
	optimize.Exponential: "exponential",
	optimize.Polynomial:  "polynomial",
	optimize.Fibonacci:   "fibonacci",
	optimize.WallClock:   "wall_clock",
}

var jitterNames = map[optimize.JitterKind]string{
	optimize.NoJitter:           "none",
	optimize.FullJitter:         "full",
	optimize.EqualJitter:        "equal",
	optimize.DecorrelatedJitter: "decorrelated",
	optimize.PercentJitter:      "percent",
}

// JSON writes doc as a version CurrentVersion JSON document, indented by
// two spaces and ending in a newline. The format is described by
// docs/schedule.schema.json. Times are milliseconds, with a decimal
// fraction only for sub-millisecond durations, so that ReadJSON returns the
// same time.Duration values. A wall-clock phase (optimize.WallClock) is
// written {"growth": "wall_clock", "period_ms", "offsets_ms", "until_ms"}.
// It returns an error if a schedule is invalid or not exportable
// (ErrClockEnd, ErrClockPolls), or a segment name is empty, repeated or
// AllSegment.
func JSON(w io.Writer, doc Document, opt JSONOptions) error {
	out := jsonDoc{Version: CurrentVersion}
	s, err := encodeSchedule(doc.Schedule, doc.Meta, opt)
	if err != nil {
		return err
	}
	out.jsonSchedule = *s
	if len(doc.Segments) > 0 {
		out.Segments = make(map[string]*jsonSchedule, len(doc.Segments))
	}
	for _, seg := range doc.Segments {
		if err := checkSegmentName(seg.Name); err != nil {
			return err
		}
		if _, dup := out.Segments[seg.Name]; dup {
			return fmt.Errorf("segment %q appears twice", seg.Name)
		}
		s, err := encodeSchedule(seg.Schedule, seg.Meta, opt)
		if err != nil {
			return fmt.Errorf("segment %q: %w", seg.Name, err)
		}
		out.Segments[seg.Name] = s
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func checkSegmentName(name string) error {
	switch {
	case name == "":
		return errors.New("segment name is empty")
	case name == AllSegment:
		return fmt.Errorf("segment name %q is reserved for the overall schedule", AllSegment)
	case !utf8.ValidString(name):
		return fmt.Errorf("segment name %q is not valid UTF-8", name)
	}
	return nil
}

func encodeSchedule(s optimize.Schedule, meta json.RawMessage, opt JSONOptions) (*jsonSchedule, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := exportable(s); err != nil {
		return nil, err
	}
	if opt.Polls && s.Clocked() {
		return nil, ErrClockPolls
	}
	if !utf8.ValidString(s.Name) {
		return nil, fmt.Errorf("schedule name %q is not valid UTF-8", s.Name)
	}
	// The phases as "spec" reads them, so that the two agree.
	s = s.Normalize()
	if len(meta) > 0 && !isObject(meta) {
		return nil, errors.New("meta must be a JSON object")
	}
	start, horizon := msNumber(s.Start), msNumber(s.Horizon())
	out := &jsonSchedule{
		Name:      s.Name,
		Spec:      s.String(),
		StartMs:   &start,
		HorizonMs: &horizon,
		Phases:    []jsonPhase{},
		Meta:      meta,
	}
	for _, p := range s.Phases {
		gap := msNumber(p.Gap)
		jp := jsonPhase{Growth: growthNames[p.Growth], GapMs: &gap}
		if p.Growth == optimize.WallClock {
			jp.GapMs, jp.PeriodMs = nil, &gap
			for _, o := range p.Offsets {
				jp.OffsetsMs = append(jp.OffsetsMs, msNumber(o))
			}
		}
		if p.Growth != optimize.Once {
			u := msNumber(p.Until)
			jp.UntilMs = &u
		}
		switch p.Growth {
		case optimize.Linear:
			st := msNumber(p.Step)
			jp.StepMs = &st
		case optimize.Exponential:
			jp.Factor = &p.Factor
		case optimize.Polynomial:
			jp.Exponent = &p.Exponent
		}
		if p.Cap > 0 && p.Growth != optimize.Once && p.Growth != optimize.Fixed {
			c := msNumber(p.Cap)
			jp.CapMs = &c
		}
		out.Phases = append(out.Phases, jp)
	}
	if s.Jitter.Kind != optimize.NoJitter {
		j := &jsonJitter{Kind: jitterNames[s.Jitter.Kind]}
		if s.Jitter.Kind == optimize.PercentJitter {
			j.Spread = &s.Jitter.Percent
		}
		out.Jitter = j
	}
	if opt.Polls {
		for _, t := range s.Polls() {
			out.PollsMs = append(out.PollsMs, msNumber(t))
		}
	}
	return out, nil
}

func isObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// msNumber writes d in milliseconds as an exact decimal: "1500", "1.5",
// "0.000001".
func msNumber(d time.Duration) json.Number {
	ms, frac := int64(d/time.Millisecond), int64(d%time.Millisecond)
	s := strconv.FormatInt(ms, 10)
	if frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
	}
	return json.Number(s)
}

// ReadJSON reads a document written by JSON (any version up to
// CurrentVersion) and returns it with its segments ordered by name. It
// reads with package pollschedule's Read, which accepts a document exactly when it
// validates against docs/schedule.schema.json and its schedules are valid
// and agree with their "horizon_ms" and "polls_ms"; ReadJSON then checks
// that a "spec" agrees with the phases too. Errors wrap ErrDocument or
// ErrVersion and give the path of the bad field, such as
// segments.wallet.phases[2].until_ms; disagreements wrap
// pollschedule.ErrDisagree.
func ReadJSON(r io.Reader) (Document, error) {
	var doc Document
	in, err := pollschedule.Read(r)
	if err != nil {
		return doc, err
	}
	if doc.Schedule, err = fromLoaded(in.Schedule, ""); err != nil {
		return doc, err
	}
	doc.Meta = json.RawMessage(in.Meta)
	for _, name := range in.SegmentNames() {
		ps := in.Segments[name]
		s, err := fromLoaded(ps, "segments."+name+".")
		if err != nil {
			return doc, err
		}
		doc.Segments = append(doc.Segments, Segment{Name: name, Schedule: s, Meta: json.RawMessage(ps.Meta)})
	}
	return doc, nil
}

// fromLoaded converts a schedule read by package pollschedule, and checks its spec.
func fromLoaded(in *pollschedule.Schedule, path string) (optimize.Schedule, error) {
	s := optimize.Schedule{Name: in.Name, Start: in.Start}
	for _, p := range in.Phases {
		s.Phases = append(s.Phases, optimize.Phase{
			Growth: growthOf[p.Growth], Gap: p.Gap, Step: p.Step, Factor: p.Factor,
			Exponent: p.Exponent, Cap: p.Cap, Until: p.Until, Offsets: slices.Clone(p.Offsets),
		})
	}
	s.Jitter = optimize.Jitter{Kind: jitterOf[in.Jitter.Kind], Percent: in.Jitter.Spread}
	if err := s.Validate(); err != nil {
		// pollschedule.Read checked the same rules: a bug of one of the two.
		return s, &pollschedule.Error{Path: path + "phases", Err: fmt.Errorf("package pollschedule and optimize disagree: %w", err)}
	}
	if in.Spec != "" {
		sp, err := optimize.ParseSpec(in.Spec)
		if err != nil {
			return s, &pollschedule.Error{Path: path + "spec", Err: err}
		}
		sp.Name = s.Name
		if !sameSchedule(sp, s) {
			return s, &pollschedule.Error{Path: path + "spec", Err: fmt.Errorf("%w: %q, which read %q; fix or delete one", pollschedule.ErrDisagree, in.Spec, s.String())}
		}
	}
	return s, nil
}

// growthOf and jitterOf map package pollschedule's kinds to optimize's.
var (
	growthOf = map[pollschedule.Growth]optimize.Growth{
		pollschedule.Once: optimize.Once, pollschedule.Fixed: optimize.Fixed, pollschedule.Linear: optimize.Linear,
		pollschedule.Exponential: optimize.Exponential, pollschedule.Polynomial: optimize.Polynomial, pollschedule.Fibonacci: optimize.Fibonacci,
		pollschedule.WallClock: optimize.WallClock,
	}
	jitterOf = map[pollschedule.JitterKind]optimize.JitterKind{
		pollschedule.NoJitter: optimize.NoJitter, pollschedule.FullJitter: optimize.FullJitter, pollschedule.EqualJitter: optimize.EqualJitter,
		pollschedule.DecorrelatedJitter: optimize.DecorrelatedJitter, pollschedule.PercentJitter: optimize.PercentJitter,
	}
)

// sameSchedule compares two schedules, allowing the percent jitter spread
// the rounding of "±P%" (P·100 then /100 is not always exact in float64).
func sameSchedule(a, b optimize.Schedule) bool {
	if a.Start != b.Start || a.Name != b.Name || !slices.EqualFunc(a.Phases, b.Phases, optimize.Phase.Equal) || a.Jitter.Kind != b.Jitter.Kind {
		return false
	}
	return math.Abs(a.Jitter.Percent-b.Jitter.Percent) <= 1e-12
}
