package export

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pollfit/pollfit/optimize"
)

// A schedule jittered "to horizon" (how pollfit scores baseline
// families) has no runtime form: every target refuses it rather than
// export a client that stops short of the horizon.
func TestExportRefusesToHorizon(t *testing.T) {
	s := optimize.MustParseSpec("exp 1s x1.5 cap 30s until 9m50s, every 10s until 10m, jitter full to horizon")
	doc := Document{Schedule: s}
	if err := JSON(&bytes.Buffer{}, doc, JSONOptions{}); !errors.Is(err, ErrToHorizon) {
		t.Errorf("JSON = %v, want ErrToHorizon", err)
	}
	targets := map[string]func(*bytes.Buffer, Options) error{
		"go":         func(b *bytes.Buffer, o Options) error { return GoSource(b, doc, o) },
		"typescript": func(b *bytes.Buffer, o Options) error { return TypeScript(b, doc, o) },
		"kotlin":     func(b *bytes.Buffer, o Options) error { return Kotlin(b, doc, o) },
		"swift":      func(b *bytes.Buffer, o Options) error { return Swift(b, doc, o) },
	}
	for name, write := range targets {
		if err := write(&bytes.Buffer{}, Options{}); !errors.Is(err, ErrToHorizon) {
			t.Errorf("%s = %v, want ErrToHorizon", name, err)
		}
	}
	// --jitter replaces it: exported with its jitter alone.
	full := optimize.Jitter{Kind: optimize.FullJitter}
	if err := GoSource(&bytes.Buffer{}, doc, Options{Jitter: &full}); err != nil {
		t.Errorf("GoSource(--jitter full) = %v, want it exported", err)
	}
}
