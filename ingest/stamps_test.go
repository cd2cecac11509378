package ingest

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var stampsOptions = ReadOptions{Start: "created", LastPending: "last_pending", FirstSettled: "first_settled"}

// TestReadStamps pins the intervals read from interval timestamps, worked
// out by hand: ages count from the start; an empty last-pending time is
// the start, an empty first-settled time a pending item.
func TestReadStamps(t *testing.T) {
	csv := `id,created,last_pending,first_settled,status
a,2025-03-01T00:00:00Z,2025-03-01T00:00:03Z,2025-03-01T00:00:08Z,succeeded
b,2025-03-01T00:10:00Z,,2025-03-01T00:10:00.5Z,succeeded
c,2025-03-01T00:20:00Z,2025-03-01T00:35:00Z,,pending
d,2025-03-01T00:30:00Z,2025-03-01T00:30:16Z,2025-03-01T00:30:29Z,failed
e,2025-03-01T00:40:00Z,2025-03-01T00:40:29Z,2025-03-01T00:40:44Z,pending
f,2025-03-01T00:50:00Z,2025-03-01T00:50:29Z,2025-03-01T00:50:44Z,cancelled
`
	opt := stampsOptions
	opt.Status, opt.Pending, opt.ExcludeStatus = "status", []string{"pending"}, []string{"cancelled"}
	s, rep, err := ReadCSV(strings.NewReader(csv), "stamps.csv", opt)
	if err != nil {
		t.Fatal(err)
	}
	want := []interval{
		{3, 8, false, ""},
		{0, 0.5, false, ""},
		{900, 900, true, ""}, // pending 15 min after its start
		{16, 29, false, ""},
		{29, 29, true, ""}, // the status says pending: censored at the last pending poll
	}
	if diff := cmp.Diff(want, intervalsOf(s)); diff != "" {
		t.Errorf("intervals (-want +got):\n%s", diff)
	}
	if rep.Used != 5 || rep.Excluded != 1 || rep.Censored != 2 {
		t.Errorf("report %s", rep)
	}
	t0 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	for i, c := range s.Created {
		if want := t0.Add(time.Duration(i) * 10 * time.Minute).UnixNano(); c != want {
			t.Errorf("item %d created %d, want %d", i, c, want)
		}
	}
}

// TestReadStampsEpochParquet reads interval timestamps as epoch
// milliseconds from CSV and as Parquet timestamps, with segments and
// dedupe: the same items.
func TestReadStampsEpochParquet(t *testing.T) {
	ms := func(d time.Duration) int64 { return pqT0.Add(d).UnixMilli() }
	rows := []struct {
		id, method    string
		last, settled time.Duration // from pqT0; settled 0: pending
	}{
		{"a", "card", 3 * time.Second, 8 * time.Second},
		{"b", "momo", 59 * time.Second, 74 * time.Second},
		{"a", "card", 4 * time.Second, 9 * time.Second}, // a duplicate id: dropped
		{"c", "momo", 2 * time.Minute, 0},
	}
	var csv strings.Builder
	csv.WriteString("id,method,created,last_pending,first_settled\n")
	var ids, methods []string
	var created, last, settled []*time.Time
	for _, r := range rows {
		s := ""
		settled = append(settled, nil)
		if r.settled > 0 {
			s = fmt.Sprint(ms(r.settled))
			settled[len(settled)-1] = at(r.settled)
		}
		fmt.Fprintf(&csv, "%s,%s,%d,%d,%s\n", r.id, r.method, ms(0), ms(r.last), s)
		ids, methods = append(ids, r.id), append(methods, r.method)
		created, last = append(created, at(0)), append(last, at(r.last))
	}
	opt := stampsOptions
	opt.Segment, opt.Dedupe = "method", "id"
	want := []interval{{3, 8, false, "card"}, {59, 74, false, "momo"}, {120, 120, true, "momo"}}
	csvOpt := opt
	csvOpt.Epoch = Millisecond
	fromCSV, rep, err := ReadCSV(strings.NewReader(csv.String()), "stamps.csv", csvOpt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, intervalsOf(fromCSV)); diff != "" {
		t.Errorf("csv: intervals (-want +got):\n%s", diff)
	}
	if rep.Dropped["duplicate id"] != 1 {
		t.Errorf("csv: report %s, want a duplicate id dropped", rep)
	}
	path := filepath.Join(t.TempDir(), "stamps.parquet")
	writeParquet(t, path, 2, []string{"id", "method", "created", "last_pending", "first_settled"}, map[string]any{
		"id": ids, "method": methods, "created": created, "last_pending": last, "first_settled": settled,
	})
	fromPQ, _, err := Read([]string{path}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, intervalsOf(fromPQ)); diff != "" {
		t.Errorf("parquet: intervals (-want +got):\n%s", diff)
	}
}

// TestReadStampsErrors pins the errors of bad interval timestamps and
// options, and what --negative does with inverted intervals.
func TestReadStampsErrors(t *testing.T) {
	const head = "created,last_pending,first_settled\n"
	for _, tc := range []struct {
		name string
		opt  ReadOptions
		csv  string
		want error
		msg  string
	}{
		{"settled before pending", stampsOptions, head + "2025-03-01T00:00:00Z,2025-03-01T00:00:08Z,2025-03-01T00:00:03Z\n", ErrBadInterval,
			`row 2, column "first_settled": pending after settled: the first poll that saw the item settled, at 2025-03-01T00:00:03Z, is before the last that saw it pending, at 2025-03-01T00:00:08Z`},
		{"pending before start", stampsOptions, head + "2025-03-01T00:00:10Z,2025-03-01T00:00:08Z,2025-03-01T00:00:13Z\n", ErrEndBeforeStart, `column "last_pending"`},
		{"both empty", stampsOptions, head + "2025-03-01T00:00:10Z,,\n", ErrEmptyValue, `column "last_pending"`},
		{"bad timestamp", stampsOptions, head + "2025-03-01T00:00:10Z,soon,\n", ErrBadTimestamp, `column "last_pending"`},
		{"no start", ReadOptions{LastPending: "l", FirstSettled: "f"}, "", ErrOption, "--start"},
		{"one column", ReadOptions{Start: "s", LastPending: "l"}, "", ErrOption, "both columns"},
		{"with a duration", ReadOptions{Start: "s", LastPending: "l", FirstSettled: "f", Column: "d"}, "", ErrOption, "--column and --end do not apply"},
		{"with a poll log", ReadOptions{Start: "s", LastPending: "l", FirstSettled: "f", PollID: "id"}, "", ErrOption, "give one of the two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadCSV(strings.NewReader(tc.csv), "stamps.csv", tc.opt)
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Errorf("error %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
	// Dropped with DropInvalid, counted by reason; a last pending poll
	// before the start is clock skew, which --negative zero makes 0.
	csv := head + "2025-03-01T00:00:00Z,2025-03-01T00:00:08Z,2025-03-01T00:00:03Z\n2025-03-01T00:00:00Z,2025-03-01T00:00:01Z,2025-03-01T00:00:03Z\n2025-03-01T00:00:00Z,2025-03-01T00:00:00Z,\n"
	opt := stampsOptions
	opt.DropInvalid = true
	s, rep, err := ReadCSV(strings.NewReader(csv), "stamps.csv", opt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]interval{{1, 3, false, ""}, {0, 0, true, ""}}, intervalsOf(s)); diff != "" {
		t.Errorf("DropInvalid (-want +got):\n%s", diff)
	}
	if rep.Dropped["pending after settled"] != 1 || rep.Intervals != 1 || rep.Censored != 1 {
		t.Errorf("report %s, want 1 dropped as pending after settled, 1 interval, 1 censored", rep)
	}
	opt = stampsOptions
	opt.Negative = NegativeZero
	s, rep, err = ReadCSV(strings.NewReader(head+"2025-03-01T00:00:02Z,2025-03-01T00:00:01.5Z,2025-03-01T00:00:05Z\n"), "stamps.csv", opt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]interval{{0, 3, false, ""}}, intervalsOf(s)); diff != "" || rep.Zeroed != 1 || rep.Lowest != -0.5 {
		t.Errorf("--negative zero: %s (-want +got):\n%s", rep, diff)
	}
}
