package main

import (
	"bytes"
	"testing"
)

// runContest runs pollfit in-process with the compare and sweep commands
// (added here until main.go lists them).
func runContest(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	a := newApp(&out, &errb)
	for _, cmd := range []string{"compare", "sweep"} {
		if a.Command(cmd) == nil {
			switch cmd {
			case "compare":
				a.Commands = append(a.Commands, compareCommand(&out, &errb))
			case "sweep":
				a.Commands = append(a.Commands, sweepCommand(&out, &errb))
			}
		}
	}
	err := a.Run(append([]string{"pollfit"}, args...))
	if err != nil {
		errb.WriteString("pollfit: " + err.Error() + "\n")
		code = exitCode(err)
	}
	return out.String(), errb.String(), code
}
