package export

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/optimize"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	now := optimize.References[3]
	var js bytes.Buffer
	if err := JSON(&js, Document{Schedule: now}, JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"now.json": js.String(),
		"now.spec": "# the brief's \"now\" schedule\nevery 1s until 30s,\nevery 2s until 2m\n\nevery 5s until 5m, every 15s until 15m\n",
		"bad.json": `{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 1000}]}`,
		"bad.spec": "every 1s until 30s\nevery banana\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := now
	want.Name = "" // a spec carries no name
	tests := []struct {
		arg     string
		want    optimize.Schedule
		wantErr []string // substrings of the error; nil: no error
	}{
		{arg: filepath.Join(dir, "now.json"), want: now},
		{arg: filepath.Join(dir, "now.spec"), want: want},
		{arg: now.String(), want: want},
		{arg: filepath.Join(dir, "bad.json"), wantErr: []string{"bad.json", "phases[0].until_ms"}},
		{arg: filepath.Join(dir, "bad.spec"), wantErr: []string{"bad.spec", "banana"}},
		{arg: filepath.Join(dir, "missing.json"), wantErr: []string{"missing.json", "neither a readable file"}},
		{arg: "every banana", wantErr: []string{"banana"}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.arg), func(t *testing.T) {
			doc, err := Load(tc.arg)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("Load(%q) = nil error, want one", tc.arg)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("Load(%q) error %q does not contain %q", tc.arg, err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Load(%q): %v", tc.arg, err)
			}
			if !sameSchedule(doc.Schedule, tc.want) {
				t.Errorf("Load(%q) = %q, want %q", tc.arg, doc.Schedule, tc.want)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "bad.json")); !errors.Is(err, ErrDocument) {
		t.Errorf("Load(bad.json) error %v does not wrap ErrDocument", err)
	}
	if _, err := Load("every banana"); !errors.Is(err, optimize.ErrSpec) {
		t.Errorf("Load(bad spec) error %v does not wrap optimize.ErrSpec", err)
	}
}

func TestParseJitter(t *testing.T) {
	tests := []struct {
		in   string
		want optimize.Jitter
		ok   bool
	}{
		{"full", optimize.Jitter{Kind: optimize.FullJitter}, true},
		{"equal", optimize.Jitter{Kind: optimize.EqualJitter}, true},
		{"decorrelated", optimize.Jitter{Kind: optimize.DecorrelatedJitter}, true},
		{"±10%", optimize.Jitter{Kind: optimize.PercentJitter, Percent: 0.1}, true},
		{"+-25%", optimize.Jitter{Kind: optimize.PercentJitter, Percent: 0.25}, true},
		{"none", optimize.Jitter{}, true},
		{"", optimize.Jitter{}, false},
		{"full, every 1s until 2s", optimize.Jitter{}, false},
		{"150%", optimize.Jitter{}, false},
		{"lots", optimize.Jitter{}, false},
	}
	for _, tc := range tests {
		got, err := ParseJitter(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseJitter(%q) = %+v, %v; want %+v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestNames checks the sanitising of user-given names; each want is the
// rule of Options.Name and Data.Package applied by hand.
func TestNames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", DefaultName}, {"payment status", "PaymentStatus"}, {"payment-status", "PaymentStatus"},
		{"1st", "S1st"}, {"日本", DefaultName}, {"Math", "MathSchedule"}, {"func", "Func"},
	} {
		if got := typeName(tc.in); got != tc.want {
			t.Errorf("typeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", DefaultPackage}, {"Poll", "poll"}, {"my-poll", "mypoll"}, {"func", "funcpoll"},
		{"main", "mainpoll"}, {"9lives", "lives"}, {"日本", DefaultPackage},
	} {
		if got := goPackage(tc.in); got != tc.want {
			t.Errorf("goPackage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"com.example.poll", "com.example.poll"}, {"com.fun.in", "com.fun_.in_"}, {"a..b-c", "a.bc"},
	} {
		if got := kotlinPackage(tc.in); got != tc.want {
			t.Errorf("kotlinPackage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestJitterOverride checks that Options.Jitter replaces every schedule's
// jitter in the generated code, and &optimize.Jitter{} removes it.
func TestJitterOverride(t *testing.T) {
	doc := Document{Schedule: optimize.MustParseSpec("every 1s until 10s, jitter full")}
	for _, tc := range []struct {
		jitter *optimize.Jitter
		want   bool // the generated Go draws random numbers
	}{{nil, true}, {&optimize.Jitter{}, false}} {
		var b bytes.Buffer
		if err := GoSource(&b, doc, Options{Jitter: tc.jitter}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "math/rand/v2"); got != tc.want {
			t.Errorf("GoSource with Jitter %v imports math/rand/v2: %v, want %v", tc.jitter, got, tc.want)
		}
	}
	var b bytes.Buffer
	if err := GoSource(&b, Document{Schedule: optimize.References[0]}, Options{Jitter: &optimize.Jitter{Kind: optimize.EqualJitter}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "jitter:  backoffEqualJitter") {
		t.Errorf("GoSource with an equal jitter override has no equal jitter table:\n%s", b.String())
	}
}
