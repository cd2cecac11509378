package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeSkip are README commands TestREADME does not run, and why.
var readmeSkip = map[string]string{
	"git clone https://github.com/pollfit/pollfit.git": "the test makes the fresh copy itself, from this work tree",
	"cd pollfit":       "the test runs every command in the fresh copy",
	"./test.sh":        "it runs go test ./..., which runs this test",
	"bench/fuzz.sh 10": "it fuzzes for 10 minutes; go test ./... runs every fuzz target on its seeds",
}

// readmeBlock is a code block of README.md that TestREADME runs.
type readmeBlock struct {
	line     int    // of the opening fence
	lang     string // sh, console or go
	commands []string
	source   string // the go block
}

// readmeBlocks returns the runnable blocks of the README: the commands of
// ```sh blocks (lines joined at a trailing backslash), the "$ " commands of
// ```console blocks, and ```go programs.
func readmeBlocks(t *testing.T, text string) []readmeBlock {
	t.Helper()
	var out []readmeBlock
	var cur *readmeBlock
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			lang := strings.TrimPrefix(l, "```")
			if lang == "sh" || lang == "console" || lang == "go" {
				cur = &readmeBlock{line: i + 1, lang: lang}
			}
		case cur != nil && l == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil && cur.lang == "go":
			cur.source += l + "\n"
		case cur != nil && cur.lang == "sh":
			for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
				i++
				l += "\n" + lines[i]
			}
			if strings.TrimSpace(l) != "" {
				cur.commands = append(cur.commands, l)
			}
		case cur != nil && cur.lang == "console" && strings.HasPrefix(l, "$ "):
			cur.commands = append(cur.commands, strings.TrimPrefix(l, "$ "))
		}
	}
	return out
}

// TestREADME runs every example of README.md verbatim, in bash, in a
// fresh copy of the repository (the files git tracks or would add, as a
// clone of this work tree has them): the install from a clone puts pollfit
// on PATH, every later command runs as a reader would type it, and the
// library example runs as a program. A command fails the test when it
// exits non-zero (console output is compared by TestDocExamples).
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs pollfit in a fresh copy: not with -short")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	clone := filepath.Join(root, "pollfit")
	copyWorkTree(t, clone)
	bin := filepath.Join(root, "bin")
	env := append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "MANPAGER=cat", "PAGER=cat")
	ran := 0
	for _, b := range readmeBlocks(t, string(text)) {
		if b.lang == "go" {
			dir := filepath.Join(clone, "readme_example")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(b.source), 0o644); err != nil {
				t.Fatal(err)
			}
			b.commands = []string{"go run ./readme_example"}
		}
		for _, c := range b.commands {
			key, _, _ := strings.Cut(c, " #") // the command without its comment
			if why := readmeSkip[strings.TrimSpace(key)]; why != "" {
				t.Logf("README.md:%d: not run: %s: %s", b.line, c, why)
				continue
			}
			cmd := exec.Command(bash, "-e", "-c", c)
			cmd.Dir = clone
			cmd.Env = env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Errorf("README.md:%d: %s: %v\n%s", b.line, c, err, out.String())
			}
			t.Logf("README.md:%d: %s: %.1fs", b.line, c, time.Since(start).Seconds())
			ran++
		}
	}
	if ran < 10 {
		t.Errorf("ran %d README commands, want every example (at least 10)", ran)
	}
	// What the examples say they write is there.
	for _, f := range []string{"poll/schedule.go", "poll/schedule_test.go", "payments.html", "julia.html", "pollfit.1", "pollfit.bash"} {
		if _, err := os.Stat(filepath.Join(clone, f)); err != nil {
			t.Errorf("after the README's examples: %v", err)
		}
	}
}

// copyWorkTree copies the files of the repository that git tracks or
// would add (not ignored) to dir: what a clone of this work tree holds.
func copyWorkTree(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files: %v: not in a git work tree", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"test.sh", ".ci/run"} {
		os.Chmod(filepath.Join(dir, f), 0o755)
	}
}

// TestREADMEMixtureExcerpt: the README quotes fit's lognormal mixture of
// the payments fixture in its prose, which TestREADME does not run; each
// part of the quote between its "…" must be in what fit prints (it had
// gone out of date: "mixture of 6 (BIC): 28.6% at 0.5s" after the fit
// changed to 5 components).
func TestREADMEMixtureExcerpt(t *testing.T) {
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(text)), " ")
	const start = "`fit` says `lognormal mixture of"
	i := strings.Index(flat, start)
	if i < 0 {
		t.Fatalf("README.md: no %q", start)
	}
	quote := flat[i+len("`fit` says `"):]
	quote = quote[:strings.Index(quote, "`")]
	_, stderr, code := runCLI(t, "fit", "-i", "fixtures/payments.csv", "-c", "settle_s", "--status", "status", "--pending", "pending", "--method", "lognormal-mixture", "-o", os.DevNull)
	if code != 0 {
		t.Fatalf("fit: exit %d\n%s", code, stderr)
	}
	for _, part := range strings.Split(quote, "…") {
		if !strings.Contains(stderr, strings.TrimSpace(part)) {
			t.Errorf("README.md quotes %q, which fit does not print:\n%s", strings.TrimSpace(part), stderr)
		}
	}
}
