package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestMain has the in-process runs read no standard input: without
// --input a command reads data piped in (app.StdinData), and go test's
// own standard input is whatever the caller gave it.
func TestMain(m *testing.M) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		panic(err)
	}
	stdin = null
	os.Exit(m.Run())
}

// withStdin runs fn with the commands' standard input reading f.
func withStdin(t *testing.T, f *os.File, fn func()) {
	t.Helper()
	old := stdin
	stdin = f
	defer func() { stdin = old }()
	fn()
}

// pipeOf returns the read end of a pipe whose write end gets data and is
// closed: data piped in, as cat data.csv | pollfit plan gives it.
func pipeOf(t *testing.T, data []byte) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(data)
		w.Close()
	}()
	t.Cleanup(func() { r.Close() })
	return r
}

// A command without --input reads the data piped in (as --input -), and
// says so on stderr; never the bundled data.
func TestStdinPipeIsRead(t *testing.T) {
	data, err := os.ReadFile("fixtures/latency.csv")
	if err != nil {
		t.Fatal(err)
	}
	var viaPipe, viaFlag [2]string
	withStdin(t, pipeOf(t, data), func() {
		var code int
		viaPipe[0], viaPipe[1], code = runCLI(t, "plan", "-c", "Latency(ms)", "--budget", "10")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, viaPipe[1])
		}
	})
	golden(t, "plan_stdin_pipe.stdout", viaPipe[0])
	golden(t, "plan_stdin_pipe.stderr", viaPipe[1])
	// The same plan as --input - on the same bytes, and as the file.
	withStdin(t, pipeOf(t, data), func() {
		viaFlag[0], viaFlag[1], _ = runCLI(t, "plan", "-i", "-", "-c", "Latency(ms)", "--budget", "10")
	})
	if viaFlag[0] != viaPipe[0] {
		t.Errorf("plan on data piped in without --input differs from plan -i -:\n%s\nwant\n%s", viaPipe[0], viaFlag[0])
	}
	file, _, _ := runCLI(t, "plan", "-i", "fixtures/latency.csv", "-c", "Latency(ms)", "--budget", "10")
	if got, want := strings.SplitN(viaPipe[0], "\n", 2)[1], strings.SplitN(file, "\n", 2)[1]; got != want {
		t.Errorf("plan on data piped in differs from plan -i fixtures/latency.csv below the input line:\n%s\nwant\n%s", got, want)
	}
}

// A file redirected to standard input (pollfit plan < data.csv) is data
// too; without --column the error names standard input, not a file.
func TestStdinRedirectedFile(t *testing.T) {
	f, err := os.Open("fixtures/latency.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	withStdin(t, f, func() {
		stdout, stderr, code := runCLI(t, "plan", "--budget", "10", "-q")
		if code != 2 {
			t.Errorf("exit %d, want 2 (stdout %q)", code, stdout)
		}
		const want = "pollfit: --column is required with data on standard input: name the column that holds settle times (or give --start and --end)\n"
		if stderr != want {
			t.Errorf("stderr = %q, want %q", stderr, want)
		}
	})
}

// An empty pipe (a harness that closes standard input at once) is no
// data: plan runs on the bundled data, as with /dev/null, and warns that
// nothing was piped in, even with -q; /dev/null and a terminal are no
// data and say nothing.
func TestStdinEmpty(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stdin  func() *os.File
		stderr string
	}{
		{"empty pipe", func() *os.File { return pipeOf(t, nil) },
			"warning: standard input (a pipe) is empty: planning on the bundled example data, Julia CI job durations; give --input FILE for yours\n"},
		{"dev null", func() *os.File {
			f, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withStdin(t, tc.stdin(), func() {
				stdout, stderr, code := runCLI(t, "plan", "-q", "--budget", "5")
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if stderr != tc.stderr {
					t.Errorf("stderr = %q, want %q", stderr, tc.stderr)
				}
				first, _, _ := strings.Cut(stdout, "\n")
				if want := `input: julia_ci_job_durations.csv (bundled); unit: s (from the column name "duration_s"; --unit overrides)`; first != want {
					t.Errorf("first line %q, want %q", first, want)
				}
			})
		})
	}
}

// Without --input, a flag that names the user's data fails naming that
// flag, or the bundled data as such: never a file the user did not name
// (plan --column Latency(ms) said "julia_ci_job_durations.csv: row 1,
// column ...").
func TestBundledErrorsNameNoFile(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"plan", "--budget", "10", "--column", "Latency(ms)"}, 2,
			"pollfit: --column Latency(ms) names a column of your data: give the file with --input FILE, or pipe it in; without them the bundled example data is read, Julia CI job durations (column duration_s)\n"},
		{[]string{"plan", "--budget", "10", "--status", "status", "-q"}, 1,
			"pollfit: the bundled example data (Julia CI job durations; no --input given): row 1, column \"status\": column not found; the header has job, build, date_utc, duration_s, commit\n"},
	} {
		_, stderr, code := runCLI(t, tc.args...)
		if code != tc.code || stderr != tc.stderr {
			t.Errorf("%s: exit %d, stderr %q; want exit %d, %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.stderr)
		}
		if strings.Contains(stderr, "julia_ci_job_durations.csv") {
			t.Errorf("%s: the error names the bundled file: %s", strings.Join(tc.args, " "), stderr)
		}
	}
}

// The JSON's input says where the rows came from and, for whole numbers
// read in seconds by default, what --unit ms would read (the median of
// testdata/input/wait_ms.csv is 1066: sort -n, the 200th of 400).
func TestPlanJSONInputUnit(t *testing.T) {
	stdout, stderr, code := runCLI(t, "plan", "-i", "testdata/input/wait_ms.csv", "-c", "wait", "--budget", "10", "-f", "json", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Input map[string]any `json:"input"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"source":    "testdata/input/wait_ms.csv",
		"unit":      "s",
		"unit_from": "default",
		"unit_hint": "the values are whole numbers: --unit ms would read the median 1066 as 1.066s",
	}
	for k, v := range want {
		if got.Input[k] != v {
			t.Errorf("input.%s = %v, want %v", k, got.Input[k], v)
		}
	}
}
