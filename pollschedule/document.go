package pollschedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Version is the version of the schedule document that Read reads.
const Version = 1

// AllSegment names the overall schedule of a document; no segment may
// take the name.
const AllSegment = "all"

// Document is a schedule document: the overall schedule and optional
// per-segment schedules (a payment method, a region).
type Document struct {
	Schedule *Schedule            // the overall schedule, for AllSegment and unknown segments
	Segments map[string]*Schedule // by segment name
	Meta     []byte               // the document's "meta", a compact JSON object, or nil
}

// Lookup returns the schedule of segment, or the overall schedule for ""
// and for a segment without a schedule of its own.
func (d *Document) Lookup(segment string) *Schedule {
	if s, ok := d.Segments[segment]; ok {
		return s
	}
	return d.Schedule
}

// SegmentNames returns the names of the document's segments, sorted.
func (d *Document) SegmentNames() []string {
	names := make([]string, 0, len(d.Segments))
	for name := range d.Segments {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// BackOff returns a BackOff that runs the schedule of segment (see
// Lookup).
func (d *Document) BackOff(segment string) *BackOff {
	return &BackOff{Schedule: d.Lookup(segment)}
}

// Errors wrapped by Read.
var (
	// ErrDocument is wrapped by every error about the content of a
	// document.
	ErrDocument = errors.New("invalid schedule document")
	// ErrVersion is returned for a document of a version newer than
	// Version.
	ErrVersion = errors.New("unsupported schedule document version")
	// ErrDisagree is wrapped by the error for a "horizon_ms" or
	// "polls_ms" that disagrees with the phases.
	ErrDisagree = errors.New("disagrees with the phases")
)

// Error is an error of Read about one field of the document.
type Error struct {
	Path string // the field: "segments.wallet.phases[2].until_ms"; "" for the document
	Err  error
}

func (e *Error) Error() string {
	if e.Path == "" {
		return ErrDocument.Error() + ": " + e.Err.Error()
	}
	return ErrDocument.Error() + ": " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns ErrDocument and the cause.
func (e *Error) Unwrap() []error { return []error{ErrDocument, e.Err} }

// ReadFile reads the document in the named file (see Read); errors name
// the file.
func ReadFile(name string) (*Document, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// Read reads a schedule document (docs/schedule.schema.json) strictly, so
// that a hand edit that breaks it fails here rather than in production.
// It accepts a document exactly when the document validates against the
// schema and its schedules are valid (Schedule.Validate) and agree with
// their "horizon_ms" and "polls_ms" when present; "spec" is kept but not
// checked. Times are decimal milliseconds read exactly into nanoseconds.
// Errors are *Error values naming the field, wrapping ErrDocument, and
// ErrVersion or ErrDisagree where they apply.
func Read(r io.Reader) (*Document, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, &Error{Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Error{Err: errors.New("data after the document")}
	}
	fields, err := object(raw, "")
	if err != nil {
		return nil, err
	}
	doc := &Document{}
	v, ok := fields["version"]
	if !ok {
		return nil, &Error{Path: "version", Err: errors.New("missing")}
	}
	if err := version(v); err != nil {
		return nil, err
	}
	if v, ok := fields["$schema"]; ok {
		if _, err := str(v, "$schema"); err != nil {
			return nil, err
		}
	}
	if doc.Schedule, err = schedule(fields, "", "version", "$schema", "segments"); err != nil {
		return nil, err
	}
	doc.Meta = doc.Schedule.Meta
	if v, ok := fields["segments"]; ok {
		segs, err := object(v, "segments")
		if err != nil {
			return nil, err
		}
		doc.Segments = make(map[string]*Schedule, len(segs))
		for _, name := range sortedKeys(segs) {
			path := "segments." + name
			switch name {
			case "":
				return nil, &Error{Path: "segments", Err: errors.New("segment name is empty")}
			case AllSegment:
				return nil, &Error{Path: "segments", Err: fmt.Errorf("segment name %q is reserved for the overall schedule", AllSegment)}
			}
			f, err := object(segs[name], path)
			if err != nil {
				return nil, err
			}
			if doc.Segments[name], err = schedule(f, path+"."); err != nil {
				return nil, err
			}
		}
	}
	return doc, nil
}

func version(raw json.RawMessage) error {
	n, err := number(raw, "version")
	if err != nil {
		return err
	}
	switch c := n.cmp(big.NewRat(Version, 1)); {
	case c > 0 && n.isInt():
		return fmt.Errorf("%w %s (this reader reads up to %d)", ErrVersion, raw, Version)
	case c != 0:
		return &Error{Path: "version", Err: fmt.Errorf("%s is not %d", raw, Version)}
	}
	return nil
}

// Bounds of the numbers of a document, written as decimals and compared
// exactly: ages and gaps in ms, and float64 parameters whose decimal must
// read as a finite number in range (the least normal float64 for the
// positive ones, the largest below 1 for a spread).
var (
	maxAgeMs    = big.NewRat(int64(MaxAge/time.Millisecond), 1)
	maxGapMs    = big.NewRat(int64(MaxGap/time.Millisecond), 1)
	one         = big.NewRat(1, 1)
	minPositive = mustRat("2.2250738585072014e-308")
	maxFloat    = mustRat("1.7976931348623157e308")
	maxSpread   = mustRat("0.9999999999999999")
)

func mustRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("pollschedule: bad constant " + s)
	}
	return r
}

// schedule reads the fields of a schedule object; path prefixes the
// fields' names in errors ("segments.wallet."), and extra lists the other
// fields the object may hold.
func schedule(fields map[string]json.RawMessage, path string, extra ...string) (*Schedule, error) {
	known := []string{"name", "spec", "start_ms", "horizon_ms", "phases", "jitter", "polls_ms", "meta"}
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(known, k) && !slices.Contains(extra, k) {
			return nil, &Error{Path: path + k, Err: errors.New("unknown field")}
		}
	}
	s := &Schedule{}
	var err error
	if v, ok := fields["name"]; ok {
		if s.Name, err = str(v, path+"name"); err != nil {
			return nil, err
		}
	}
	if v, ok := fields["spec"]; ok {
		if s.Spec, err = str(v, path+"spec"); err != nil {
			return nil, err
		}
	}
	v, ok := fields["start_ms"]
	if !ok {
		return nil, &Error{Path: path + "start_ms", Err: errors.New("missing")}
	}
	if s.Start, err = ms(v, path+"start_ms", maxAgeMs); err != nil {
		return nil, err
	}
	v, ok = fields["phases"]
	if !ok {
		return nil, &Error{Path: path + "phases", Err: errors.New("missing (write [] for a single poll at start_ms)")}
	}
	items, err := array(v, path+"phases")
	if err != nil {
		return nil, err
	}
	for i, item := range items {
		p, err := phase(item, fmt.Sprintf("%sphases[%d]", path, i))
		if err != nil {
			return nil, err
		}
		s.Phases = append(s.Phases, p)
	}
	if v, ok := fields["jitter"]; ok {
		if s.Jitter, err = jitter(v, path+"jitter"); err != nil {
			return nil, err
		}
	}
	if v, ok := fields["meta"]; ok {
		if _, err := object(v, path+"meta"); err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return nil, &Error{Path: path + "meta", Err: err}
		}
		s.Meta = b.Bytes()
	}
	var horizon *time.Duration
	if v, ok := fields["horizon_ms"]; ok {
		h, err := ms(v, path+"horizon_ms", maxAgeMs)
		if err != nil {
			return nil, err
		}
		horizon = &h
	}
	var polls []time.Duration
	listed := false
	if v, ok := fields["polls_ms"]; ok {
		items, err := array(v, path+"polls_ms")
		if err != nil {
			return nil, err
		}
		listed = true
		for i, item := range items {
			t, err := ms(item, fmt.Sprintf("%spolls_ms[%d]", path, i), maxAgeMs)
			if err != nil {
				return nil, err
			}
			polls = append(polls, t)
		}
	}
	if s.Clocked() {
		// Rules the schema expresses too, reported at their field.
		if s.Jitter.Kind != NoJitter {
			return nil, &Error{Path: path + "jitter", Err: fmt.Errorf("%w; delete the jitter", ErrClockJitter)}
		}
		if listed {
			return nil, &Error{Path: path + "polls_ms", Err: errors.New("does not apply to a schedule with a wall-clock phase, whose polls depend on when the item was created")}
		}
	}
	// The checks a schema cannot express.
	if err := s.Validate(); err != nil {
		return nil, &Error{Path: path + "phases", Err: err}
	}
	if horizon != nil {
		if want := s.Horizon(); *horizon != want {
			return nil, &Error{Path: path + "horizon_ms", Err: fmt.Errorf("%w: %s, whose horizon is %s", ErrDisagree, msText(*horizon), msText(want))}
		}
	}
	if listed {
		want := s.Polls()
		if len(polls) != len(want) {
			return nil, &Error{Path: path + "polls_ms", Err: fmt.Errorf("%w: it lists %d polls, the phases make %d", ErrDisagree, len(polls), len(want))}
		}
		for i := range want {
			if polls[i] != want[i] {
				return nil, &Error{Path: fmt.Sprintf("%spolls_ms[%d]", path, i), Err: fmt.Errorf("%w: %s, which poll at %s", ErrDisagree, msText(polls[i]), msText(want[i]))}
			}
		}
	}
	return s, nil
}

// phase reads one phase object. The fields a growth requires and allows
// are those of the schema's phase definition.
func phase(raw json.RawMessage, path string) (Phase, error) {
	var p Phase
	fields, err := object(raw, path)
	if err != nil {
		return p, err
	}
	for _, k := range sortedKeys(fields) {
		if !slices.Contains([]string{"growth", "gap_ms", "step_ms", "factor", "exponent", "cap_ms", "until_ms", "period_ms", "offsets_ms"}, k) {
			return p, &Error{Path: path + "." + k, Err: errors.New("unknown field")}
		}
	}
	v, ok := fields["growth"]
	if !ok {
		return p, &Error{Path: path + ".growth", Err: errors.New("missing")}
	}
	name, err := str(v, path+".growth")
	if err != nil {
		return p, err
	}
	i := slices.Index(growthNames[:], name)
	if i < 0 {
		return p, &Error{Path: path + ".growth", Err: fmt.Errorf("%q is not one of %s", name, strings.Join(growthNames[:], ", "))}
	}
	p.Growth = Growth(i)
	clock := p.Growth == WallClock
	repeats, grows := p.Growth != Once, p.Growth != Once && p.Growth != Fixed && !clock
	// Whether each optional field is required (r) or allowed (a).
	rules := []struct {
		field string
		r, a  bool
	}{
		{"gap_ms", !clock, !clock},
		{"period_ms", clock, clock},
		{"offsets_ms", clock, clock},
		{"step_ms", false, p.Growth == Linear},
		{"factor", p.Growth == Exponential, p.Growth == Exponential},
		{"exponent", p.Growth == Polynomial, p.Growth == Polynomial},
		{"cap_ms", false, grows},
		{"until_ms", repeats, repeats},
	}
	for _, rule := range rules {
		_, ok := fields[rule.field]
		switch {
		case !ok && rule.r:
			return p, &Error{Path: path + "." + rule.field, Err: fmt.Errorf("missing for %s %s phase", article(name), name)}
		case ok && !rule.a:
			return p, &Error{Path: path + "." + rule.field, Err: fmt.Errorf("does not apply to %s %s phase", article(name), name)}
		}
	}
	for _, f := range []struct {
		field string
		d     *time.Duration
		max   *big.Rat
	}{{"gap_ms", &p.Gap, maxGapMs}, {"period_ms", &p.Gap, maxGapMs}, {"step_ms", &p.Step, maxGapMs}, {"cap_ms", &p.Cap, maxGapMs}, {"until_ms", &p.Until, maxAgeMs}} {
		if v, ok := fields[f.field]; ok {
			if *f.d, err = ms(v, path+"."+f.field, f.max); err != nil {
				return p, err
			}
		}
	}
	if p.Gap == 0 {
		field := ".gap_ms"
		if clock {
			field = ".period_ms"
		}
		return p, &Error{Path: path + field, Err: errors.New("must be positive")}
	}
	if _, ok := fields["cap_ms"]; ok && p.Cap == 0 {
		return p, &Error{Path: path + ".cap_ms", Err: errors.New("must be positive (omit it for no cap)")}
	}
	if v, ok := fields["factor"]; ok {
		if p.Factor, err = float(v, path+".factor", one, true, maxFloat); err != nil {
			return p, err
		}
	}
	if v, ok := fields["exponent"]; ok {
		if p.Exponent, err = float(v, path+".exponent", minPositive, true, maxFloat); err != nil {
			return p, err
		}
	}
	if v, ok := fields["offsets_ms"]; ok {
		if p.Offsets, err = offsets(v, path+".offsets_ms", p.Gap); err != nil {
			return p, err
		}
	}
	return p, nil
}

// offsets reads the offsets of a wall-clock phase of the given period:
// 1 to MaxClockOffsets times (the schema's bounds), increasing and within
// the period (ErrOffsets: rules the schema cannot express).
func offsets(raw json.RawMessage, path string, period time.Duration) ([]time.Duration, error) {
	items, err := array(raw, path)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 || len(items) > MaxClockOffsets {
		return nil, &Error{Path: path, Err: fmt.Errorf("want 1 to %d offsets, got %d", MaxClockOffsets, len(items))}
	}
	out := make([]time.Duration, len(items))
	for i, item := range items {
		if out[i], err = ms(item, fmt.Sprintf("%s[%d]", path, i), maxGapMs); err != nil {
			return nil, err
		}
	}
	for i, o := range out {
		switch {
		case o >= period:
			return nil, &Error{Path: fmt.Sprintf("%s[%d]", path, i), Err: fmt.Errorf("%w: %s is not before the period, %s", ErrOffsets, msText(o), msText(period))}
		case i > 0 && o <= out[i-1]:
			return nil, &Error{Path: fmt.Sprintf("%s[%d]", path, i), Err: fmt.Errorf("%w: %s after %s", ErrOffsets, msText(o), msText(out[i-1]))}
		}
	}
	return out, nil
}

func article(growth string) string {
	if strings.IndexByte("aeiou", growth[0]) >= 0 {
		return "an"
	}
	return "a"
}

func jitter(raw json.RawMessage, path string) (Jitter, error) {
	var j Jitter
	fields, err := object(raw, path)
	if err != nil {
		return j, err
	}
	for _, k := range sortedKeys(fields) {
		if k != "kind" && k != "spread" {
			return j, &Error{Path: path + "." + k, Err: errors.New("unknown field")}
		}
	}
	v, ok := fields["kind"]
	if !ok {
		return j, &Error{Path: path + ".kind", Err: errors.New("missing")}
	}
	name, err := str(v, path+".kind")
	if err != nil {
		return j, err
	}
	i := slices.Index(jitterNames[:], name)
	if i < 0 {
		return j, &Error{Path: path + ".kind", Err: fmt.Errorf("%q is not one of %s", name, strings.Join(jitterNames[:], ", "))}
	}
	j.Kind = JitterKind(i)
	v, ok = fields["spread"]
	switch {
	case j.Kind == PercentJitter && !ok:
		return j, &Error{Path: path + ".spread", Err: errors.New("missing for percent jitter (0.1 for ±10%)")}
	case j.Kind != PercentJitter && ok:
		return j, &Error{Path: path + ".spread", Err: fmt.Errorf("does not apply to %s jitter", name)}
	case ok:
		if j.Spread, err = float(v, path+".spread", minPositive, true, maxSpread); err != nil {
			return j, err
		}
	}
	return j, nil
}

// object returns the members of a JSON object, rejecting any other value.
// Keys are matched exactly (encoding/json would match "Start_MS" to
// start_ms); of repeated keys the last counts, as in the schema's
// validators.
func object(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	if kind(raw) != '{' {
		return nil, &Error{Path: path, Err: fmt.Errorf("want an object, got %s", describe(raw))}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return m, nil
}

func array(raw json.RawMessage, path string) ([]json.RawMessage, error) {
	if kind(raw) != '[' {
		return nil, &Error{Path: path, Err: fmt.Errorf("want an array, got %s", describe(raw))}
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return a, nil
}

func str(raw json.RawMessage, path string) (string, error) {
	if kind(raw) != '"' {
		return "", &Error{Path: path, Err: fmt.Errorf("want a string, got %s", describe(raw))}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &Error{Path: path, Err: err}
	}
	return s, nil
}

// kind returns the first byte of a JSON value: '{', '[', '"', 't', 'f',
// 'n' or a digit or '-' for a number.
func kind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

func describe(raw json.RawMessage) string {
	switch kind(raw) {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string " + string(truncate(raw))
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "the number " + string(truncate(raw))
}

func truncate(raw json.RawMessage) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 40 {
		return append(raw[:37:37], "..."...)
	}
	return raw
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// decimal is a JSON number read exactly: (−1)^neg · mant · 10^exp, with
// mant a string of digits without leading or trailing zeros ("" for 0).
type decimal struct {
	neg  bool
	mant string
	exp  int
	text string
}

// expLimit bounds the exponents that decimal computes with; a number with
// a larger one is either 0, astronomically large or astronomically small,
// which every bound here tells apart without computing it.
const expLimit = 1000

func number(raw json.RawMessage, path string) (decimal, error) {
	k := kind(raw)
	if k != '-' && (k < '0' || k > '9') {
		return decimal{}, &Error{Path: path, Err: fmt.Errorf("want a number, got %s", describe(raw))}
	}
	s := string(bytes.TrimSpace(raw))
	d := decimal{text: s}
	d.neg = strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e := strings.TrimPrefix(s[i+1:], "+")
		n, err := strconv.Atoi(e)
		if err != nil || n > expLimit*1000 || n < -expLimit*1000 { // saturate
			n = 2 * expLimit * 1000
			if strings.HasPrefix(e, "-") {
				n = -n
			}
		}
		exp = n
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	d.mant, d.exp = trimmed, exp
	if d.mant == "" {
		d.neg, d.exp = false, 0
	}
	return d, nil
}

func (d decimal) isInt() bool { return d.exp >= 0 }

// cmp compares d with r exactly. A d of magnitude above 10^expLimit or
// below 10^−expLimit is compared without computing it: every r here is 0
// or of magnitude between 10^−308 and 10^309.
func (d decimal) cmp(r *big.Rat) int {
	if d.mant == "" {
		return -r.Sign()
	}
	sign := 1
	if d.neg {
		sign = -1
	}
	switch mag := len(d.mant) + d.exp; {
	case mag > expLimit:
		return sign
	case mag < -expLimit && r.Sign() != 0:
		return -r.Sign()
	case mag < -expLimit:
		return sign
	}
	x, _ := new(big.Rat).SetString(d.signed())
	return x.Cmp(r)
}

func (d decimal) signed() string {
	s := d.mant + "e" + strconv.Itoa(d.exp)
	if d.neg {
		return "-" + s
	}
	return s
}

// ms reads a JSON number of milliseconds into a whole number of
// nanoseconds, exactly: no float64 stands between the text and the
// Duration. It must be ≥ 0, at most max ms and a whole number of ns.
func ms(raw json.RawMessage, path string, max *big.Rat) (time.Duration, error) {
	d, err := number(raw, path)
	if err != nil {
		return 0, err
	}
	switch {
	case d.neg:
		return 0, &Error{Path: path, Err: fmt.Errorf("%s ms is negative", d.text)}
	case d.cmp(max) > 0:
		return 0, &Error{Path: path, Err: fmt.Errorf("%s ms is more than %s ms", d.text, max.RatString())}
	case d.mant == "":
		return 0, nil
	case d.exp+6 < 0:
		return 0, &Error{Path: path, Err: fmt.Errorf("%s ms is not a whole number of nanoseconds", d.text)}
	}
	v, err := strconv.ParseInt(d.mant+strings.Repeat("0", d.exp+6), 10, 64)
	if err != nil { // unreachable below max
		return 0, &Error{Path: path, Err: fmt.Errorf("%s ms is out of range", d.text)}
	}
	return time.Duration(v), nil
}

// float reads a JSON number that must lie in [lo, hi] ((lo, hi] unless
// loIncl), compared exactly, and returns the nearest float64, which the
// bounds keep finite and, for a positive lo, positive.
func float(raw json.RawMessage, path string, lo *big.Rat, loIncl bool, hi *big.Rat) (float64, error) {
	d, err := number(raw, path)
	if err != nil {
		return 0, err
	}
	c := d.cmp(lo)
	if c < 0 || c == 0 && !loIncl || d.cmp(hi) > 0 {
		return 0, &Error{Path: path, Err: fmt.Errorf("%s is not between %s and %s", d.text, ratText(lo), ratText(hi))}
	}
	f, err := strconv.ParseFloat(d.signed(), 64)
	if err != nil {
		return 0, &Error{Path: path, Err: err}
	}
	return f, nil
}

func ratText(r *big.Rat) string {
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// msText writes d in milliseconds as an exact decimal: "1500", "1.5".
func msText(d time.Duration) string {
	s := strconv.FormatInt(int64(d/time.Millisecond), 10)
	if frac := int64(d % time.Millisecond); frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
	}
	return s + " ms"
}
