package main

import (
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

// TestHelpCommand: pollfit help COMMAND prints the command's help, as
// COMMAND --help does (issue 12: it printed the top-level help).
func TestHelpCommand(t *testing.T) {
	for _, c := range newApp(io.Discard, io.Discard).Commands {
		got, stderr, code := runCLI(t, "help", c.Name)
		want, _, _ := runCLI(t, c.Name, "--help")
		if code != 0 || got != want {
			t.Errorf("help %s: exit %d, stderr %q; stdout differs from %s --help:\n%s", c.Name, code, stderr, c.Name, cmp.Diff(want, got))
		}
		if !strings.HasPrefix(got, "NAME:\n   pollfit "+c.Name+" - ") {
			t.Errorf("help %s starts %q, want the command's NAME", c.Name, got[:min(len(got), 60)])
		}
	}
	if _, stderr, code := runCLI(t, "help", "plna"); code != 2 || !strings.Contains(stderr, "no such command") {
		t.Errorf("help plna: exit %d, stderr %q; want 2 and no such command", code, stderr)
	}
}

// TestFlagCategories: every flag of every command has a category, help
// lists the categories in the pipeline's order, and no flag's value is a
// bare "value" (issue 12).
func TestFlagCategories(t *testing.T) {
	bare := regexp.MustCompile(`(^| )value(,|$| )`)
	for _, c := range newApp(io.Discard, io.Discard).Commands {
		for _, f := range c.Flags {
			cf, ok := f.(cli.CategorizableFlag)
			if !ok || !slices.Contains(categories, cf.GetCategory()) {
				t.Errorf("%s --%s: no category", c.Name, f.Names()[0])
			}
		}
		help, _, _ := runCLI(t, c.Name, "--help")
		for _, line := range strings.Split(help, "\n") {
			if !strings.HasPrefix(line, "   -") {
				continue
			}
			names, _, _ := strings.Cut(strings.TrimSpace(line), "  ") // the names end where the usage's column starts
			if bare.MatchString(names) {
				t.Errorf("%s --help has a bare value placeholder: %q", c.Name, names)
			}
		}
		last := -1
		for i, cat := range categories {
			at := strings.Index(help, "\n"+strings.ToUpper(cat)+" OPTIONS:\n")
			if at < 0 {
				continue
			}
			if at < last {
				t.Errorf("%s --help: %s options come before those of an earlier category", c.Name, categories[i])
			}
			last = at
		}
	}
}

// TestCompletionBash completes commands, flags and flag values in bash.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	script, _, code := runCLI(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("completion bash: exit %d", code)
	}
	for _, tc := range []struct {
		words string
		want  string
	}{
		{"pollfit rep", "report"},
		{"pollfit plan --bud", "--budget"},
		{"pollfit plan --format ", "table json"},
		{"pollfit fit --format ", "json csv"},
		{"pollfit export --lang k", "kotlin"},
		{"pollfit report --fit-method lognormal", "lognormal lognormal-mixture"},
		{"pollfit completion ", "bash zsh fish"},
		{"pollfit help sw", "sweep"},
	} {
		words := strings.Split(tc.words, " ")
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		prog := script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" + strings.TrimSpace(string(rune('0'+len(words)-1))) +
			"\n_pollfit\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command(bash, "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v: %s", tc.words, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != tc.want {
			t.Errorf("complete %q = %q, want %q", tc.words, got, tc.want)
		}
	}
}

// TestCompletionZshFish checks the zsh script's syntax, and completes
// with fish, when they are installed (export/testdata/setup.sh installs
// them as root).
func TestCompletionZshFish(t *testing.T) {
	dir := t.TempDir()
	if zsh, err := exec.LookPath("zsh"); err == nil {
		script, _, _ := runCLI(t, "completion", "zsh")
		path := dir + "/_pollfit"
		if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(zsh, "-n", path).CombinedOutput(); err != nil {
			t.Errorf("zsh -n: %v: %s", err, out)
		}
		// Loaded into compinit, the function is defined and registered.
		prog := "autoload -U compinit && compinit -u -d " + dir + "/zcomp && source " + path + " && print -r -- $_comps[pollfit]"
		out, err := exec.Command(zsh, "-f", "-c", prog).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "_pollfit" {
			t.Errorf("zsh: completion for pollfit = %q (%v), want _pollfit", out, err)
		}
	} else {
		t.Log("zsh not found: its script is not checked")
	}
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Log("fish not found: its script is not checked")
		return
	}
	script, _, _ := runCLI(t, "completion", "fish")
	path := dir + "/pollfit.fish"
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ line, want string }{
		{"pollfit rep", "report"},
		{"pollfit plan --bud", "--budget"},
		{"pollfit export --lang sw", "swift"},
	} {
		out, err := exec.Command(fish, "--no-config", "-c", "source "+path+"; complete -C '"+tc.line+"'").CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v: %s", err, out)
		}
		first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		if name, _, _ := strings.Cut(first, "\t"); name != tc.want {
			t.Errorf("fish complete %q = %q, want %q first", tc.line, out, tc.want)
		}
	}
}

// TestManPage: docs/pollfit.1 is what pollfit man prints (go test .
// -run ManPage -update rewrites it), and man reads it.
func TestManPage(t *testing.T) {
	page, _, code := runCLI(t, "man")
	if code != 0 {
		t.Fatalf("man: exit %d", code)
	}
	const path = "docs/pollfit.1"
	if *update {
		if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), page); diff != "" {
		t.Errorf("%s is stale; run go test . -run ManPage -update:\n%s", path, diff)
	}
	for _, c := range newApp(io.Discard, io.Discard).Commands {
		if !strings.Contains(page, ".SH pollfit "+c.Name+"\n") {
			t.Errorf("the man page has no section for %s", c.Name)
		}
	}
	man, err := exec.LookPath("man")
	if err != nil {
		t.Log("man not found: the page is not rendered")
		return
	}
	cmd := exec.Command(man, "-l", path)
	cmd.Env = append(os.Environ(), "MANPAGER=cat", "MANWIDTH=100")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("man -l %s: %v: %s", path, err, out)
	}
	for _, want := range []string{"pollfit - derive poll schedules", "Input options", "--budget N, -n N"} {
		if !strings.Contains(strings.ReplaceAll(string(out), "\u2010", "-"), want) {
			t.Errorf("man -l %s: no %q in:\n%.600s", path, want, out)
		}
	}
}
