package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue15Messages: what a fresh user's mistakes print. A flag value
// its type does not parse said "parse error"; a ragged row named no way
// out; a header in Latin-1 did not say to re-encode it. Flag errors exit
// 2 (usage), the others non-zero.
func TestIssue15Messages(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ragged := write("ragged.csv", "id,settle_s\n1,1.0\n2,2.0,extra\n3,3.0\n")
	latin := write("latin.csv", "st\xe9_s\n1.0\n2.0\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"budget 1e9", []string{"plan", "--dist", "weibull:k=1.5,lambda=30", "--budget", "1e9"}, `pollfit: --budget "1e9": want a whole number written in digits, such as 30 (see pollfit plan --help)`},
		{"seed -1", []string{"plan", "--dist", "weibull:k=1.5,lambda=30", "--budget", "5", "--seed", "-1"}, `pollfit: --seed "-1": want a whole number 0 or more, such as 7 (see pollfit plan --help)`},
		{"poll cost", []string{"plan", "--dist", "weibull:k=1.5,lambda=30", "--poll-cost", "abc"}, `pollfit: --poll-cost "abc": want a number, such as 0.5 or 1e-3 (see pollfit plan --help)`},
		{"ragged row", []string{"fit", "-i", ragged, "-c", "settle_s"}, `pollfit: ` + ragged + `: row 3: wrong number of fields: want 2, found 3 (check the delimiter, --delimiter, and that fields holding it are quoted; --drop-invalid drops such rows and counts them)`},
		{"latin-1 header", []string{"fit", "-i", latin, "-c", "settle_s"}, `pollfit: ` + latin + `: row 1: invalid UTF-8 in the header: found "st\xe9_s" (re-encode the file as UTF-8, e.g. iconv -f LATIN1 -t UTF-8 FILE > FILE.utf8.csv)`},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if got := strings.TrimSpace(stderr); code == 0 || strings.HasPrefix(c.want, "pollfit: --") && code != 2 || !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: exit %d, stderr\n%s\nwant it to end %s", c.name, code, got, c.want)
		}
	}
}
