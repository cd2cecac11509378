package export

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pollfit/pollfit/optimize"
)

// TestGoSourceEachKindAlone generates the Go of each schedule kind
// alone, each in a package of its own, and vets and tests them all: the
// imports follow what a schedule uses, so a schedule of one kind must not
// import what only another needs (a fib schedule alone imported "math",
// which only exp and poly use, and did not compile: a second fresh user
// exported compare's tuned fib family, 2026-12-01). TestGoSourceRuns
// puts every kind in one file, where each import has a user.
func TestGoSourceEachKindAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go packages (several seconds); skipped in -short mode")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: cannot build the generated code")
	}
	specs := []string{
		"every 2s until 1m",
		"exp 1s x2 cap 8s until 1m",
		"poly 500ms ^1.5 cap 20s until 5m",
		"fib 1s until 1m",
		"at 2s, fib 500ms cap 10s until 5m",
		"linear 1s+500ms until 3m",
		"1.5s, 2s, 3s, 5s",
		"at 3s",
		"fib 1s cap 10s until 1m, jitter equal",
		"every 2s until 30s, jitter full",
		"linear 1s+1s until 1m, jitter ±20%",
		"exp 1s x2 cap 8s until 1m, jitter decorrelated",
	}
	dir := t.TempDir()
	for i, spec := range specs {
		pkg := fmt.Sprintf("k%d", i)
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		doc := Document{Schedule: optimize.MustParseSpec(spec)}
		opt := Options{Package: pkg}
		for name, gen := range map[string]func(*bytes.Buffer) error{
			"schedule.go":      func(b *bytes.Buffer) error { return GoSource(b, doc, opt) },
			"schedule_test.go": func(b *bytes.Buffer) error { return GoTest(b, doc, opt) },
		} {
			var b bytes.Buffer
			if err := gen(&b); err != nil {
				t.Fatalf("%q: generating %s: %v", spec, name, err)
			}
			if err := os.WriteFile(filepath.Join(dir, pkg, name), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/alone\n\ngo 1.24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local", "GOPROXY=off", "CGO_ENABLED=0"}
	run(t, dir, env, goTool, "vet", "./...")
	run(t, dir, env, goTool, "test", "-count=1", "./...")
}
