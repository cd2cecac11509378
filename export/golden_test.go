package export

import (
	"bytes"
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/optimize"
)

// goldenDocs are the documents every target is rendered from for the
// golden files: the brief's "now" schedule alone, and with two segments
// (a jittered growing one and a deadline-shaped one) and metadata; and
// the wall-clock example's schedule, with a segment whose wall-clock phase
// comes between age phases and a jittered one.
func goldenDocs() map[string]Document {
	return map[string]Document{
		"now": {Schedule: optimize.References[3]},
		"segments": {
			Schedule: optimize.References[3],
			Segments: []Segment{
				{Name: "mobile-money", Schedule: optimize.MustParseSpec(
					"at 1s, every 2s until 30s, every 10s until 50s, every 1s until 70s, every 15s until 15m, jitter ±10%")},
				{Name: "wallet", Schedule: optimize.MustParseSpec("every 500ms until 5s, exp 1s x2 cap 15s until 15m, jitter full"),
					Meta: json.RawMessage(`{"note": "settles in seconds"}`)},
			},
			Meta: json.RawMessage(`{"budget_polls": 152, "expected_lag_ms": {"median": 500, "p95": 1500}}`),
		},
		"clock": {
			Schedule: optimize.MustParseSpec("every 1s until 10s, after each 5m (+1s +2.5s) until 15m"),
			Segments: []Segment{
				{Name: "card", Schedule: optimize.MustParseSpec("at 2s, after each 12s (+500ms +6s) until 2m, every 30s until 5m")},
				{Name: "wallet", Schedule: optimize.MustParseSpec("every 2s until 30s, jitter full")},
			},
		},
	}
}

// TestGolden renders every target and compares it with testdata/*.golden
// (go test -update rewrites them). Generated Go must also parse.
func TestGolden(t *testing.T) {
	tmpl, err := os.ReadFile(filepath.Join("testdata", "config.yaml.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	targets := []struct {
		ext    string
		render func(*bytes.Buffer, Document) error
	}{
		{"json", func(b *bytes.Buffer, d Document) error { return JSON(b, d, JSONOptions{Polls: !docClocked(d)}) }},
		{"go", func(b *bytes.Buffer, d Document) error {
			return GoSource(b, d, Options{Package: "poll", Name: "Payment"})
		}},
		{"test.go", func(b *bytes.Buffer, d Document) error {
			return GoTest(b, d, Options{Package: "poll", Name: "Payment"})
		}},
		{"ts", func(b *bytes.Buffer, d Document) error { return TypeScript(b, d, Options{Name: "Payment"}) }},
		{"kt", func(b *bytes.Buffer, d Document) error {
			return Kotlin(b, d, Options{Package: "com.example.poll", Name: "Payment"})
		}},
		{"swift", func(b *bytes.Buffer, d Document) error { return Swift(b, d, Options{Name: "Payment"}) }},
		{"yaml", func(b *bytes.Buffer, d Document) error { return Template(b, string(tmpl), d, Options{}) }},
	}
	for name, doc := range goldenDocs() {
		for _, tg := range targets {
			file := name + "." + tg.ext + ".golden"
			t.Run(file, func(t *testing.T) {
				var b bytes.Buffer
				if err := tg.render(&b, doc); err != nil {
					t.Fatal(err)
				}
				if tg.ext == "go" || tg.ext == "test.go" {
					if _, err := parser.ParseFile(token.NewFileSet(), file, b.Bytes(), parser.ParseComments); err != nil {
						t.Errorf("generated Go does not parse: %v", err)
					}
				}
				checkGolden(t, file, b.Bytes())
			})
		}
	}
}

// A template's errors name its file and line (they said "template:1:2").
func TestNamedTemplateErrors(t *testing.T) {
	doc := goldenDocs()["now"]
	for _, c := range []struct{ text, want string }{
		{"ok\n{{ .Nope }}\n", `template: poll.tmpl:2:3: executing "poll.tmpl" at <.Nope>`},
		{"{{ foo }}", `template: poll.tmpl:1: function "foo" not defined`},
	} {
		err := NamedTemplate(io.Discard, "poll.tmpl", c.text, doc, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NamedTemplate(%q) = %v, want %q", c.text, err, c.want)
		}
	}
}
