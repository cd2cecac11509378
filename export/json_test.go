package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pollfit/pollfit/optimize"
	"github.com/pollfit/pollfit/pollschedule"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compact(t *testing.T, m json.RawMessage) json.RawMessage {
	t.Helper()
	if len(m) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// roundTripDocs are documents that JSON then ReadJSON must return intact.
func roundTripDocs(t *testing.T) map[string]Document {
	docs := goldenDocs()
	docs["cases"] = caseDoc(t, append(append([]runCase{}, runCases...), jitterCases...))
	docs["clock cases"] = caseDoc(t, clockCases)
	for _, s := range optimize.References {
		docs[s.Name] = Document{Schedule: s}
	}
	docs["one poll at 5s"] = Document{Schedule: optimize.MustParseSpec("at 5s")}
	docs["one poll at once"] = Document{Schedule: optimize.MustParseSpec("at 0s")}
	return docs
}

func TestJSONRoundTrip(t *testing.T) {
	for name, doc := range roundTripDocs(t) {
		for _, polls := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/polls=%v", name, polls), func(t *testing.T) {
				var b bytes.Buffer
				err := JSON(&b, doc, JSONOptions{Polls: polls})
				if polls && docClocked(doc) {
					// No one list holds the polls of a
					// wall-clock schedule.
					if !errors.Is(err, ErrClockPolls) {
						t.Errorf("JSON with polls of a wall-clock schedule = %v, want ErrClockPolls", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got, err := ReadJSON(&b)
				if err != nil {
					t.Fatalf("ReadJSON(JSON(doc)): %v", err)
				}
				// JSON writes each schedule as its spec reads it
				// (Normalize): the same polls, phases that read as they run.
				want := doc
				want.Schedule = doc.Schedule.Normalize()
				want.Meta = compact(t, doc.Meta)
				want.Segments = nil
				for _, s := range doc.Segments {
					s.Meta = compact(t, s.Meta)
					s.Schedule = s.Schedule.Normalize()
					want.Segments = append(want.Segments, s)
				}
				slices.SortFunc(want.Segments, func(a, b Segment) int { return strings.Compare(a.Name, b.Name) })
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("ReadJSON(JSON(doc)) differs (-want +got):\n%s", d)
				}
			})
		}
	}
}

func compileSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "docs", "schedule.schema.json"))
	if err != nil {
		t.Fatalf("compiling docs/schedule.schema.json: %v", err)
	}
	return sch
}

func validate(sch *jsonschema.Schema, doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// TestJSONMatchesSchema validates JSON's output against the JSON Schema of
// docs/schedule.schema.json.
func TestJSONMatchesSchema(t *testing.T) {
	sch := compileSchema(t)
	for name, doc := range roundTripDocs(t) {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := JSON(&b, doc, JSONOptions{Polls: !docClocked(doc)}); err != nil {
				t.Fatal(err)
			}
			if err := validate(sch, b.Bytes()); err != nil {
				t.Errorf("JSON output does not match the schema: %v\n%s", err, b.Bytes())
			}
		})
	}
}

// badDocs are hand-edited documents that ReadJSON must refuse, with the
// path its error must name; schema says whether the JSON Schema alone
// catches it too (the others need the phases evaluated).
var badDocs = []struct {
	name, doc, path string
	schema          bool
}{
	{"no version", `{"start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}]}`, "version", true},
	{"future version", `{"version": 2, "start_ms": 0, "phases": []}`, "version 2", true},
	{"unknown field", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1, "unitl_ms": 5}]}`, "unitl_ms", true},
	{"unknown growth", `{"version": 1, "start_ms": 0, "phases": [{"growth": "cubic", "gap_ms": 1000, "until_ms": 5000}]}`, "phases[0].growth", true},
	{"zero gap", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 0, "until_ms": 5000}]}`, "phases[0].gap_ms", true},
	{"negative start", `{"version": 1, "start_ms": -1, "phases": [{"growth": "once", "gap_ms": 1}]}`, "start_ms", true},
	{"no until", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000}]}`, "phases[0].until_ms", true},
	{"until on once", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1000, "until_ms": 5}]}`, "phases[0].until_ms", true},
	{"cap on fixed", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "cap_ms": 5, "until_ms": 5000}]}`, "phases[0].cap_ms", true},
	{"factor on linear", `{"version": 1, "start_ms": 0, "phases": [{"growth": "linear", "gap_ms": 1000, "factor": 2, "until_ms": 5000}]}`, "phases[0].factor", true},
	{"no factor", `{"version": 1, "start_ms": 0, "phases": [{"growth": "exponential", "gap_ms": 1000, "until_ms": 5000}]}`, "phases[0].factor", true},
	{"factor below 1", `{"version": 1, "start_ms": 0, "phases": [{"growth": "exponential", "gap_ms": 1000, "factor": 0.5, "until_ms": 5000}]}`, "phases", true},
	{"sub-nanosecond", `{"version": 1, "start_ms": 0.0000001, "phases": [{"growth": "once", "gap_ms": 1}]}`, "start_ms", false},
	{"huge", `{"version": 1, "start_ms": 1e300, "phases": [{"growth": "once", "gap_ms": 1}]}`, "start_ms", false},
	{"until not increasing", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 5000}, {"growth": "fixed", "gap_ms": 1000, "until_ms": 5000}]}`, "phases", false},
	{"spec disagrees", `{"version": 1, "spec": "every 2s until 5s", "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 5000}]}`, "spec", false},
	{"horizon disagrees", `{"version": 1, "start_ms": 0, "horizon_ms": 6000, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 5000}]}`, "horizon_ms", false},
	{"polls disagree", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 2000}], "polls_ms": [0, 2000, 3000]}`, "polls_ms[1]", false},
	{"percent without spread", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "jitter": {"kind": "percent"}}`, "jitter", true},
	{"spread of 1", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "jitter": {"kind": "percent", "spread": 1}}`, "jitter", true},
	{"meta not an object", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "meta": [1]}`, "meta", true},
	{"segment all", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "segments": {"all": {"start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}]}}}`, "all", true},
	{"bad segment", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "segments": {"wallet": {"start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1}]}}}`, "segments.wallet.phases[0].until_ms", true},
	{"version in segment", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "segments": {"wallet": {"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}]}}}`, "version", true},
	{"two documents", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}]} {}`, "after the document", false},
	// Wall-clock phases.
	{"clock spec disagrees", `{"version": 1, "spec": "after each 5m (+2s) until 15m", "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [1000], "until_ms": 900000}]}`, "spec", false},
	{"clock spec without offset", `{"version": 1, "spec": "after each 5m until 15m", "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0, 1], "until_ms": 900000}]}`, "spec", false},
	{"clock offsets not increasing", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [2500, 1000], "until_ms": 900000}]}`, "phases[0].offsets_ms[1]", false},
	{"clock offset past the period", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [300001], "until_ms": 900000}]}`, "phases[0].offsets_ms[0]", false},
	{"clock with jitter", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0], "until_ms": 900000}], "jitter": {"kind": "equal"}}`, "jitter", true},
	{"clock with polls", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0], "until_ms": 600000}], "polls_ms": [0, 300000, 600000]}`, "polls_ms", true},
	{"clock with a gap", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "gap_ms": 300000, "offsets_ms": [0], "until_ms": 900000}]}`, "phases[0].gap_ms", true},
	{"clock then a gap", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0], "until_ms": 900000}, {"growth": "once", "gap_ms": 1000}]}`, "phases", false},
}

func TestReadJSONRejects(t *testing.T) {
	sch := compileSchema(t)
	for _, tc := range badDocs {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tc.doc))
			if err == nil {
				t.Fatalf("ReadJSON(%s) = nil error, want one naming %q", tc.doc, tc.path)
			}
			if !errors.Is(err, ErrDocument) && !errors.Is(err, ErrVersion) {
				t.Errorf("ReadJSON error %v wraps neither ErrDocument nor ErrVersion", err)
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("ReadJSON error %q does not name %q", err, tc.path)
			}
			if tc.schema && tc.name != "two documents" {
				if err := validate(sch, []byte(tc.doc)); err == nil {
					t.Errorf("the schema accepts %s", tc.doc)
				}
			}
		})
	}
}

// FuzzReadJSON checks that no document makes ReadJSON panic, and that a
// document it accepts survives JSON then ReadJSON unchanged.
func FuzzReadJSON(f *testing.F) {
	golden, _ := filepath.Glob(filepath.Join("testdata", "*.json.golden"))
	for _, path := range golden {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, tc := range badDocs {
		f.Add([]byte(tc.doc))
	}
	f.Add([]byte(`{"version": 1, "start_ms": 1.5, "phases": [{"growth": "polynomial", "gap_ms": 1, "exponent": 0.5, "cap_ms": 100, "until_ms": 1e3}], "jitter": {"kind": "decorrelated"}}`))
	f.Add([]byte(`{"version": 1, "spec": "every 1s until 10s, after each 5m (+1s +2.5s) until 15m", "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 10000}, {"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [1000, 2500], "until_ms": 900000}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ReadJSON(bytes.NewReader(data))
		// ReadJSON is package pollschedule's Read and a check of "spec": they
		// accept the same documents but for a spec.
		if _, perr := pollschedule.Read(bytes.NewReader(data)); (perr == nil) != (err == nil) &&
			!(perr == nil && strings.Contains(err.Error(), "spec: ")) {
			t.Fatalf("pollschedule.Read = %v, ReadJSON = %v for %q", perr, err, data)
		}
		if err != nil || manyPolls(doc) {
			return
		}
		var b bytes.Buffer
		if err := JSON(&b, doc, JSONOptions{}); err != nil {
			t.Fatalf("JSON(ReadJSON(%q)): %v", data, err)
		}
		again, err := ReadJSON(&b)
		if err != nil {
			t.Fatalf("ReadJSON(JSON(ReadJSON(%q))): %v\n%s", data, err, b.Bytes())
		}
		if d := cmp.Diff(doc, again); d != "" {
			t.Fatalf("decode, encode, decode of %q changed the document (-first +second):\n%s", data, d)
		}
	})
}

// manyPolls reports whether a schedule of doc may make more than 1e5
// polls. ReadJSON and JSON take time linear in the polls (up to
// optimize.MaxPolls); such documents are slow, not wrong, and would stall
// the fuzzer.
func manyPolls(doc Document) bool {
	for _, s := range doc.Schedules() {
		n := time.Duration(0)
		for _, p := range s.Phases {
			g := p.Gap
			if p.Cap > 0 && p.Cap < g {
				g = p.Cap
			}
			n += (p.Until/g + 1) * time.Duration(max(1, len(p.Offsets)))
		}
		if n > 1e5 {
			return true
		}
	}
	return false
}

// randomSpec draws a schedule spec of every growth kind, with bounds that
// often fall short of a phase's first gap.
func randomSpec(rng *rand.Rand) string {
	units := []string{"ms", "s", "m"}
	u := units[rng.IntN(len(units))]
	d := func(n int) string { return fmt.Sprintf("%d%s", n, u) }
	var items []string
	if rng.IntN(3) == 0 {
		items = append(items, "at "+d(rng.IntN(20)))
	}
	until := 0
	for range 1 + rng.IntN(4) {
		gap := 1 + rng.IntN(20)
		until += 1 + rng.IntN(40)
		bound := " until " + d(until)
		var item string
		switch rng.IntN(7) {
		case 0:
			item = d(gap)
		case 1:
			item = "every " + d(gap) + bound
		case 2:
			item = "linear " + d(gap) + "+" + d(rng.IntN(5)) + bound
		case 3:
			item = fmt.Sprintf("exp %s x%g cap %s%s", d(gap), []float64{1, 1.5, 2, 3}[rng.IntN(4)], d(1+rng.IntN(30)), bound)
		case 4:
			item = fmt.Sprintf("poly %s ^%g%s", d(gap), []float64{0.5, 1, 2}[rng.IntN(3)], bound)
		case 5:
			item = "fib " + d(gap) + bound
		default:
			// A wall-clock phase: one to three offsets within
			// a period of 1 to 20 units.
			period := 1 + rng.IntN(20)
			offs := map[int]bool{}
			for range 1 + rng.IntN(3) {
				offs[rng.IntN(period*1000)] = true
			}
			var os []string
			for _, o := range slices.Sorted(maps.Keys(offs)) {
				os = append(os, fmt.Sprintf("+%d%s", o, map[string]string{"ms": "us", "s": "ms", "m": "ms"}[u]))
				if u == "m" {
					os[len(os)-1] = fmt.Sprintf("+%dms", o*60)
				}
			}
			item = "after each " + d(period) + " (" + strings.Join(os, " ") + ")" + bound
		}
		items = append(items, item)
	}
	return strings.Join(items, ", ")
}

// A schedule written as JSON and read back polls at the same times, for
// random schedules of every kind, wall-clock ones at random
// creation instants.
func TestJSONRoundTripPolls(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	n, clocked := 0, 0
	for range 2000 {
		spec := randomSpec(rng)
		s, err := optimize.ParseSpec(spec)
		if err != nil || exportable(s) != nil {
			continue // a first bound before the start, a gap after a wall-clock phase
		}
		n++
		var b bytes.Buffer
		if err := JSON(&b, Document{Schedule: s}, JSONOptions{Polls: !s.Clocked()}); err != nil {
			t.Fatalf("JSON(%q): %v", spec, err)
		}
		doc, err := ReadJSON(&b)
		if err != nil {
			t.Fatalf("ReadJSON(JSON(%q)): %v\n%s", spec, err, b.Bytes())
		}
		created := []int64{0}
		if s.Clocked() {
			clocked++
			created = append(created, rng.Int64N(1<<62), 1740787397000000000, -rng.Int64N(1<<50))
		}
		for _, c := range created {
			if got, want := doc.Schedule.PollsAt(c), s.PollsAt(c); !slices.Equal(got, want) {
				t.Fatalf("%q through JSON polls at %v for an item created at %d ns, want %v", spec, got, c, want)
			}
		}
	}
	if n < 1500 || clocked < 200 {
		t.Errorf("only %d of 2000 random specs parsed, %d of them with a wall-clock phase", n, clocked)
	}
	t.Logf("%d specs, %d with a wall-clock phase", n, clocked)
}
