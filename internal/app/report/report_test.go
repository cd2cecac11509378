package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pollfit/pollfit/optimize"
)

func f(v float64) *float64 { return &v }

// rows are two schedules scored on data, by hand: "now" polls 31 times by
// 30 s and 76 by 2 m; "fixed" 6 and 21.
var rows = []Row{
	{Name: "now", Spec: "every 1s until 30s, every 2s until 2m", PollsBy: PollsBy{Labels: []string{"30s", "2m"}, Values: []float64{31, 76}},
		StuckPolls: 76, MeanPolls: f(18.58), MeanLag: f(0.7202), MedianLag: f(0.56), P95Lag: f(1.47), P99Lag: f(5.39), Caught: f(0.99)},
	{Name: "fixed", Spec: "every 6s until 2m", PollsBy: PollsBy{Labels: []string{"30s", "2m"}, Values: []float64{6, 21}},
		StuckPolls: 21, MeanPolls: f(7.125), MeanLag: f(3.8249), MedianLag: f(4.4), P95Lag: f(5.7), P99Lag: f(5.9), Caught: f(0.99)},
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, rows, "scored on 2 items"); err != nil {
		t.Fatal(err)
	}
	want := `scored on 2 items
  schedule  by 30s  by 2m  stuck  mean polls  mean lag  median    p95    p99  caught
       now      31     76     76       18.58     0.72s   0.56s  1.47s  5.39s   99.0%
     fixed       6     21     21        7.12     3.82s   4.40s  5.70s  5.90s   99.0%
  now:         every 1s until 30s, every 2s until 2m
  fixed:       every 6s until 2m
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Table (-want +got):\n%s", diff)
	}
}

// TestTableWithoutData: rows without data (no lag) print counts only, and
// a fractional count (a jittered mean) one decimal.
func TestTableWithoutData(t *testing.T) {
	var b bytes.Buffer
	r := []Row{{Name: "jit", Spec: "exp 1s x2 cap 1m until 15m, jitter full", PollsBy: PollsBy{Labels: []string{"15m"}, Values: []float64{19.25}}, StuckPolls: 19.25}}
	if err := Table(&b, r, ""); err != nil {
		t.Fatal(err)
	}
	want := `  schedule  by 15m  stuck
       jit    19.2   19.2
  jit:         exp 1s x2 cap 1m until 15m, jitter full
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Table (-want +got):\n%s", diff)
	}
}

// TestTableLongSpec: a spec over 160 characters is cut at a comma and says
// how many items it has.
func TestTableLongSpec(t *testing.T) {
	items := make([]string, 60)
	for i := range items {
		items[i] = "1.5s"
	}
	r := []Row{{Name: "exact", Spec: strings.Join(items, ", ")}}
	var b bytes.Buffer
	if err := Table(&b, r, ""); err != nil {
		t.Fatal(err)
	}
	last := strings.Split(strings.TrimSpace(b.String()), "\n")[2]
	if !strings.HasSuffix(last, "1.5s, … (60 items in all)") || len(last) > 14+160+30 {
		t.Errorf("long spec line = %q", last)
	}
}

func TestCSV(t *testing.T) {
	r := rows[1]
	r.Segment = "card"
	r.Polls = []float64{0, 6, 12}
	var b bytes.Buffer
	if err := CSV(&b, []Row{r}); err != nil {
		t.Fatal(err)
	}
	want := "segment,name,spec,polls_by_30s,polls_by_2m,stuck_polls,mean_polls,mean_lag_s,median_lag_s,p95_lag_s,p99_lag_s,caught,polls\n" +
		"card,fixed,every 6s until 2m,6,21,21,7.125,3.8249,4.4,5.7,5.9,0.99,0 6 12\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
}

// TestPollsByJSON: the ages keep the order the user gave, not sorted, and
// read back the same.
func TestPollsByJSON(t *testing.T) {
	p := PollsBy{Labels: []string{"15m", "30s", "2m"}, Values: []float64{152, 31, 76}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"15m":152,"30s":31,"2m":76}`; got != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	var back PollsBy
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// Poll times print as the durations they are: 10.851 s, not
// Duration.Seconds()'s 10.850999999999999 (a new user's evaluate --polls).
func TestNewRowPollSeconds(t *testing.T) {
	r := NewRow(optimize.Score{StuckPolls: 3}, nil, []time.Duration{0, 1200 * time.Millisecond, 10851 * time.Millisecond})
	if got, want := pollList(r.Polls), "polls at 0 1.2 10.851 s"; got != want {
		t.Errorf("pollList = %q, want %q", got, want)
	}
}
