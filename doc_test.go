package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docFiles hold console sessions that TestDocExamples runs.
var docFiles = []string{"README.md", "docs/sweep.md", "docs/export.md", "docs/polllog.md"}

// TestDocExamples runs every "$ pollfit …" (or "$ go run . …") command of
// the ```console blocks of the docs in-process and compares its stdout with
// the lines shown under it. go test -update rewrites those lines.
func TestDocExamples(t *testing.T) {
	for _, file := range docFiles {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		var out []string
		inBlock := false
		for i := 0; i < len(lines); i++ {
			line := lines[i]
			out = append(out, line)
			switch {
			case strings.HasPrefix(line, "```console"):
				inBlock = true
				continue
			case strings.HasPrefix(line, "```"):
				inBlock = false
				continue
			}
			if !inBlock || !strings.HasPrefix(line, "$ ") {
				continue
			}
			args, ok := commandArgs(strings.TrimPrefix(line, "$ "))
			if !ok {
				continue
			}
			// The shown output runs to the next command or the block's end.
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(lines[j], "$ ") && !strings.HasPrefix(lines[j], "```") {
				j++
			}
			want := strings.Join(lines[i+1:j], "\n")
			stdout, stderr, code := runCLI(t, args...)
			if code != 0 {
				t.Errorf("%s:%d: %s: exit %d: %s", file, i+1, line, code, stderr)
			}
			got := strings.TrimRight(stdout, "\n")
			if *update {
				if got != "" {
					out = append(out, strings.Split(got, "\n")...)
				}
				i = j - 1
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s:%d: %s: output differs (-doc +got; go test -update rewrites):\n%s", file, i+1, line, diff)
			}
		}
		if *update {
			if err := os.WriteFile(file, []byte(strings.Join(out, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// commandArgs splits a shown command into pollfit's arguments, honouring
// single quotes. It reports false for commands that are not pollfit's.
func commandArgs(cmd string) ([]string, bool) {
	var args []string
	var cur strings.Builder
	quoted, inArg := false, false
	for _, r := range cmd {
		switch {
		case r == '\'':
			quoted = !quoted
			inArg = true
		case r == ' ' && !quoted:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	switch {
	case len(args) >= 1 && args[0] == "pollfit":
		return args[1:], true
	case len(args) >= 3 && args[0] == "go" && args[1] == "run" && args[2] == ".":
		return args[3:], true
	}
	return nil, false
}
