package app

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// TestKMQuantiles checks the data section's quantiles against R's
// quantile(survfit(Surv(t, e) ~ 1), p) (survival 3.x): the smallest time
// with S(t) ≤ 1 − p, the midpoint where S(t) = 1 − p over an interval,
// NA where S stays above 1 − p.
func TestKMQuantiles(t *testing.T) {
	cens := func(e []int) []bool {
		out := make([]bool, len(e))
		for i, v := range e {
			out[i] = v == 0
		}
		return out
	}
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		s    *ingest.Sample
		ps   []float64
		want []float64 // R's output
	}{
		{"censored", &ingest.Sample{Times: []float64{1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12}, Censored: cens([]int{1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1})},
			[]float64{0.5, 0.9, 0.95, 0.99}, []float64{7, 12, 12, 12}},
		{"flat at 1 − p", &ingest.Sample{Times: []float64{1, 2, 3, 4}}, []float64{0.5, 0.75, 0.9}, []float64{2.5, 3.5, 4}},
		{"not reached", &ingest.Sample{Times: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Censored: cens([]int{1, 1, 1, 1, 1, 1, 1, 0, 0, 0})},
			[]float64{0.5, 0.9}, []float64{5.5, nan}},
	} {
		got, _ := kmQuantiles(tc.s, tc.ps)
		for i := range got {
			if !(got[i] == tc.want[i] || math.IsNaN(got[i]) && math.IsNaN(tc.want[i])) {
				t.Errorf("%s: quantile %v = %v, want %v (R survfit)", tc.name, tc.ps[i], got[i], tc.want[i])
			}
		}
	}
}

// TestReportBudgets: without --budgets the slider runs from a quarter of
// the plan's budget to four times it, the plan's in the middle; both
// budgets scale together.
func TestReportBudgets(t *testing.T) {
	r := Report{Solve: Solve{Budget: optimize.Budget{StuckPolls: 152, MeanPolls: 19}}}
	got, byMean := r.budgets(nil, nil)
	var stuck []int
	for _, b := range got {
		stuck = append(stuck, b.StuckPolls)
	}
	// 152·4^((i−4)/4), i = 0 … 8, rounded.
	if fmt.Sprint(stuck) != "[38 54 76 107 152 215 304 430 608]" || byMean {
		t.Errorf("budgets = %v (by mean %v), want [38 54 76 107 152 215 304 430 608] by stuck polls", stuck, byMean)
	}
	if got[4] != r.Solve.Budget || got[0].MeanPolls != 19.0/4 || got[8].MeanPolls != 19*4 {
		t.Errorf("budgets %v, %v, %v: want the plan's in the middle, mean polls 4.75 to 76", got[0], got[4], got[8])
	}
}

// reportSample writes a CSV of n rows per segment, lognormal settle times
// (fixed-seed PCG) with some pending, and returns its path.
func reportSample(t *testing.T, segments []string, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(12, 1))
	var b strings.Builder
	b.WriteString("settle_s,status,method\n")
	for k, seg := range segments {
		for range n {
			v := math.Exp(1 + float64(k)*0.5 + 0.8*rng.NormFloat64())
			status := "ok"
			if rng.Float64() < 0.02 {
				status = "pending"
			}
			fmt.Fprintf(&b, "%.3f,%s,%q\n", v, status, seg)
		}
	}
	path := filepath.Join(t.TempDir(), "settle.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReportPage runs the report on two segments, one of them named to
// break out of the page, and checks the page: a section per part, text
// escaped, nothing loaded from outside, the slider's steps, and the same
// schedules and scores as plan and compare print for the same flags.
func TestReportPage(t *testing.T) {
	evil := `</script><script>alert(1)</script>`
	path := reportSample(t, []string{"card", evil}, 400)
	in := Input{Paths: []string{path}, Quiet: true, MinSegmentRows: 200,
		Read: ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}, Segment: "method"}}
	solve := Solve{Budget: optimize.Budget{StuckPolls: 40}}
	var page bytes.Buffer
	err := Report{Input: in, Solve: solve, Holdout: 0.3, Seed: 1, Families: "fixed,exp", Budgets: "10..160:5",
		Command: "pollfit report", Version: "test"}.Run(&page, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if strings.Contains(html, evil) || strings.Contains(html, "<script>alert") {
		t.Error("a segment's name reaches the page unescaped")
	}
	if n := strings.Count(html, `<section class="part"`); n != 3 {
		t.Errorf("%d part sections, want 3 (all items and 2 segments)", n)
	}
	// Self-contained: no src at all, links within the page or data: URLs.
	if m := regexp.MustCompile(`\ssrc=`).FindString(html); m != "" {
		t.Errorf("the page loads %q", m)
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(html, -1) {
		if !strings.HasPrefix(m[1], "#") && !strings.HasPrefix(m[1], "data:") {
			t.Errorf("the page links to %q", m[1])
		}
	}
	if len(html) > 1<<20 {
		t.Errorf("the page is %d bytes, want at most 1 MiB", len(html))
	}

	// The slider's steps: the budgets given, starting at the plan's.
	steps := regexp.MustCompile(`(?s)<script type="application/json" id="all-steps">(.*?)</script>`).FindStringSubmatch(html)
	if steps == nil {
		t.Fatal("no slider data for all items")
	}
	var data struct {
		Steps []struct{ Label, Spec string } `json:"steps"`
		Start int                            `json:"start"`
	}
	if err := json.Unmarshal([]byte(steps[1]), &data); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, s := range data.Steps {
		labels = append(labels, s.Label)
	}
	if want := "[10 stuck polls 20 stuck polls 40 stuck polls 80 stuck polls 160 stuck polls]"; fmt.Sprint(labels) != want || data.Start != 2 {
		t.Errorf("steps %v starting at %d, want %s starting at 2", labels, data.Start, want)
	}

	// The same schedules as plan derives, part by part.
	var planOut bytes.Buffer
	if err := (Plan{Input: in, Solve: solve, Holdout: 0.3, Seed: 1, Format: "json"}).Run(&planOut, io.Discard); err != nil {
		t.Fatal(err)
	}
	var pj struct {
		Rows     []struct{ Name, Spec string } `json:"rows"`
		Segments map[string]struct {
			Rows []struct{ Name, Spec string } `json:"rows"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(planOut.Bytes(), &pj); err != nil {
		t.Fatal(err)
	}
	if want := pj.Rows[0].Spec; data.Steps[data.Start].Spec != want || !strings.Contains(html, `<p class="spec"><code>`+escape(want)+`</code>`) {
		t.Errorf("all items: the report's schedule is not plan's %q (slider: %q)", want, data.Steps[data.Start].Spec)
	}
	for seg, s := range pj.Segments {
		if !strings.Contains(html, escape(s.Rows[0].Spec)) {
			t.Errorf("segment %q: plan's schedule %q is not on the page", seg, s.Rows[0].Spec)
		}
	}

	// The families as compare tunes and scores them at the same budget.
	var cmpOut bytes.Buffer
	if err := (Compare{Input: in, Solve: solve, Holdout: 0.3, Seed: 1, Families: "fixed,exp", Format: "csv"}).Run(&cmpOut, io.Discard); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cmpOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range recs[1:] {
		if r[0] != "all" || (r[1] != "fixed" && r[1] != "exp") {
			continue
		}
		checked++
		if !strings.Contains(html, escape(r[2])) {
			t.Errorf("compare's %s %q is not on the page", r[1], r[2])
		}
	}
	if checked != 2 {
		t.Errorf("checked %d of compare's families, want 2", checked)
	}
}

// escape is html/template's escaping of text.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// TestReportChecks: the report says what plan says of the budget and
// the horizon: the expected and realised mean polls per item, a horizon
// from the data where the fit has more than 1% pending (the eu segment
// of testdata/input/regions.csv, 5% of its rows pending at 60 s), and
// what --unit ms would read whole numbers as when the unit is the
// default.
func TestReportChecks(t *testing.T) {
	run := func(in Input) string {
		t.Helper()
		in.Quiet = true
		var out bytes.Buffer
		r := Report{Input: in, Solve: Solve{Budget: optimize.Budget{StuckPolls: 10}}, Holdout: 0.3, Seed: 1, Draws: 20, Families: "fixed", Budgets: "5..10:2"}
		if err := r.Run(&out, io.Discard); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	page := run(Input{Paths: []string{"../../testdata/input/regions.csv"}, MinSegmentRows: 100,
		Read: ingest.ReadOptions{Column: "wait_s", Status: "status", Pending: []string{"pending"}, Segment: "region"}})
	for _, want := range []string{"expected vs realised mean polls",
		"the client stops polling at 3s, the horizon from the data, while the fit has 6.8% of items still pending then"} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	page = run(Input{Paths: []string{"../../testdata/input/wait_ms.csv"}, Read: ingest.ReadOptions{Column: "wait"}})
	if want := "the values are whole numbers: --unit ms would read the median 1066 as 1.066s"; !strings.Contains(page, want) {
		t.Errorf("the report lacks %q", want)
	}
}
