package pollschedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestMs(t *testing.T) {
	// Each want is the input read as an exact decimal, by hand.
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"-0", 0, true},
		{"0e999999999999", 0, true},
		{"1500", 1500 * time.Millisecond, true},
		{"1.5", 1500 * time.Microsecond, true},
		{"0.000001", 1, true},
		{"1e3", time.Second, true},
		{"1.5E+3", 1500 * time.Millisecond, true},
		{"2500e-3", 2500 * time.Microsecond, true},
		{"1.0000000", time.Millisecond, true},
		{"315360000000", MaxAge, true},
		{"315360000000.000001", 0, false}, // beyond MaxAge
		{"0.0000001", 0, false},
		{"1e-7", 0, false},
		{"1e-999999999999", 0, false},
		{"1e400", 0, false},
		{"-1", 0, false},
		{"-0.5", 0, false},
		{`"1000"`, 0, false}, // a string: accepted once
		{"null", 0, false},
		{"true", 0, false},
	}
	for _, tc := range tests {
		got, err := ms(json.RawMessage(tc.in), "x", maxAgeMs)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ms(%s) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	// -5 was once reported as "5 ms is negative".
	if _, err := ms(json.RawMessage("-5"), "gap_ms", maxGapMs); err == nil || !strings.Contains(err.Error(), "-5 ms is negative") {
		t.Errorf("ms(-5) error = %v, want one saying -5 ms is negative", err)
	}
}

// badDocs are hand-edited documents that Read must refuse, with the path
// its error must name.
var badDocs = []struct {
	name, doc, path string
}{
	{"no version", `{"start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}]}`, "version"},
	{"future version", `{"version": 2, "start_ms": 0, "phases": []}`, "version 2"},
	{"version 1.5", `{"version": 1.5, "start_ms": 0, "phases": []}`, "version"},
	{"version string", `{"version": "1", "start_ms": 0, "phases": []}`, "version"},
	{"unknown field", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1, "unitl_ms": 5}]}`, "unitl_ms"},
	{"field in another case", `{"version": 1, "Start_MS": 0, "start_ms": 0, "phases": []}`, "Start_MS"},
	{"unknown growth", `{"version": 1, "start_ms": 0, "phases": [{"growth": "cubic", "gap_ms": 1000, "until_ms": 5000}]}`, "phases[0].growth"},
	{"zero gap", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 0, "until_ms": 5000}]}`, "phases[0].gap_ms"},
	{"gap as a string", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": "1000", "until_ms": 5000}]}`, "phases[0].gap_ms"},
	{"negative gap", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": -5, "until_ms": 5000}]}`, "phases[0].gap_ms"},
	{"negative start", `{"version": 1, "start_ms": -1, "phases": [{"growth": "once", "gap_ms": 1}]}`, "start_ms"},
	{"null start", `{"version": 1, "start_ms": null, "phases": []}`, "start_ms"},
	{"no until", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000}]}`, "phases[0].until_ms"},
	{"until on once", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1000, "until_ms": 5}]}`, "phases[0].until_ms"},
	{"cap on fixed", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "cap_ms": 5, "until_ms": 5000}]}`, "phases[0].cap_ms"},
	{"zero cap", `{"version": 1, "start_ms": 0, "phases": [{"growth": "linear", "gap_ms": 1000, "cap_ms": 0, "until_ms": 5000}]}`, "phases[0].cap_ms"},
	{"factor on linear", `{"version": 1, "start_ms": 0, "phases": [{"growth": "linear", "gap_ms": 1000, "factor": 2, "until_ms": 5000}]}`, "phases[0].factor"},
	{"no factor", `{"version": 1, "start_ms": 0, "phases": [{"growth": "exponential", "gap_ms": 1000, "until_ms": 5000}]}`, "phases[0].factor"},
	{"factor below 1", `{"version": 1, "start_ms": 0, "phases": [{"growth": "exponential", "gap_ms": 1000, "factor": 0.5, "until_ms": 5000}]}`, "phases[0].factor"},
	{"factor past float64", `{"version": 1, "start_ms": 0, "phases": [{"growth": "exponential", "gap_ms": 1000, "factor": 1e309, "until_ms": 5000}]}`, "phases[0].factor"},
	{"exponent underflows", `{"version": 1, "start_ms": 0, "phases": [{"growth": "polynomial", "gap_ms": 1000, "exponent": 1e-400, "until_ms": 5000}]}`, "phases[0].exponent"},
	{"sub-nanosecond", `{"version": 1, "start_ms": 0.0000001, "phases": [{"growth": "once", "gap_ms": 1}]}`, "start_ms"},
	{"huge", `{"version": 1, "start_ms": 1e300, "phases": [{"growth": "once", "gap_ms": 1}]}`, "start_ms"},
	{"gap over 20 years", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 630720000001, "until_ms": 5000}]}`, "phases[0].gap_ms"},
	{"until not increasing", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 5000}, {"growth": "fixed", "gap_ms": 1000, "until_ms": 5000}]}`, "phases"},
	{"too many polls", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 0.001, "until_ms": 86400000}]}`, "phases"},
	{"horizon disagrees", `{"version": 1, "start_ms": 0, "horizon_ms": 6000, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 5000}]}`, "horizon_ms"},
	{"polls disagree", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 2000}], "polls_ms": [0, 2000, 3000]}`, "polls_ms[1]"},
	{"percent without spread", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "jitter": {"kind": "percent"}}`, "jitter"},
	{"spread of 1", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "jitter": {"kind": "percent", "spread": 1}}`, "jitter"},
	{"spread just below 1", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "jitter": {"kind": "percent", "spread": 0.99999999999999999}}`, "jitter"},
	{"spread on full", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "jitter": {"kind": "full", "spread": 0.1}}`, "jitter.spread"},
	{"meta not an object", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "meta": [1]}`, "meta"},
	{"name not a string", `{"version": 1, "name": 5, "start_ms": 0, "phases": []}`, "name"},
	{"$schema not a string", `{"version": 1, "$schema": 5, "start_ms": 0, "phases": []}`, "$schema"},
	{"segment all", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "segments": {"all": {"start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}]}}}`, "all"},
	{"segment named empty", `{"version": 1, "start_ms": 0, "phases": [], "segments": {"": {"start_ms": 0, "phases": []}}}`, "segments"},
	{"bad segment", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "segments": {"wallet": {"start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1}]}}}`, "segments.wallet.phases[0].until_ms"},
	{"version in segment", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}], "segments": {"wallet": {"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}]}}}`, "version"},
	{"null segments", `{"version": 1, "start_ms": 0, "phases": [], "segments": null}`, "segments"},
	{"array", `[{"version": 1, "start_ms": 0, "phases": []}]`, "object"},
	// Wall-clock phases.
	{"clock without offsets", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "until_ms": 900000}]}`, "phases[0].offsets_ms"},
	{"clock with no offset", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [], "until_ms": 900000}]}`, "phases[0].offsets_ms"},
	{"clock with a gap", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "gap_ms": 300000, "offsets_ms": [0], "until_ms": 900000}]}`, "phases[0].gap_ms"},
	{"clock without until", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0]}]}`, "phases[0].until_ms"},
	{"clock with a cap", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0], "cap_ms": 5, "until_ms": 900000}]}`, "phases[0].cap_ms"},
	{"period on fixed", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "period_ms": 5000, "until_ms": 5000}]}`, "phases[0].period_ms"},
	{"offsets on fixed", `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "offsets_ms": [0], "until_ms": 5000}]}`, "phases[0].offsets_ms"},
	{"zero period", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 0, "offsets_ms": [0], "until_ms": 900000}]}`, "phases[0].period_ms"},
	{"offset at the period", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [1000, 300000], "until_ms": 900000}]}`, "phases[0].offsets_ms[1]"},
	{"offsets not increasing", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [2500, 1000], "until_ms": 900000}]}`, "phases[0].offsets_ms[1]"},
	{"offsets repeated", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [1000, 1000], "until_ms": 900000}]}`, "phases[0].offsets_ms[1]"},
	{"negative offset", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [-1], "until_ms": 900000}]}`, "phases[0].offsets_ms[0]"},
	{"offset not a number", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": ["1"], "until_ms": 900000}]}`, "phases[0].offsets_ms[0]"},
	{"65 offsets", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [` + msList(65) + `], "until_ms": 900000}]}`, "phases[0].offsets_ms"},
	{"clock with jitter", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0], "until_ms": 900000}], "jitter": {"kind": "full"}}`, "jitter"},
	{"clock with polls", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0], "until_ms": 600000}], "polls_ms": [0, 300000, 600000]}`, "polls_ms"},
	{"clock then a gap", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0], "until_ms": 900000}, {"growth": "once", "gap_ms": 1000}]}`, "phases"},
	{"clock polls too often", `{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 0.000064, "offsets_ms": [` + msList(64) + `], "until_ms": 86400000}]}`, "phases"},
	{"clock horizon disagrees", `{"version": 1, "start_ms": 0, "horizon_ms": 600000, "phases": [{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [0], "until_ms": 900000}]}`, "horizon_ms"},
	{"two documents", `{"version": 1, "start_ms": 0, "phases": [{"growth": "once", "gap_ms": 1}]} {}`, "after the document"},
}

// msList writes n offsets 0, 0.000001, … ms (0, 1, … ns), increasing.
func msList(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, msText(time.Duration(i))[:len(msText(time.Duration(i)))-3])
	}
	return strings.Join(parts, ", ")
}

func TestReadRejects(t *testing.T) {
	for _, tc := range badDocs {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.doc))
			if err == nil {
				t.Fatalf("Read(%s) = nil error, want one naming %q", tc.doc, tc.path)
			}
			if !errors.Is(err, ErrDocument) && !errors.Is(err, ErrVersion) {
				t.Errorf("Read error %v wraps neither ErrDocument nor ErrVersion", err)
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("Read error %q does not name %q", err, tc.path)
			}
		})
	}
}

func TestReadAccepts(t *testing.T) {
	doc := `{"$schema": "https://github.com/pollfit/pollfit/docs/schedule.schema.json", "version": 1.0,
		"name": "payments", "start_ms": 1e3, "horizon_ms": 60000,
		"phases": [{"growth": "exponential", "gap_ms": 1000, "factor": 2, "cap_ms": 8000, "until_ms": 60000}],
		"jitter": {"kind": "percent", "spread": 0.1}, "meta": {"budget": 20},
		"segments": {"µs": {"start_ms": 0, "phases": [{"growth": "exponential", "gap_ms": 0.15, "factor": 1.5, "until_ms": 2}],
			"polls_ms": [0, 0.15, 0.375, 0.7125, 1.2188, 1.9782]}}}`
	d, err := Read(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	// 1s start, gaps 1, 2, 4, 8, 8, … s while the last poll is before 60s.
	if got, want := fmt.Sprint(d.Schedule.Polls()), "[1s 2s 4s 8s 16s 24s 32s 40s 48s 56s]"; got != want {
		t.Errorf("polls %s, want %s", got, want)
	}
	if got := string(d.Meta); got != `{"budget":20}` {
		t.Errorf("meta %s", got)
	}
	if d.Lookup("µs") == d.Schedule || d.Lookup("other") != d.Schedule || d.Lookup("") != d.Schedule {
		t.Error("Lookup does not pick the segment's schedule, or the overall one for others")
	}
	if got := d.Schedule.Jitter; got != (Jitter{Kind: PercentJitter, Spread: 0.1}) {
		t.Errorf("jitter %+v", got)
	}
}

// The schema and the readers.

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

// semantic reports whether err is one of the rules a JSON Schema cannot
// express: increasing untils, the poll count, a poll beyond MaxAge, and a
// horizon_ms or polls_ms that disagrees with the phases.
func semantic(err error) bool {
	return errors.Is(err, ErrUntil) || errors.Is(err, ErrPolls) || errors.Is(err, ErrAge) || errors.Is(err, ErrDisagree) ||
		errors.Is(err, ErrOffsets) || errors.Is(err, ErrClockEnd)
}

// checkAgainstSchema checks that Read accepts a
// document exactly when it validates against docs/schedule.schema.json,
// but for the rules semantic names, which only Read checks.
func checkAgainstSchema(t *testing.T, sch *jsonschema.Schema, doc []byte) (accepted bool) {
	t.Helper()
	_, rerr := Read(bytes.NewReader(doc))
	serr := validate(sch, doc)
	if !json.Valid(doc) {
		if rerr == nil {
			t.Fatalf("Read accepts invalid JSON %q", doc)
		}
		return false
	}
	switch {
	case rerr == nil && serr != nil:
		t.Fatalf("Read accepts a document the schema refuses: %v\n%s", serr, doc)
	case rerr != nil && serr == nil && !semantic(rerr):
		t.Fatalf("Read refuses a document the schema accepts, for a rule the schema could express: %v\n%s", rerr, doc)
	}
	return rerr == nil
}

// TestReadMatchesSchema runs the property on the documents of this file
// and on 3,000 mutations of valid documents: a field deleted, added, or
// replaced by a value of another type, out of range, or just inside or
// outside a bound.
func TestReadMatchesSchema(t *testing.T) {
	sch := compileSchema(t)
	for _, tc := range badDocs {
		checkAgainstSchema(t, sch, []byte(tc.doc))
	}
	rng := rand.New(rand.NewPCG(16, 5))
	accepted := 0
	var clock [2]int // wall-clock documents refused, accepted
	corpus := mutations(rng, 3000)
	for _, doc := range corpus {
		ok := checkAgainstSchema(t, sch, doc)
		if ok {
			accepted++
		}
		if bytes.Contains(doc, []byte(`"wall_clock"`)) {
			clock[btoi(ok)]++
		}
	}
	// Both outcomes must be common, or the property tests little; so for
	// the wall-clock phases.
	if accepted < 100 || accepted > len(corpus)-100 {
		t.Errorf("Read accepted %d of %d mutated documents; want both outcomes common", accepted, len(corpus))
	}
	if clock[0] < 50 || clock[1] < 40 {
		t.Errorf("Read refused %d and accepted %d mutated documents with a wall-clock phase; want both common", clock[0], clock[1])
	}
	t.Logf("accepted %d of %d; with a wall-clock phase, refused %d and accepted %d", accepted, len(corpus), clock[0], clock[1])
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// validDocs are documents Read accepts, the seeds of the mutations.
var validDocs = []string{
	`{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 30000}, {"growth": "fixed", "gap_ms": 2000, "until_ms": 120000}]}`,
	`{"version": 1, "name": "x", "spec": "at 1s, 2s", "start_ms": 1000, "horizon_ms": 3000, "phases": [{"growth": "once", "gap_ms": 2000}], "polls_ms": [1000, 3000]}`,
	`{"version": 1, "start_ms": 0, "phases": [{"growth": "linear", "gap_ms": 100, "step_ms": 50, "cap_ms": 1000, "until_ms": 60000}], "jitter": {"kind": "full"}}`,
	`{"version": 1, "start_ms": 0.5, "phases": [{"growth": "exponential", "gap_ms": 0.15, "factor": 1.5, "cap_ms": 5, "until_ms": 50}], "jitter": {"kind": "percent", "spread": 0.2}}`,
	`{"version": 1, "start_ms": 0, "phases": [{"growth": "polynomial", "gap_ms": 500, "exponent": 1.5, "until_ms": 300000}, {"growth": "fibonacci", "gap_ms": 1000, "cap_ms": 60000, "until_ms": 3600000}], "meta": {"a": [1]}}`,
	`{"$schema": "s", "version": 1, "start_ms": 0, "phases": [], "segments": {"wallet": {"start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1, "until_ms": 10}], "meta": {}}}}`,
	`{"version": 1, "spec": "every 1s until 10s, after each 5m (+1s +2.5s) until 15m", "start_ms": 0, "horizon_ms": 900000, "phases": [{"growth": "fixed", "gap_ms": 1000, "until_ms": 10000}, {"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [1000, 2500], "until_ms": 900000}]}`,
	`{"version": 1, "start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 12000, "offsets_ms": [0], "until_ms": 60000}], "jitter": {"kind": "none"}, "segments": {"b": {"start_ms": 0, "phases": [{"growth": "wall_clock", "period_ms": 1, "offsets_ms": [0.5], "until_ms": 10}]}}}`,
	`{"version": 1, "start_ms": 1000, "phases": [{"growth": "once", "gap_ms": 500}, {"growth": "wall_clock", "period_ms": 60000, "offsets_ms": [0, 30000], "until_ms": 600000}, {"growth": "fixed", "gap_ms": 60000, "until_ms": 3600000}]}`,
}

// mutants are values a mutation puts in place of a field's.
var mutants = []string{
	`null`, `true`, `"1000"`, `""`, `[]`, `{}`, `[1]`, `{"a": 1}`,
	`0`, `-0`, `-1`, `1`, `0.5`, `1.5`, `2`, `1e-7`, `0.000001`, `0.0000015`, `1e3`, `1E+3`, `-1e-9`,
	`0.99999999999999999`, `0.9999999999999999`, `1.0000000000000001`, `2.2250738585072014e-308`, `1e-400`,
	`1.7976931348623157e308`, `1e309`, `315360000000`, `315360000000.000001`, `630720000000`, `630720000001`, `9e18`,
	`"once"`, `"fixed"`, `"linear"`, `"exponential"`, `"polynomial"`, `"fibonacci"`, `"cubic"`, `"wall_clock"`,
	`[0]`, `[1000, 2500]`, `[2500, 1000]`, `[0, 0]`, `[300000]`, `[0.5, 1e3]`, `[-1]`,
	`"none"`, `"full"`, `"equal"`, `"decorrelated"`, `"percent"`, `"all"`,
}

// fieldNames are the keys a mutation adds.
var fieldNames = []string{"version", "name", "spec", "start_ms", "horizon_ms", "phases", "jitter", "polls_ms", "meta",
	"segments", "$schema", "growth", "gap_ms", "step_ms", "factor", "exponent", "cap_ms", "until_ms", "kind", "spread",
	"period_ms", "offsets_ms",
	"Start_MS", "unknown", "all", ""}

// mutations returns n documents, each a valid document with one to three
// mutations.
func mutations(rng *rand.Rand, n int) [][]byte {
	var out [][]byte
	for range n {
		var v any
		if err := json.Unmarshal([]byte(validDocs[rng.IntN(len(validDocs))]), &v); err != nil {
			panic(err)
		}
		for range 1 + rng.IntN(3) {
			v = mutate(rng, v)
		}
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	return out
}

// mutate changes one place of v, chosen at random among v and everything
// inside it.
func mutate(rng *rand.Rand, v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		switch r := rng.IntN(10); {
		case r == 0 || len(keys) == 0:
			x[fieldNames[rng.IntN(len(fieldNames))]] = mutant(rng)
		case r == 1:
			delete(x, keys[rng.IntN(len(keys))])
		case r < 4:
			k := keys[rng.IntN(len(keys))]
			x[k] = mutant(rng)
		default:
			k := keys[rng.IntN(len(keys))]
			x[k] = mutate(rng, x[k])
		}
		return x
	case []any:
		switch r := rng.IntN(6); {
		case r == 0 || len(x) == 0:
			return append(x, mutant(rng))
		case r == 1:
			i := rng.IntN(len(x))
			return append(x[:i], x[i+1:]...)
		default:
			i := rng.IntN(len(x))
			x[i] = mutate(rng, x[i])
			return x
		}
	}
	return mutant(rng)
}

func mutant(rng *rand.Rand) any {
	var v any
	d := json.NewDecoder(strings.NewReader(mutants[rng.IntN(len(mutants))]))
	d.UseNumber() // keep 0.99999999999999999 as written
	if err := d.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

// ajvDriver compiles the schema with ajv in strict mode (draft 2020-12)
// and prints, for each line of a file of documents, whether it validates.
const ajvDriver = `const Ajv2020 = require(process.argv[2] + "/node_modules/ajv/dist/2020").default;
const fs = require("fs");
const ajv = new Ajv2020({ strict: true, multipleOfPrecision: 6 });
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[3], "utf8")));
const docs = fs.readFileSync(process.argv[4], "utf8").split("\n").filter((l) => l !== "");
process.stdout.write(JSON.stringify(docs.map((d) => validate(JSON.parse(d)))));
`

// jsExact matches the numbers JavaScript cannot check against the schema's
// bounds: 15 significant digits or more (315360000000.000001 reads as
// 315360000000, the largest age) and exponents of 300 or more (1e-400
// reads as 0).
var jsExact = regexp.MustCompile(`[0-9.]{16,}|[eE][-+]?[0-9]{3}`)

// TestSchemaAjvStrict compiles docs/schedule.schema.json with ajv in
// strict mode and checks that ajv and the Go validator agree on
// the documents of TestReadMatchesSchema, but for those holding a number
// jsExact matches. ajv checks multipleOf in floating point: it needs
// multipleOfPrecision 6 to see 0.001 as a whole number of nanoseconds.
func TestSchemaAjvStrict(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Node.js; skipped in -short mode")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH")
	}
	tools := os.Getenv("POLLFIT_TOOLS")
	if tools == "" {
		home, _ := os.UserHomeDir()
		tools = filepath.Join(home, ".cache", "pollfit-tools")
	}
	if _, err := os.Stat(filepath.Join(tools, "node_modules", "ajv")); err != nil {
		t.Skipf("ajv not installed under %s: run sh export/testdata/setup.sh", tools)
	}
	sch := compileSchema(t)
	var docs [][]byte
	for _, tc := range badDocs {
		if json.Valid([]byte(tc.doc)) && tc.name != "two documents" {
			docs = append(docs, []byte(tc.doc))
		}
	}
	for _, d := range validDocs {
		docs = append(docs, []byte(d))
	}
	for _, d := range mutations(rand.New(rand.NewPCG(16, 5)), 3000) {
		if !jsExact.Match(d) {
			docs = append(docs, d)
		}
	}
	dir := t.TempDir()
	var lines bytes.Buffer
	for _, d := range docs {
		var c bytes.Buffer
		if err := json.Compact(&c, d); err != nil {
			t.Fatal(err)
		}
		lines.Write(c.Bytes())
		lines.WriteByte('\n')
	}
	for name, data := range map[string][]byte{"ajv.js": []byte(ajvDriver), "docs.txt": lines.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schema, _ := filepath.Abs(filepath.Join("..", "docs", "schedule.schema.json"))
	cmd := exec.Command(node, "ajv.js", tools, schema, "docs.txt")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ajv (strict): %v\n%s", err, out)
	}
	var valid []bool
	if err := json.Unmarshal(out, &valid); err != nil || len(valid) != len(docs) {
		t.Fatalf("ajv output: %v\n%.500s", err, out)
	}
	n := 0
	for i, d := range docs {
		ok := validate(sch, d) == nil
		if ok != valid[i] {
			t.Errorf("ajv says valid = %v, the Go validator %v, for %s", valid[i], ok, d)
		}
		if ok {
			n++
		}
	}
	t.Logf("ajv and the Go validator agree on %d documents, %d of them valid", len(docs), n)
}

// FuzzRead checks that no input makes Read panic and that Read accepts an
// input exactly when the schema does, but for the rules only Read checks.
func FuzzRead(f *testing.F) {
	for _, d := range validDocs {
		f.Add([]byte(d))
	}
	for _, tc := range badDocs {
		f.Add([]byte(tc.doc))
	}
	golden, _ := filepath.Glob(filepath.Join("..", "export", "testdata", "*.json.golden"))
	for _, path := range golden {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	sch := compileSchema(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Count(data, []byte("_ms")) > 40 {
			return // large documents: slow, not wrong
		}
		checkAgainstSchema(t, sch, data)
	})
}
