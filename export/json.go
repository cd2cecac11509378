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

	"github.com/pollfit/pollfit/optimize"
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
	// checks the list against the phases.
	Polls bool
}

// Errors wrapped by ReadJSON and Load.
var (
	// ErrVersion is returned for a document newer than CurrentVersion.
	ErrVersion = errors.New("unsupported schedule document version")
	// ErrDocument is wrapped by every error about the content of a
	// schedule document (as opposed to reading it).
	ErrDocument = errors.New("invalid schedule document")
)

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
	Growth   string       `json:"growth"`
	GapMs    *json.Number `json:"gap_ms"`
	StepMs   *json.Number `json:"step_ms,omitempty"`
	Factor   *float64     `json:"factor,omitempty"`
	Exponent *float64     `json:"exponent,omitempty"`
	CapMs    *json.Number `json:"cap_ms,omitempty"`
	UntilMs  *json.Number `json:"until_ms,omitempty"`
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
// same time.Duration values. It returns an error if a schedule is invalid
// or a segment name is empty, repeated or AllSegment.
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
	switch name {
	case "":
		return errors.New("segment name is empty")
	case AllSegment:
		return fmt.Errorf("segment name %q is reserved for the overall schedule", AllSegment)
	}
	return nil
}

func encodeSchedule(s optimize.Schedule, meta json.RawMessage, opt JSONOptions) (*jsonSchedule, error) {
	if err := s.Validate(); err != nil {
		return nil, err
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

// parseMs reads a JSON number of milliseconds into a whole number of
// nanoseconds, exactly: no float64 stands between the text and the
// Duration. It accepts the JSON number grammar (fractions, exponents).
func parseMs(n json.Number) (time.Duration, error) {
	s := string(n)
	bad := func(why string) (time.Duration, error) {
		return 0, fmt.Errorf("%s ms %s", s, why)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > 100 || e < -100 {
			return bad("is out of range")
		}
		exp = e
	}
	intPart, fracPart, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+fracPart, "0")
	if digits == "" {
		return 0, nil
	}
	if neg {
		return bad("is negative")
	}
	// value = digits · 10^shift nanoseconds
	shift := exp - len(fracPart) + 6
	if shift < 0 {
		cut := len(digits) + shift
		if cut < 0 || strings.TrimLeft(digits[max(cut, 0):], "0") != "" {
			return bad("is not a whole number of nanoseconds")
		}
		digits = digits[:cut]
		shift = 0
	}
	if len(digits)+shift > 19 {
		return bad("is out of range")
	}
	v, err := strconv.ParseInt(digits+strings.Repeat("0", shift), 10, 64)
	if err != nil {
		return bad("is out of range")
	}
	return time.Duration(v), nil
}

// ReadJSON reads a document written by JSON (any version up to
// CurrentVersion) and returns it with its segments ordered by name. It
// checks the document strictly, so that a hand edit that breaks it fails
// here rather than in production: unknown fields, fields that do not
// apply to a phase's growth, a "spec", "horizon_ms" or "polls_ms" that
// disagrees with the phases, and every check of optimize.Schedule.Validate.
// Errors wrap ErrDocument or ErrVersion and give the path of the bad field,
// such as segments.wallet.phases[2].until_ms.
func ReadJSON(r io.Reader) (Document, error) {
	var doc Document
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var in jsonDoc
	if err := dec.Decode(&in); err != nil {
		return doc, fmt.Errorf("%w: %w", ErrDocument, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return doc, fmt.Errorf("%w: data after the document", ErrDocument)
	}
	switch {
	case in.Version == 0:
		return doc, fmt.Errorf("%w: missing \"version\"", ErrDocument)
	case in.Version < 0 || in.Version > CurrentVersion:
		return doc, fmt.Errorf("%w %d (this pollfit reads up to %d)", ErrVersion, in.Version, CurrentVersion)
	}
	var err error
	if doc.Schedule, doc.Meta, err = decodeSchedule(&in.jsonSchedule, ""); err != nil {
		return doc, err
	}
	names := make([]string, 0, len(in.Segments))
	for name := range in.Segments {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := "segments." + name + "."
		if err := checkSegmentName(name); err != nil {
			return doc, fmt.Errorf("%w: segments: %w", ErrDocument, err)
		}
		js := in.Segments[name]
		if js == nil {
			return doc, fmt.Errorf("%w: %s: want a schedule object, got null", ErrDocument, strings.TrimSuffix(path, "."))
		}
		s, meta, err := decodeSchedule(js, path)
		if err != nil {
			return doc, err
		}
		doc.Segments = append(doc.Segments, Segment{Name: name, Schedule: s, Meta: meta})
	}
	return doc, nil
}

func decodeSchedule(in *jsonSchedule, path string) (optimize.Schedule, json.RawMessage, error) {
	var s optimize.Schedule
	fail := func(field string, err error) (optimize.Schedule, json.RawMessage, error) {
		return s, nil, fmt.Errorf("%w: %s%s: %w", ErrDocument, path, field, err)
	}
	s.Name = in.Name
	if in.StartMs == nil {
		return fail("start_ms", errors.New("missing"))
	}
	var err error
	if s.Start, err = parseMs(*in.StartMs); err != nil {
		return fail("start_ms", err)
	}
	if in.Phases == nil {
		return fail("phases", errors.New("missing (write [] for a single poll at start_ms)"))
	}
	for i, jp := range in.Phases {
		p, field, err := decodePhase(jp)
		if err != nil {
			return fail(fmt.Sprintf("phases[%d]%s", i, field), err)
		}
		s.Phases = append(s.Phases, p)
	}
	if in.Jitter != nil {
		if s.Jitter, err = decodeJitter(in.Jitter); err != nil {
			return fail("jitter", err)
		}
	}
	if err := s.Validate(); err != nil {
		return fail("phases", err)
	}
	if in.Spec != "" {
		sp, err := optimize.ParseSpec(in.Spec)
		if err != nil {
			return fail("spec", err)
		}
		sp.Name = s.Name
		if !sameSchedule(sp, s) {
			return fail("spec", fmt.Errorf("%q disagrees with the phases, which read %q; fix or delete one", in.Spec, s.String()))
		}
	}
	if in.HorizonMs != nil {
		h, err := parseMs(*in.HorizonMs)
		if err != nil {
			return fail("horizon_ms", err)
		}
		if want := s.Horizon(); h != want {
			return fail("horizon_ms", fmt.Errorf("%s disagrees with the phases, whose horizon is %s ms", *in.HorizonMs, msNumber(want)))
		}
	}
	if in.PollsMs != nil {
		polls := s.Polls()
		if len(polls) != len(in.PollsMs) {
			return fail("polls_ms", fmt.Errorf("lists %d polls, the phases make %d", len(in.PollsMs), len(polls)))
		}
		for i, n := range in.PollsMs {
			t, err := parseMs(n)
			if err != nil {
				return fail(fmt.Sprintf("polls_ms[%d]", i), err)
			}
			if t != polls[i] {
				return fail(fmt.Sprintf("polls_ms[%d]", i), fmt.Errorf("%s disagrees with the phases, which poll at %s ms", n, msNumber(polls[i])))
			}
		}
	}
	var meta json.RawMessage
	if len(in.Meta) > 0 {
		if !isObject(in.Meta) {
			return fail("meta", errors.New("want a JSON object"))
		}
		var b bytes.Buffer
		if err := json.Compact(&b, in.Meta); err != nil {
			return fail("meta", err)
		}
		meta = b.Bytes()
	}
	return s, meta, nil
}

// sameSchedule compares two schedules, allowing the percent jitter spread
// the rounding of "±P%" (P·100 then /100 is not always exact in float64).
func sameSchedule(a, b optimize.Schedule) bool {
	if a.Start != b.Start || a.Name != b.Name || !slices.Equal(a.Phases, b.Phases) || a.Jitter.Kind != b.Jitter.Kind {
		return false
	}
	return math.Abs(a.Jitter.Percent-b.Jitter.Percent) <= 1e-12
}

func decodePhase(jp jsonPhase) (optimize.Phase, string, error) {
	var p optimize.Phase
	found := false
	for g, name := range growthNames {
		if name == jp.Growth {
			p.Growth, found = g, true
		}
	}
	if !found {
		return p, ".growth", fmt.Errorf("%q is not one of once, fixed, linear, exponential, polynomial, fibonacci", jp.Growth)
	}
	ms := func(field string, n *json.Number, required, allowed bool) (time.Duration, string, error) {
		switch {
		case n == nil && required:
			return 0, "." + field, fmt.Errorf("missing for a %s phase", jp.Growth)
		case n == nil:
			return 0, "", nil
		case !allowed:
			return 0, "." + field, fmt.Errorf("does not apply to a %s phase", jp.Growth)
		}
		d, err := parseMs(*n)
		if err != nil {
			return 0, "." + field, err
		}
		return d, "", nil
	}
	repeats := p.Growth != optimize.Once
	grows := repeats && p.Growth != optimize.Fixed
	var field string
	var err error
	if p.Gap, field, err = ms("gap_ms", jp.GapMs, true, true); err != nil {
		return p, field, err
	}
	if p.Step, field, err = ms("step_ms", jp.StepMs, false, p.Growth == optimize.Linear); err != nil {
		return p, field, err
	}
	if p.Cap, field, err = ms("cap_ms", jp.CapMs, false, grows); err != nil {
		return p, field, err
	}
	if p.Until, field, err = ms("until_ms", jp.UntilMs, repeats, repeats); err != nil {
		return p, field, err
	}
	if jp.Factor != nil && p.Growth != optimize.Exponential {
		return p, ".factor", fmt.Errorf("does not apply to a %s phase", jp.Growth)
	}
	if jp.Exponent != nil && p.Growth != optimize.Polynomial {
		return p, ".exponent", fmt.Errorf("does not apply to a %s phase", jp.Growth)
	}
	switch p.Growth {
	case optimize.Exponential:
		if jp.Factor == nil {
			return p, ".factor", errors.New("missing for an exponential phase")
		}
		p.Factor = *jp.Factor
	case optimize.Polynomial:
		if jp.Exponent == nil {
			return p, ".exponent", errors.New("missing for a polynomial phase")
		}
		p.Exponent = *jp.Exponent
	}
	if p.Gap <= 0 {
		return p, ".gap_ms", optimize.ErrGap
	}
	if jp.CapMs != nil && p.Cap <= 0 {
		return p, ".cap_ms", errors.New("must be positive (omit it for no cap)")
	}
	return p, "", nil
}

func decodeJitter(j *jsonJitter) (optimize.Jitter, error) {
	var out optimize.Jitter
	found := false
	for k, name := range jitterNames {
		if name == j.Kind {
			out.Kind, found = k, true
		}
	}
	if !found {
		return out, fmt.Errorf("kind %q is not one of none, full, equal, decorrelated, percent", j.Kind)
	}
	if out.Kind == optimize.PercentJitter {
		if j.Spread == nil {
			return out, errors.New("spread is missing for percent jitter (0.1 for ±10%)")
		}
		out.Percent = *j.Spread
		if !(out.Percent > 0 && out.Percent < 1) {
			return out, fmt.Errorf("spread %v must be between 0 and 1 (0.1 for ±10%%)", out.Percent)
		}
	} else if j.Spread != nil {
		return out, fmt.Errorf("spread does not apply to %s jitter", j.Kind)
	}
	return out, nil
}
