package optimize

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The schedule spec is the syntax users type and pollfit prints:
// comma-separated items, each one of
//
//	at D                        first poll at age D (only as the first item; default 0)
//	D                           one gap of D
//	every D until U             while the last poll happened before U, the next one is D later
//	fixed D until U             the same as every
//	linear D+S until U          gaps D, D+S, D+2S, …
//	exp D xF until U            gaps D, D·F, D·F², …
//	poly D ^E until U           gaps D·1^E, D·2^E, D·3^E, … (attempt k = 1, 2, …)
//	fib D until U               gaps D·(1, 1, 2, 3, 5, …)
//	after each P (+O …) until U the next instant O past a multiple of P on
//	                            the wall clock (UTC): "after each 5m (+2s)
//	                            until 1h" polls 2 s after :00, :05, …;
//	                            several offsets poll several times a period;
//	                            no offset means +0s (see WallClock)
//	jitter full|equal|decorrelated|±P%   randomise every gap (see Jitter)
//	jitter … to horizon         and poll at the horizon when a jittered gap
//	                            would pass it (Jitter.ToHorizon)
//
// The growing kinds take an optional "cap C" anywhere after their base gap.
// Durations are Go duration strings ("500ms", "1.5s", "2m", "1h30m").
//
// Every repeating item follows the brief's rule, the one Phase documents:
// its last poll may pass U, and the next item continues from it. The
// schedule's horizon is the U of its last item when that item repeats;
// no poll is made after it. "at 0s" alone is the schedule of one poll, at
// once.

// ErrSpec is wrapped by every error of ParseSpec.
var ErrSpec = errors.New("invalid schedule spec")

// SpecError reports a bad item of a schedule spec.
type SpecError struct {
	Item int    // 1-based position of the item in the spec
	Text string // the item as written
	Err  error
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("schedule spec item %d %q: %v", e.Item, e.Text, e.Err)
}

func (e *SpecError) Unwrap() []error { return []error{ErrSpec, e.Err} }

// ParseSpec parses a schedule spec into a Schedule, and validates it.
func ParseSpec(spec string) (Schedule, error) {
	var s Schedule
	if strings.TrimSpace(spec) == "" {
		return s, fmt.Errorf("%w: empty spec; write gaps such as \"1s, every 2s until 2m\"", ErrSpec)
	}
	items := strings.Split(spec, ",")
	hasStart := false
	for i, item := range items {
		fields := strings.Fields(item)
		if len(fields) == 0 {
			return s, &SpecError{i + 1, item, errors.New("empty item (two commas in a row?)")}
		}
		if err := s.parseItem(i, fields); err != nil {
			return s, &SpecError{i + 1, strings.TrimSpace(item), err}
		}
		hasStart = hasStart || fields[0] == "at"
	}
	if len(s.Phases) == 0 && !hasStart {
		return s, fmt.Errorf("%w: %w", ErrSpec, ErrEmpty)
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	return s, nil
}

// MustParseSpec is ParseSpec for specs known to be valid; it panics on error.
func MustParseSpec(spec string) Schedule {
	s, err := ParseSpec(spec)
	if err != nil {
		panic("optimize: " + err.Error())
	}
	return s
}

func (s *Schedule) parseItem(i int, f []string) error {
	// A trailing "jitter X" may follow any item.
	for k := range f {
		if f[k] == "jitter" {
			toHorizon := k+4 == len(f) && f[k+2] == "to" && f[k+3] == "horizon"
			if k+2 != len(f) && !toHorizon {
				return errors.New(`"jitter" takes one value, full, equal, decorrelated or ±P%, and may end "to horizon"`)
			}
			j, err := ParseJitter(f[k+1])
			if err != nil {
				return err
			}
			if toHorizon && j.Kind == NoJitter {
				return errors.New(`"to horizon" needs a jitter: write full, equal, decorrelated or ±P%`)
			}
			j.ToHorizon = toHorizon
			s.Jitter = j
			f = f[:k]
			break
		}
	}
	if len(f) == 0 {
		return nil
	}
	switch f[0] {
	case "at":
		if i != 0 {
			return errors.New(`"at D" may only be the first item`)
		}
		if len(f) != 2 {
			return errors.New(`want "at D"`)
		}
		d, err := parseDuration(f[1])
		if err != nil {
			return err
		}
		if d < 0 {
			return fmt.Errorf("start %v is negative", d)
		}
		s.Start = d
		return nil
	case "after":
		p, err := parseClock(f)
		if err != nil {
			return err
		}
		s.Phases = append(s.Phases, p)
		return nil
	case "every", "fixed", "linear", "exp", "poly", "fib":
		p, err := parsePhase(f)
		if err != nil {
			return err
		}
		s.Phases = append(s.Phases, p)
		return nil
	}
	if len(f) != 1 {
		return fmt.Errorf("unknown item; want a gap such as 2s, every/fixed/linear/exp/poly/fib … until U, or after each P (+O) until U")
	}
	d, err := parseDuration(f[0])
	if err != nil {
		return err
	}
	if d <= 0 {
		return fmt.Errorf("%w (got %s)", ErrGap, f[0])
	}
	s.Phases = append(s.Phases, Phase{Growth: Once, Gap: d})
	return nil
}

func parsePhase(f []string) (Phase, error) {
	var p Phase
	if len(f) < 2 {
		return p, fmt.Errorf("%q needs a gap", f[0])
	}
	base := f[1]
	var err error
	switch f[0] {
	case "every", "fixed":
		p.Growth = Fixed
	case "linear":
		p.Growth = Linear
		b, step, ok := strings.Cut(base, "+")
		if !ok {
			return p, errors.New(`want "linear D+S until U", e.g. "linear 1s+1s until 15m"`)
		}
		base = b
		if p.Step, err = parseDuration(step); err != nil {
			return p, err
		}
	case "exp":
		p.Growth = Exponential
	case "poly":
		p.Growth = Polynomial
	case "fib":
		p.Growth = Fibonacci
	}
	if p.Gap, err = parseDuration(base); err != nil {
		return p, err
	}
	if p.Gap <= 0 {
		return p, fmt.Errorf("%w (got %s)", ErrGap, base)
	}
	haveUntil := false
	rest := f[2:]
	for len(rest) > 0 {
		tok := rest[0]
		switch {
		case tok == "until" || tok == "cap":
			if len(rest) < 2 {
				return p, fmt.Errorf("%q needs a duration", tok)
			}
			d, err := parseDuration(rest[1])
			if err != nil {
				return p, err
			}
			if tok == "until" {
				p.Until, haveUntil = d, true
			} else {
				if p.Growth == Fixed {
					return p, errors.New(`"cap" has no effect on a fixed gap`)
				}
				if d <= 0 {
					return p, fmt.Errorf("cap must be positive (got %s)", rest[1])
				}
				p.Cap = d
			}
			rest = rest[2:]
		case p.Growth == Exponential && strings.HasPrefix(tok, "x"):
			if p.Factor, err = parseNumber(tok[1:], "factor"); err != nil {
				return p, err
			}
			rest = rest[1:]
		case p.Growth == Polynomial && strings.HasPrefix(tok, "^"):
			if p.Exponent, err = parseNumber(tok[1:], "exponent"); err != nil {
				return p, err
			}
			rest = rest[1:]
		default:
			return p, fmt.Errorf("unexpected %q", tok)
		}
	}
	if !haveUntil {
		return p, fmt.Errorf(`%q needs "until U"`, f[0])
	}
	if p.Growth == Exponential && p.Factor == 0 {
		return p, errors.New(`exp needs a factor, e.g. "exp 1s x2 cap 30s until 15m"`)
	}
	if p.Growth == Polynomial && p.Exponent == 0 {
		return p, errors.New(`poly needs an exponent, e.g. "poly 500ms ^2 cap 30s until 15m"`)
	}
	return p, nil
}

// parseClock parses "after each P [(+O1 +O2 …)] until U".
func parseClock(f []string) (Phase, error) {
	p := Phase{Growth: WallClock}
	const want = `want "after each P (+O) until U", e.g. "after each 5m (+2s) until 1h"`
	if len(f) < 3 || f[1] != "each" {
		return p, errors.New(want)
	}
	var err error
	if p.Gap, err = parseDuration(f[2]); err != nil {
		return p, err
	}
	if p.Gap <= 0 {
		return p, fmt.Errorf("the period must be positive (got %s)", f[2])
	}
	rest := f[3:]
	if len(rest) > 0 && strings.HasPrefix(rest[0], "(") {
		end := slices.IndexFunc(rest, func(t string) bool { return strings.HasSuffix(t, ")") })
		if end < 0 {
			return p, errors.New(`the offsets need a closing ")", e.g. "(+1s +3s)"`)
		}
		group := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(strings.Join(rest[:end+1], " "), "("), ")"))
		if len(group) == 0 {
			return p, errors.New(`"()" holds no offset: write "(+2s)", or leave it out for +0s`)
		}
		for _, t := range group {
			o, ok := strings.CutPrefix(t, "+")
			if !ok {
				return p, fmt.Errorf("offset %q: write it as +D, the time after the boundary, e.g. +2s", t)
			}
			d, err := parseDuration(o)
			if err != nil {
				return p, err
			}
			p.Offsets = append(p.Offsets, d)
		}
		rest = rest[end+1:]
	} else {
		p.Offsets = []time.Duration{0}
	}
	if len(rest) != 2 || rest[0] != "until" {
		return p, errors.New(want)
	}
	if p.Until, err = parseDuration(rest[1]); err != nil {
		return p, err
	}
	return p, p.validateClock()
}

func parseNumber(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a number", what, s)
	}
	return v, nil
}

// ParseJitter reads a jitter as written in a spec: full, equal,
// decorrelated, ±P% (or +-P%) with 0 < P < 100, or none.
func ParseJitter(s string) (Jitter, error) {
	switch s {
	case "full":
		return Jitter{Kind: FullJitter}, nil
	case "equal":
		return Jitter{Kind: EqualJitter}, nil
	case "decorrelated":
		return Jitter{Kind: DecorrelatedJitter}, nil
	case "none":
		return Jitter{}, nil
	}
	p := strings.TrimPrefix(strings.TrimPrefix(s, "±"), "+-")
	if v, ok := strings.CutSuffix(p, "%"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil && f > 0 && f < 100 {
			return Jitter{Kind: PercentJitter, Percent: f / 100}, nil
		}
	}
	return Jitter{}, fmt.Errorf("jitter %q: want full, equal, decorrelated or ±P%% with 0 < P < 100", s)
}

func parseDuration(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration; write it as in Go, e.g. 500ms, 1.5s, 2m", s)
	}
	return d, nil
}

// FormatDuration writes d the way specs are written: "500ms", "1.5s", "2m",
// "1m30s", "1h". The result parses back to d exactly.
func FormatDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// String returns the schedule as a spec that reads as it runs and that
// ParseSpec reads back to a schedule with the same polls and jitter, and
// the same horizon unless the last phase makes no poll: the spec of
// s.Normalize(). AsWritten gives the phases as they are.
func (s Schedule) String() string {
	return s.Normalize().format()
}

// AsWritten returns the schedule as a spec of its phases as they are, as
// a user wrote them, without Normalize: it parses back to an equal
// Schedule (the Name aside), but a phase may read differently from how it
// runs ("every 1m until 45s" polls once, at 1m). Messages about a user's
// schedule quote it.
func (s Schedule) AsWritten() string { return s.format() }

// format writes the phases as they are.
func (s Schedule) format() string {
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
	}
	if s.Start != 0 {
		b.WriteString("at " + FormatDuration(s.Start))
	}
	for _, p := range s.Phases {
		sep()
		gap := FormatDuration(p.Gap)
		switch p.Growth {
		case Once:
			b.WriteString(gap)
			continue
		case Fixed:
			b.WriteString("every " + gap)
		case Linear:
			b.WriteString("linear " + gap + "+" + FormatDuration(p.Step))
		case Exponential:
			b.WriteString("exp " + gap + " x" + strconv.FormatFloat(p.Factor, 'g', -1, 64))
		case Polynomial:
			b.WriteString("poly " + gap + " ^" + strconv.FormatFloat(p.Exponent, 'g', -1, 64))
		case Fibonacci:
			b.WriteString("fib " + gap)
		case WallClock:
			b.WriteString("after each " + gap)
			if len(p.Offsets) != 1 || p.Offsets[0] != 0 {
				b.WriteString(" (")
				for j, o := range p.Offsets {
					if j > 0 {
						b.WriteString(" ")
					}
					b.WriteString("+" + FormatDuration(o))
				}
				b.WriteString(")")
			}
		}
		if p.Cap > 0 {
			b.WriteString(" cap " + FormatDuration(p.Cap))
		}
		b.WriteString(" until " + FormatDuration(p.Until))
	}
	switch s.Jitter.Kind {
	case FullJitter:
		sep()
		b.WriteString("jitter full")
	case EqualJitter:
		sep()
		b.WriteString("jitter equal")
	case DecorrelatedJitter:
		sep()
		b.WriteString("jitter decorrelated")
	case PercentJitter:
		sep()
		b.WriteString("jitter ±" + strconv.FormatFloat(s.Jitter.Percent*100, 'g', -1, 64) + "%")
	}
	if s.Jitter.ToHorizon && s.Jitter.Kind != NoJitter {
		b.WriteString(" to horizon")
	}
	if b.Len() == 0 {
		return "at 0s"
	}
	return b.String()
}

// Normalize returns a schedule that polls at the same times as s and reads
// as it runs: every repeating phase's first gap fits between the poll it
// starts from and its Until, so that "every G until U" always polls before
// or at U. By the rule of a repeating phase (see Phase), one that starts at
// or after its Until makes no poll, and one whose first gap passes its
// Until makes exactly one poll, after Until ("every 1m until 45s" from age
// 0 polls once, at 1m). Normalize drops the first kind and writes the
// second as the single gap it is. When the last phase is of either kind
// it makes no poll within the horizon and only sets it: the schedule is
// then written as explicit gaps (FromPolls), whose horizon is the last
// poll. A jittered schedule is returned as it is: its phases decide how
// many jittered gaps each one makes. So is an invalid one, and one with a
// wall-clock phase, whose polls depend on the creation time.
func (s Schedule) Normalize() Schedule {
	if s.Jitter.Kind != NoJitter || s.Clocked() || s.validateShape() != nil {
		return s
	}
	out := s
	out.Phases = nil
	last := s.Start
	n := len(s.Phases)
	for i, p := range s.Phases {
		g1 := p.GapAt(1)
		if p.Growth == Once {
			out.Phases = append(out.Phases, p)
			last = addAge(last, g1)
			continue
		}
		if last < p.Until && g1 <= p.Until-last {
			out.Phases = append(out.Phases, p)
			last = p.end(last)
			continue
		}
		if i == n-1 {
			if s.Validate() != nil {
				return s
			}
			f := FromPolls(s.Polls())
			f.Name = s.Name
			return f
		}
		if last < p.Until {
			out.Phases = append(out.Phases, Phase{Growth: Once, Gap: g1})
			last = addAge(last, g1)
		}
	}
	return out
}

// end returns the last poll of repeating phase p started from a poll at
// last, before the horizon's cut.
func (p Phase) end(last time.Duration) time.Duration {
	if p.Growth == Fixed {
		if last >= p.Until {
			return last
		}
		g := p.GapAt(1)
		n := (p.Until - last + g - 1) / g
		return addAge(last, n*g)
	}
	for k := 1; last < p.Until; k++ {
		last = addAge(last, p.GapAt(k))
	}
	return last
}

// addAge returns a + b for ages a, b ≥ 0, saturating instead of
// overflowing.
func addAge(a, b time.Duration) time.Duration {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// FromPolls returns the schedule that polls exactly at the given increasing
// times: "at D" for a first poll after 0, single gaps, and runs of three or
// more equal gaps written as "every G until U" (U the run's last poll, so the
// run ends exactly there).
func FromPolls(polls []time.Duration) Schedule {
	if len(polls) == 0 {
		panic("optimize: FromPolls of no polls")
	}
	s := Schedule{Start: polls[0]}
	for i := 1; i < len(polls); {
		g := polls[i] - polls[i-1]
		if g <= 0 {
			panic("optimize: FromPolls: poll times not increasing")
		}
		j := i
		for j+1 < len(polls) && polls[j+1]-polls[j] == g {
			j++
		}
		if j-i+1 >= 3 {
			s.Phases = append(s.Phases, Phase{Growth: Fixed, Gap: g, Until: polls[j]})
		} else {
			for k := i; k <= j; k++ {
				s.Phases = append(s.Phases, Phase{Growth: Once, Gap: g})
			}
		}
		i = j + 1
	}
	return s
}
