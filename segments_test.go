package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Issue 15, "segments everywhere": compare, sweep and evaluate honour
// --segment with one result per payment method, and every --plot draws
// one figure per method.

// paymentArgs read the payments fixture with its pending rows censored.
var paymentArgs = []string{"-i", "fixtures/payments.csv", "-c", "settle_s", "--status", "status", "--pending", "pending", "-q"}

// methods are the payment methods of the fixture, in name order.
var methods = []string{"bank", "card", "momo", "wallet"}

// segmentCommands are compare, sweep and evaluate on the payments fixture,
// kept small; out names each command's machine-readable format. Ages are
// given: without --at they follow the horizon of all items, which a
// segment alone does not share.
var segmentCommands = []struct {
	name string
	args []string
	out  string // json or csv
}{
	{"compare", []string{"compare", "--budget", "37", "--families", "exp,fixed", "--format", "json", "--at", "30s,2m"}, "json"},
	{"compare-csv", []string{"compare", "--mean-polls", "6", "--families", "exp", "--phases", "2", "--format", "csv", "--at", "30s,2m"}, "csv"},
	{"sweep", []string{"sweep", "--budgets", "20..60:2", "--families", "exp", "--phases", "exact", "-s", "before"}, "csv"},
	{"evaluate", []string{"evaluate", "-s", "now", "-s", "before", "--format", "json"}, "json"},
	{"evaluate-csv", []string{"evaluate", "-s", "now", "--polls", "--format", "csv"}, "csv"},
}

// table reads a command's output as records keyed by column: CSV as it
// is, JSON's "rows" (and compare's "segments") flattened to strings.
func table(t *testing.T, format, out string) []map[string]string {
	t.Helper()
	var recs []map[string]string
	if format == "csv" {
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows[1:] {
			m := map[string]string{}
			for i, h := range rows[0] {
				m[h] = r[i]
			}
			recs = append(recs, m)
		}
		return recs
	}
	var doc struct {
		Rows []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Rows {
		m := map[string]string{}
		for k, v := range r {
			m[k] = string(v)
			var s string
			if json.Unmarshal(v, &s) == nil {
				m[k] = s
			}
		}
		recs = append(recs, m)
	}
	return recs
}

func runOK(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("pollfit %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout, stderr
}

// TestIssue15SegmentColumn: with --segment every row of the CSV and JSON
// output names its segment, all items first, and each segment has as
// many rows as all items do (one result per schedule and method).
func TestIssue15SegmentColumn(t *testing.T) {
	for _, c := range segmentCommands {
		t.Run(c.name, func(t *testing.T) {
			stdout, _ := runOK(t, slices.Concat(c.args, paymentArgs, []string{"--segment", "method"})...)
			recs := table(t, c.out, stdout)
			count := map[string]int{}
			var order []string
			for i, r := range recs {
				seg, ok := r["segment"]
				if !ok || seg == "" {
					t.Fatalf("row %d has no segment: %v", i, r)
				}
				if len(order) == 0 || order[len(order)-1] != seg {
					order = append(order, seg)
				}
				count[seg]++
			}
			if want := append([]string{"all"}, methods...); !cmp.Equal(order, want) {
				t.Errorf("segments in order %v, want %v", order, want)
			}
			for _, m := range methods {
				if count[m] != count["all"] || count[m] == 0 {
					t.Errorf("segment %s has %d rows, all items %d", m, count[m], count["all"])
				}
			}
			// Without --segment the column is there too: one schema.
			stdout, _ = runOK(t, slices.Concat(c.args, paymentArgs)...)
			for i, r := range table(t, c.out, stdout) {
				if r["segment"] != "all" {
					t.Errorf("without --segment, row %d segment = %q, want all", i, r["segment"])
				}
			}
		})
	}
}

// writeSegmentFiles writes the payments fixture's rows of each method to
// its own CSV file, filtered here rather than by pollfit.
func writeSegmentFiles(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("fixtures/payments.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "method")
	dir := t.TempDir()
	files := map[string]string{}
	for _, m := range methods {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		w.Write(rows[0])
		n := 0
		for _, r := range rows[1:] {
			if r[col] == m {
				w.Write(r)
				n++
			}
		}
		w.Flush()
		if n < 1000 {
			t.Fatalf("method %s has %d rows; the fixture has at least 1,366 per method", m, n)
		}
		files[m] = filepath.Join(dir, m+".csv")
		if err := os.WriteFile(files[m], b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// withInput replaces the fixture in paymentArgs by path.
func withInput(path string) []string {
	args := slices.Clone(paymentArgs)
	args[1] = path
	return args
}

// TestIssue15SegmentMatchesOwnRows: a segment's rows are what the
// command gives on that segment's rows alone (its own fit, its own tuned
// families, its own hold-out split), for every command that reports per
// segment.
func TestIssue15SegmentMatchesOwnRows(t *testing.T) {
	files := writeSegmentFiles(t)
	for _, c := range segmentCommands {
		t.Run(c.name, func(t *testing.T) {
			stdout, _ := runOK(t, slices.Concat(c.args, paymentArgs, []string{"--segment", "method", "--min-segment-rows", "0"})...)
			bySeg := map[string][]map[string]string{}
			for _, r := range table(t, c.out, stdout) {
				bySeg[r["segment"]] = append(bySeg[r["segment"]], r)
			}
			for _, m := range methods {
				alone, _ := runOK(t, slices.Concat(c.args, withInput(files[m]))...)
				want := table(t, c.out, alone)
				for _, r := range want {
					r["segment"] = m
				}
				if diff := cmp.Diff(want, bySeg[m]); diff != "" {
					t.Errorf("segment %s differs from its rows alone (-alone +segment):\n%s", m, diff)
				}
			}
		})
	}
	// compare's JSON says which items each segment was fitted and scored on.
	t.Run("compare-notes", func(t *testing.T) {
		args := []string{"compare", "--budget", "37", "--families", "none", "--format", "json"}
		stdout, _ := runOK(t, slices.Concat(args, paymentArgs, []string{"--segment", "method"})...)
		var got struct {
			Segments []struct {
				Segment string `json:"segment"`
				Note    string `json:"note"`
				Fitted  int    `json:"fitted"`
				Scored  int    `json:"scored"`
			} `json:"segments"`
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Segments) != len(methods) {
			t.Fatalf("segments = %+v, want one per method", got.Segments)
		}
		for i, m := range methods {
			alone, _ := runOK(t, slices.Concat(args, withInput(files[m]))...)
			var want struct {
				Note   string `json:"note"`
				Fitted int    `json:"fitted"`
				Scored int    `json:"scored"`
			}
			if err := json.Unmarshal([]byte(alone), &want); err != nil {
				t.Fatal(err)
			}
			s := got.Segments[i]
			if s.Segment != m || s.Note != want.Note || s.Fitted != want.Fitted || s.Scored != want.Scored {
				t.Errorf("segment %d = %+v, want %s %+v", i, s, m, want)
			}
		}
	})
}

// TestIssue15SegmentPlots: every --plot with --segment writes one whole
// figure for all items and one per method, FILE-METHOD.EXT, titled with
// the segment, and names them on stderr.
func TestIssue15SegmentPlots(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		ext  string
	}{
		{"plan", []string{"plan", "--budget", "37"}, ".png"},
		{"fit", []string{"fit", "-o", os.DevNull}, ".svg"},
		{"evaluate", []string{"evaluate", "-s", "now", "-s", "before"}, ".svg"},
		{"sweep", []string{"sweep", "--budgets", "20..40:2", "--families", "exp", "--phases", "exact", "-o", os.DevNull}, ".png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tc.name+tc.ext)
			args := slices.Concat(tc.args, paymentArgs, []string{"--segment", "method", "--plot", path})
			args = slices.DeleteFunc(args, func(a string) bool { return a == "-q" }) // stderr lists the files
			_, stderr := runOK(t, args...)
			want := []string{path}
			listed := []string{path + " (all items)"}
			for _, m := range methods {
				f := filepath.Join(dir, tc.name+"-"+m+tc.ext)
				want = append(want, f)
				listed = append(listed, fmt.Sprintf("%s (%q)", f, m))
			}
			if line := "plots: " + strings.Join(listed, ", ") + "\n"; !strings.Contains(stderr, line) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, line)
			}
			for i, f := range want {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if tc.ext == ".png" {
					if _, err := png.Decode(bytes.NewReader(b)); err != nil {
						t.Errorf("%s: %v", f, err)
					}
					continue
				}
				if !bytes.HasPrefix(b, []byte("<?xml")) || !bytes.HasSuffix(bytes.TrimSpace(b), []byte("</svg>")) {
					t.Errorf("%s is not a whole SVG document", f)
				}
				// The figure says which segment it shows (SVG text is searchable).
				if i > 0 && !bytes.Contains(b, []byte("segment "+methods[i-1])) {
					t.Errorf("%s does not name segment %s", f, methods[i-1])
				}
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != len(want) {
				t.Errorf("%d files in the plot directory, want %d (no temporary files left)", len(entries), len(want))
			}
		})
	}
}

// TestIssue18PlanSegmentsReadTwice: with --segment, plan reads a file's
// rows again for the segments, so that all items' plan may reorder them
// in place (docs/performance.md, Memory); from standard input, which
// cannot be read twice, it keeps them and gives them back in their order.
// Both give the same plan, table and JSON, and its all-items part is the
// plan without --segment.
func TestIssue18PlanSegmentsReadTwice(t *testing.T) {
	args := []string{"plan", "--budget", "37", "--segment", "method", "--holdout", "0.3"}
	for _, format := range []string{"table", "json"} {
		t.Run(format, func(t *testing.T) {
			a := slices.Concat(args, []string{"--format", format})
			fromFile, _ := runOK(t, slices.Concat(a, paymentArgs)...)
			f, err := os.Open("fixtures/payments.csv")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var fromStdin string
			withStdin(t, f, func() {
				fromStdin, _ = runOK(t, slices.Concat(a, []string{"-i", "-"}, paymentArgs[2:])...)
			})
			// The input named as read: its first line, its JSON source.
			fromStdin = strings.Replace(fromStdin, "input: stdin;", "input: fixtures/payments.csv;", 1)
			fromStdin = strings.Replace(fromStdin, `"source": "stdin"`, `"source": "fixtures/payments.csv"`, 1)
			if diff := cmp.Diff(fromStdin, fromFile); diff != "" {
				t.Errorf("plan --segment of a file differs from the same rows on standard input (-stdin +file):\n%s", diff)
			}
			if !strings.Contains(fromFile, "momo") {
				t.Errorf("plan --segment printed no segment momo:\n%s", fromFile)
			}
		})
	}
	plain, _ := runOK(t, slices.Concat([]string{"plan", "--budget", "37", "--holdout", "0.3", "--format", "json"}, paymentArgs)...)
	seg, _ := runOK(t, slices.Concat(args, []string{"--format", "json"}, paymentArgs)...)
	var a, b map[string]any
	if err := json.Unmarshal([]byte(plain), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(seg), &b); err != nil {
		t.Fatal(err)
	}
	delete(b, "segments")
	if sched, ok := b["schedule"].(map[string]any); ok {
		delete(sched, "segments")
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("plan --segment's all items differ from plan alone (-alone +segmented):\n%s", diff)
	}
}
