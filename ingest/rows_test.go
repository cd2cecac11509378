package ingest

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReadDropInvalid(t *testing.T) {
	// bad_values.csv: 1.5 ok, abc, -1, empty, NaN, 2m ok (120 s).
	s, rep, err := Read([]string{ingestPath("bad_values.csv")}, ReadOptions{Column: "settle_s", DropInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1.5, 120}; !slices.Equal(s.Times, want) {
		t.Errorf("Times = %v, want %v", s.Times, want)
	}
	want := Report{Read: 6, Used: 2, Files: 1, Dropped: map[string]int{"not a number": 1, "negative": 1, "empty": 1, "not finite": 1},
		Unit: Second, UnitFrom: UnitFromName, UnitColumn: "settle_s"}
	if diff := cmp.Diff(want, *rep); diff != "" {
		t.Errorf("Report (-want +got):\n%s", diff)
	}
	// Ragged rows are dropped too.
	_, rep, err = Read([]string{ingestPath("ragged.csv")}, ReadOptions{Column: "settle_s", DropInvalid: true})
	if err != nil || rep.Dropped["wrong field count"] != 1 || rep.Used != 2 {
		t.Errorf("ragged, DropInvalid: %v, %v, want 2 used and 1 dropped", rep, err)
	}
}

// TestObservedBeforeStart: a pending row that starts after --observed-at
// is a wrong observation time, not clock skew: it fails saying so and
// what to set, with every --negative (drop would lose the pending rows,
// zero would give them age 0); --drop-invalid counts it.
func TestObservedBeforeStart(t *testing.T) {
	in := "id,created,finished,status\n" +
		"a,2025-03-01T00:00:00Z,2025-03-01T00:00:05Z,done\n" +
		"b,2025-03-01T00:10:00Z,,pending\n" +
		"c,2025-03-01T00:01:00Z,2025-03-01T00:01:07Z,done\n"
	opt := ReadOptions{Start: "created", End: "finished", Status: "status", Pending: []string{"pending"},
		ObservedAt: time.Date(2025, 3, 1, 0, 5, 0, 0, time.UTC)}
	want := `x.csv: row 3, column "finished": observation time before start: --observed-at 2025-03-01T00:05:00Z is before this pending row's start, 2025-03-01T00:10:00Z: a pending row's age runs from its start to the observation time; set --observed-at to when the log was taken, no earlier than the last start`
	for _, neg := range []Negative{NegativeError, NegativeDrop, NegativeZero} {
		o := opt
		o.Negative = neg
		_, _, err := ReadCSV(strings.NewReader(in), "x.csv", o)
		if !errors.Is(err, ErrObservedBeforeStart) || errors.Is(err, ErrEndBeforeStart) || err.Error() != want {
			t.Errorf("--negative %v: %v\nwant %s", neg, err, want)
		}
	}
	opt.DropInvalid = true
	_, rep, err := ReadCSV(strings.NewReader(in), "x.csv", opt)
	if err != nil || rep.Used != 2 || rep.Dropped["end before start"] != 1 {
		t.Errorf("--drop-invalid: %+v, %v; want 2 used, 1 dropped", rep, err)
	}
}

// TestValuesAboveMaxSeconds: values above MaxSeconds (1e300) passed the
// reader and failed in the fit without file or row. They are reader
// errors, and --drop-invalid drops them; Sample.Validate agrees.
func TestValuesAboveMaxSeconds(t *testing.T) {
	in := "t\n1.5\n1e301\n2\n"
	_, _, err := ReadCSV(strings.NewReader(in), "huge.csv", ReadOptions{Column: "t"})
	wantParseError(t, err, ErrOutOfRange, "huge.csv", `row 3, column "t"`, "1e+301")
	s, rep, err := ReadCSV(strings.NewReader(in), "huge.csv", ReadOptions{Column: "t", DropInvalid: true})
	if err != nil || len(s.Times) != 2 || rep.Dropped["out of range"] != 1 {
		t.Errorf("drop-invalid: %v, %v, %v", s, rep, err)
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
	if err := (&Sample{Times: []float64{1, 1e301}}).Validate(); err == nil {
		t.Error("Validate(1e301) = nil")
	}
	pq := filepath.Join(t.TempDir(), "huge.parquet")
	writeParquet(t, pq, 2, []string{"t"}, map[string]any{"t": []float64{1, 2, 3e300, 4}})
	_, _, err = Read([]string{pq}, ReadOptions{Column: "t", Unit: Minute}) // 3e300 min is 1.8e302 s
	wantParseError(t, err, ErrOutOfRange, pq, "row group 1, row 1")
}
