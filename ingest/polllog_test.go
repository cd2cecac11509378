package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// interval is one item as a poll log's reader gives it, for comparisons:
// settled in (Lower, Upper], or pending at Upper when Censored.
type interval struct {
	Lower, Upper float64
	Censored     bool
	Segment      string
}

// intervalsOf lists s's items as intervals.
func intervalsOf(s *Sample) []interval {
	out := make([]interval, s.Len())
	for i := range out {
		out[i] = interval{Lower: s.Lower[i], Upper: s.Times[i], Censored: s.IsCensored(i)}
		if s.HasSegments() {
			out[i].Segment = s.SegmentNames[s.SegmentOf(i)]
		}
	}
	return out
}

var pollLogOptions = ReadOptions{PollID: "id", Column: "age_s", Status: "status", Pending: []string{"pending"}}

// TestReadPollLog pins the intervals and counts of small poll logs worked
// out by hand: the last pending poll before the first settled one and
// that settled poll bound each item; items without a settled poll are
// censored at their last one.
func TestReadPollLog(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opt   ReadOptions
		csv   string
		want  []interval
		count PollCounts
	}{
		{
			name: "ages",
			opt:  pollLogOptions,
			csv: `id,age_s,status
a,0,pending
b,0,settled
a,3,pending
c,0,pending
a,8,succeeded
c,3,pending
`,
			// a: pending at 0 and 3, settled at 8; b: settled at its first
			// poll, at age 0; c: never settled, censored at 3.
			want:  []interval{{3, 8, false, ""}, {0, 0, false, ""}, {3, 3, true, ""}},
			count: PollCounts{Items: 3, Settled: 2, OnePoll: 1, PendingPolls: 4},
		},
		{
			name: "first poll settled, later than 0",
			opt:  pollLogOptions,
			csv:  "id,age_s,status\nx,2.5,settled\n",
			// No pending poll: the item settled after its creation, age 0.
			want:  []interval{{0, 2.5, false, ""}},
			count: PollCounts{Items: 1, Settled: 1, OnePoll: 1},
		},
		{
			name: "out of order, settled then pending, duplicates",
			opt:  pollLogOptions,
			csv: `id,age_s,status
x,8,settled
x,0,pending
y,3,pending
x,3,pending
y,3,pending
x,16,pending
y,8,settled
y,8,pending
`,
			// x, sorted: 0p 3p 8s 16p: (3, 8], and a pending poll after the
			// settled one; 0 after 8 is out of order (3 after 0 is not).
			// y: 3p 3p 8s 8p: two duplicates, (3, 8]; its pending poll at
			// 8 is not after the settled one.
			want:  []interval{{3, 8, false, ""}, {3, 8, false, ""}},
			count: PollCounts{Items: 2, Settled: 2, OutOfOrder: 1, OutOfOrderItems: 1, SettledThenPending: 1, Duplicates: 2, PendingPolls: 6},
		},
		{
			name: "excluded polls and segments",
			opt:  ReadOptions{PollID: "id", Column: "age_ms", Status: "status", Pending: []string{"pending", "processing"}, ExcludeStatus: []string{"error"}, Segment: "method"},
			csv: `id,method,age_ms,status
1,card,0,pending
2,momo,0,processing
1,card,1500,error
2,momo,2000,pending
1,card,3000,settled
2,momo,5000,failed
`,
			// The error poll saw nothing: item 1 stays (0, 3 s].
			want:  []interval{{0, 3, false, "card"}, {2, 5, false, "momo"}},
			count: PollCounts{Items: 2, Settled: 2, PendingPolls: 3},
		},
		{
			name: "timestamps from the first poll",
			opt:  ReadOptions{PollID: "id", PolledAt: "at", Status: "status", Pending: []string{"pending"}},
			csv: `id,at,status
p,2025-03-01T00:00:10Z,pending
q,2025-03-01T00:01:00.5Z,pending
p,2025-03-01T00:00:13Z,pending
p,2025-03-01T00:00:18Z,settled
q,2025-03-01T00:01:03.5Z,pending
`,
			// p's first poll is its age 0: (3, 8]; q is pending 3 s after
			// its first poll.
			want:  []interval{{3, 8, false, ""}, {3, 3, true, ""}},
			count: PollCounts{Items: 2, Settled: 1, PendingPolls: 4},
		},
		{
			name: "timestamps from a start column",
			opt:  ReadOptions{PollID: "id", PolledAt: "at", Start: "created", Status: "status", Pending: []string{"pending"}},
			csv: `id,created,at,status
p,2025-03-01T00:00:09Z,2025-03-01T00:00:10Z,pending
p,2025-03-01T00:00:09Z,2025-03-01T00:00:13Z,pending
p,2025-03-01T00:00:09Z,2025-03-01T00:00:18Z,settled
`,
			want:  []interval{{4, 9, false, ""}},
			count: PollCounts{Items: 1, Settled: 1, PendingPolls: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, rep, err := ReadCSV(strings.NewReader(tc.csv), "polls.csv", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, intervalsOf(s)); diff != "" {
				t.Errorf("intervals (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.count, *rep.Polls); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			if rep.Read != rep.Used+rep.Excluded+rep.DroppedTotal() {
				t.Errorf("read %d ≠ used %d + excluded %d + dropped %d", rep.Read, rep.Used, rep.Excluded, rep.DroppedTotal())
			}
			if rep.Censored != tc.count.Items-tc.count.Settled {
				t.Errorf("Report.Censored = %d, want %d", rep.Censored, tc.count.Items-tc.count.Settled)
			}
			intervals := 0
			for _, iv := range tc.want {
				if iv.Lower < iv.Upper {
					intervals++
				}
			}
			if rep.Intervals != intervals {
				t.Errorf("Report.Intervals = %d, want %d", rep.Intervals, intervals)
			}
			if err := s.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestReadPollLogCreated pins the creation instants of a poll log's items:
// the start column's, or the first poll's.
func TestReadPollLogCreated(t *testing.T) {
	csv := "id,created,at,status\np,2025-03-01T00:00:09Z,2025-03-01T00:00:10Z,pending\np,2025-03-01T00:00:09Z,2025-03-01T00:00:12Z,settled\n"
	t0 := time.Date(2025, 3, 1, 0, 0, 9, 0, time.UTC).UnixNano()
	for _, tc := range []struct {
		start string
		want  int64
	}{{"created", t0}, {"", t0 + 1e9}} {
		s, _, err := ReadCSV(strings.NewReader(csv), "polls.csv", ReadOptions{PollID: "id", PolledAt: "at", Start: tc.start, Status: "status", Pending: []string{"pending"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Created) != 1 || s.Created[0] != tc.want {
			t.Errorf("start %q: Created = %v, want [%d]", tc.start, s.Created, tc.want)
		}
	}
}

// TestReadPollLogReport pins the input counts' line and the warnings of a
// poll log with every check tripped.
func TestReadPollLogReport(t *testing.T) {
	csv := "id,age_s,status\nx,8,settled\nx,0,pending\nx,16,pending\ny,3,pending\ny,3,pending\nz,1,settled\n"
	_, rep, err := ReadCSV(strings.NewReader(csv), "polls.csv", pollLogOptions)
	if err != nil {
		t.Fatal(err)
	}
	want := "read 6 rows (polls): used 6, excluded 0, dropped 0; 3 items: 2 settled, 1 pending at their last poll (censored); " +
		"1 poll out of order in 1 item (sorted by age), 1 item settled then pending (the first settled poll counts), " +
		"1 duplicate poll at the age of another of the item's (one counted, a settled one first), 1 item polled once"
	if got := rep.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	for _, w := range []string{"1 item was polled pending after a poll that saw it settled", "1 poll came after a later poll"} {
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), w) {
			t.Errorf("no warning %q in %q", w, rep.Warnings)
		}
	}
}

// TestReadPollLogWarnings pins the warnings about a poll log whose
// statuses do not say what the options expect.
func TestReadPollLogWarnings(t *testing.T) {
	for _, tc := range []struct{ name, csv, want string }{
		{"no pending poll", "id,age_s,status\na,0,PENDING\na,3,done\n", `no poll has a pending status (pending in column "status")`},
		{"no settled poll", "id,age_s,status\na,0,pending\na,3,pending\n", "no poll saw its item settled"},
		{"ids of polls", "id,age_s,status\na,0,pending\nb,3,settled\nc,8,settled\n", `3 of the 3 items were polled once: is "id" the item's id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rep, err := ReadCSV(strings.NewReader(tc.csv), "polls.csv", pollLogOptions)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(rep.Warnings, "\n"), tc.want) {
				t.Errorf("warnings %q, want one with %q", rep.Warnings, tc.want)
			}
		})
	}
}

// TestReadPollLogErrors pins the errors of bad poll rows and options,
// each naming its row and column.
func TestReadPollLogErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  ReadOptions
		csv  string
		want error
		msg  string
	}{
		{"empty id", pollLogOptions, "id,age_s,status\n,3,pending\n", ErrEmptyValue, `polls.csv: row 2, column "id": empty value`},
		{"empty status", pollLogOptions, "id,age_s,status\na,3,\n", ErrEmptyValue, `row 2, column "status"`},
		{"negative age", pollLogOptions, "id,age_s,status\na,-3,pending\n", ErrNegative, `row 2, column "age_s": negative duration: "-3"`},
		{"poll before start", ReadOptions{PollID: "id", PolledAt: "at", Start: "created", Status: "status", Pending: []string{"pending"}},
			"id,created,at,status\np,2025-03-01T00:00:09Z,2025-03-01T00:00:08Z,pending\n", ErrEndBeforeStart, `row 2, column "at": end before start`},
		{"no status", ReadOptions{PollID: "id", Column: "age_s"}, "", ErrOption, "needs the status each poll saw"},
		{"no pending values", ReadOptions{PollID: "id", Column: "age_s", Status: "status"}, "", ErrOption, "--pending"},
		{"no age", ReadOptions{PollID: "id", Status: "status", Pending: []string{"pending"}}, "", ErrOption, "needs each poll's age"},
		{"both ages", ReadOptions{PollID: "id", Column: "age_s", PolledAt: "at", Status: "status", Pending: []string{"pending"}}, "", ErrOption, "not both"},
		{"dedupe", ReadOptions{PollID: "id", Column: "age_s", Status: "status", Pending: []string{"pending"}, Dedupe: "id"}, "", ErrOption, "--dedupe does not apply"},
		{"polled at alone", ReadOptions{PolledAt: "at", Status: "status", Pending: []string{"pending"}}, "", ErrOption, "give the item id column too"},
		{"binned", ReadOptions{PollID: "id", Binned: true}, "", ErrOption, "binned input takes no poll log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadCSV(strings.NewReader(tc.csv), "polls.csv", tc.opt)
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Errorf("error %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

// TestReadPollLogDropInvalid: a bad poll is dropped and counted with
// DropInvalid, and the counts still add up.
func TestReadPollLogDropInvalid(t *testing.T) {
	opt := pollLogOptions
	opt.DropInvalid = true
	s, rep, err := ReadCSV(strings.NewReader("id,age_s,status\na,0,pending\na,x,pending\na,5,settled\n,1,pending\n"), "polls.csv", opt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]interval{{0, 5, false, ""}}, intervalsOf(s)); diff != "" {
		t.Errorf("intervals (-want +got):\n%s", diff)
	}
	if rep.Read != 4 || rep.Used != 2 || rep.Dropped["not a number"] != 1 || rep.Dropped["empty"] != 1 {
		t.Errorf("report %s", rep)
	}
}

// TestReadPollLogParquet reads the same poll log from CSV and from
// Parquet (two row groups, timestamps typed) and gets the same items.
func TestReadPollLogParquet(t *testing.T) {
	dir := t.TempDir()
	ids := []string{"a", "b", "a", "c", "a", "c", "b"}
	ages := []time.Duration{0, 0, 3 * time.Second, 0, 8 * time.Second, 3 * time.Second, 4 * time.Second}
	status := []string{"pending", "pending", "pending", "pending", "settled", "pending", "failed"}
	var at []*time.Time
	var csv strings.Builder
	csv.WriteString("id,polled_at,status\n")
	for i := range ids {
		at = append(at, ptr(pqT0.Add(time.Duration(i)*time.Hour+ages[i])))
		fmt.Fprintf(&csv, "%s,%s,%s\n", ids[i], pqT0.Add(time.Duration(i)*time.Hour+ages[i]).Format(time.RFC3339Nano), status[i])
	}
	// Row i is polled at i hours and its age's seconds; ages count from
	// each id's first poll: a's polls are at 0, 2 h 3 s and 4 h 8 s.
	pq := filepath.Join(dir, "polls.parquet")
	writeParquet(t, pq, 4, []string{"id", "polled_at", "status"}, map[string]any{"id": ids, "polled_at": at, "status": status})
	opt := ReadOptions{PollID: "id", PolledAt: "polled_at", Status: "status", Pending: []string{"pending"}}
	fromPQ, repPQ, err := Read([]string{pq}, opt)
	if err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(dir, "polls.csv")
	if err := os.WriteFile(csvPath, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fromCSV, repCSV, err := Read([]string{csvPath}, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := []interval{
		{2*3600 + 3, 4*3600 + 8, false, ""}, // a
		{0, 5*3600 + 4, false, ""},          // b: pending at 0, failed 5 h 4 s later
		{2*3600 + 3, 2*3600 + 3, true, ""},  // c
	}
	for name, s := range map[string]*Sample{"parquet": fromPQ, "csv": fromCSV} {
		if diff := cmp.Diff(want, intervalsOf(s)); diff != "" {
			t.Errorf("%s: intervals (-want +got):\n%s", name, diff)
		}
	}
	if diff := cmp.Diff(*repCSV.Polls, *repPQ.Polls); diff != "" {
		t.Errorf("counts differ (-csv +parquet):\n%s", diff)
	}
	if diff := cmp.Diff(fromCSV.Created, fromPQ.Created); diff != "" {
		t.Errorf("creation instants differ (-csv +parquet):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

// TestReadPollLogChunks reads a poll log through tiny CSV blocks, so that
// an id's polls fall in many batches merged in order: the intervals are
// those of one block.
func TestReadPollLogChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,age_s,status\n")
	schedule := []float64{0, 3, 8, 16, 29, 44, 59}
	for _, age := range schedule {
		for id := range 50 {
			st := "pending"
			if float64(id%40) <= age {
				st = "settled"
			}
			fmt.Fprintf(&b, "i%02d,%g,%s\n", id, age, st)
		}
	}
	one, _, err := ReadCSV(strings.NewReader(b.String()), "polls.csv", pollLogOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { chunkSize = n }(chunkSize)
	chunkSize = 64
	many, _, err := ReadCSV(strings.NewReader(b.String()), "polls.csv", pollLogOptions)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(intervalsOf(one), intervalsOf(many)); diff != "" {
		t.Errorf("64-byte blocks (-one block +many):\n%s", diff)
	}
	// Item i settles at age i mod 40: the schedule's polls bracket it.
	for i, iv := range intervalsOf(one) {
		s := float64(i % 40)
		if iv.Censored || !(iv.Lower < s || iv.Lower == 0) || s > iv.Upper {
			t.Errorf("item %d settling at %g s: %+v", i, s, iv)
		}
	}
}

// writePollLog writes s's items as a poll log (id, age_s, status and,
// with segments, method): a pending poll at the lower bound when it is
// above 0 and a settled poll at the upper one, or a pending poll at the
// censoring age. Reading it back gives s's intervals.
func writePollLog(s *Sample) string {
	var b strings.Builder
	b.WriteString("id,age_s,status,method\n")
	for i := range s.Len() {
		seg := ""
		if s.HasSegments() {
			seg = s.SegmentNames[s.SegmentOf(i)]
			if strings.ContainsAny(seg, "\",\r\n") || seg != strings.TrimSpace(seg) {
				seg = `"` + strings.ReplaceAll(seg, `"`, `""`) + `"`
			}
		}
		age := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		if s.IsCensored(i) {
			fmt.Fprintf(&b, "i%d,%s,pending,%s\n", i, age(s.Times[i]), seg)
			continue
		}
		if s.Lower[i] > 0 {
			fmt.Fprintf(&b, "i%d,%s,pending,%s\n", i, age(s.Lower[i]), seg)
		}
		fmt.Fprintf(&b, "i%d,%s,settled,%s\n", i, age(s.Times[i]), seg)
	}
	return b.String()
}

// FuzzReadPollLog: no poll log panics the reader; what it reads is a
// valid sample of intervals (0 ≤ Lower ≤ Times, Lower = Times when
// censored) whose counts add up; and writing the intervals as a poll log
// and reading that gives the same intervals, in the same order.
func FuzzReadPollLog(f *testing.F) {
	f.Add([]byte("id,age_s,status,method\na,0,pending,card\nb,0,settled,momo\na,3,pending,card\nc,0,pending,\na,8,settled,card\nc,3,pending,\n"), false)
	f.Add([]byte("id,age_s,status,method\nx,8,settled,m\nx,0,pending,m\ny,3,pending,n\nx,3,pending,m\ny,3,pending,n\nx,16,pending,m\ny,8,settled,n\ny,8,pending,n\n"), true)
	if data, err := os.ReadFile("../fixtures/polls.csv"); err == nil {
		f.Add(data[:min(len(data), 1<<14)], false)
	}
	f.Fuzz(func(t *testing.T, data []byte, seg bool) {
		opt := pollLogOptions
		if seg {
			opt.Segment = "method"
		}
		if h, _, ok := strings.Cut(string(data), "\n"); ok && !strings.Contains(h, "age_s") {
			opt.Column, opt.PolledAt = "", "age_s" // the fixture's timestamps, or an error
		}
		s, rep, err := ReadCSV(strings.NewReader(string(data)), "fuzz.csv", opt)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		if rep.Read != rep.Used+rep.Excluded+rep.DroppedTotal() || rep.Polls.Items != s.Len() || rep.Censored != s.CensoredCount() {
			t.Fatalf("counts do not add up: %s, %d items", rep, s.Len())
		}
		for i := range s.Len() {
			if !(s.Lower[i] >= 0 && s.Lower[i] <= s.Times[i]) || s.IsCensored(i) && s.Lower[i] != s.Times[i] {
				t.Fatalf("item %d: lower %v, upper %v, censored %v", i, s.Lower[i], s.Times[i], s.IsCensored(i))
			}
		}
		again, _, err := ReadCSV(strings.NewReader(writePollLog(s)), "again.csv", ReadOptions{PollID: "id", Column: "age_s", Status: "status", Pending: []string{"pending"}, Segment: opt.Segment})
		if err != nil {
			t.Fatalf("reading the written log: %v\n%s", err, writePollLog(s))
		}
		if diff := cmp.Diff(intervalsOf(s), intervalsOf(again)); diff != "" {
			t.Fatalf("read → write → read (-first +second):\n%s", diff)
		}
	})
}
