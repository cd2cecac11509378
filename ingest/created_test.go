package ingest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// t0ns is 2025-03-01T00:00:00Z in Unix nanoseconds: 1,735,689,600 s at
// 2025-01-01 plus the 59 days of January and February, 5,097,600 s.
const t0ns = (1735689600 + 59*86400) * int64(time.Second)

// clockCSV is five payments, written by hand: created_at + dur_ms =
// settled_at for each settled row; row 4 (line 4) is pending without an
// end, its dur_ms its age at the observation end clockObserved
// (01:00:00 − 00:01:00.25 = 3539.75 s); row e is cancelled.
const clockCSV = `id,method,created_at,settled_at,status,dur_ms
a,card,2025-03-01T00:00:00Z,2025-03-01T00:00:01.5Z,succeeded,1500
b,momo,2025-03-01T00:00:10Z,2025-03-01T00:05:00Z,failed,290000
c,momo,2025-03-01T00:01:00.25Z,,pending,3539750
d,card,2025-03-01T00:02:00Z,2025-03-01T00:02:00.001Z,succeeded,1
e,card,2025-03-01T00:03:00Z,2025-03-01T00:03:02Z,cancelled,2000
`

var clockObserved = time.Date(2025, 3, 1, 1, 0, 0, 0, time.UTC)

// clockWant is what every form with a timestamp reads from clockCSV, by
// hand: the settle times in seconds, the censoring flags, and the creation
// instants t0 + 0, 10 s, 60.25 s, 120 s.
var clockWant = &Sample{
	Times:        []float64{1.5, 290, 3539.75, 0.001},
	Censored:     []bool{false, false, true, false},
	Created:      []int64{t0ns, t0ns + 10e9, t0ns + 60_250e6, t0ns + 120e9},
	Segment:      []int32{0, 1, 1, 0},
	SegmentNames: []string{"card", "momo"},
}

// writeClockParquet writes clockCSV as Parquet: the timestamps as Arrow
// timestamps in ms (nullable), dur_ms as int64, two rows a row group.
func writeClockParquet(t *testing.T, path string) {
	t.Helper()
	ms := func(ms int64) *time.Time { return at(time.Duration(ms) * time.Millisecond) }
	writeParquet(t, path, 2, []string{"id", "method", "created_at", "settled_at", "status", "dur_ms"}, map[string]any{
		"id":         []string{"a", "b", "c", "d", "e"},
		"method":     []string{"card", "momo", "momo", "card", "card"},
		"created_at": []*time.Time{ms(0), ms(10_000), ms(60_250), ms(120_000), ms(180_000)},
		"settled_at": []*time.Time{ms(1500), ms(300_000), nil, ms(120_001), ms(182_000)},
		"status":     []string{"succeeded", "failed", "pending", "succeeded", "cancelled"},
		"dur_ms":     []int64{1500, 290_000, 3_539_750, 1, 2000},
	})
}

// sameSample reports how got differs from want, "" when it does not.
func sameSample(got, want *Sample) string {
	switch {
	case !slices.Equal(got.Times, want.Times):
		return fmt.Sprintf("Times = %v, want %v", got.Times, want.Times)
	case !slices.Equal(got.Created, want.Created) || (got.Created == nil) != (want.Created == nil):
		return fmt.Sprintf("Created = %v, want %v", got.Created, want.Created)
	case !slices.Equal(got.Censored, want.Censored):
		return fmt.Sprintf("Censored = %v, want %v", got.Censored, want.Censored)
	case !slices.Equal(labelsOf(got), labelsOf(want)) || !slices.Equal(got.SegmentNames, want.SegmentNames):
		return fmt.Sprintf("segments = %v %v, want %v %v", labelsOf(got), got.SegmentNames, labelsOf(want), want.SegmentNames)
	}
	return ""
}

// TestCreated: every form with a timestamp — start and end, start
// and a duration, end and a duration — gives each item the same creation
// instant and settle time, in CSV (a file and a stream) and in Parquet;
// a duration alone gives none.
func TestCreated(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "clock.csv")
	if err := os.WriteFile(csvPath, []byte(clockCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	pqPath := filepath.Join(dir, "clock.parquet")
	writeClockParquet(t, pqPath)
	st := ReadOptions{Status: "status", Pending: []string{"pending"}, ExcludeStatus: []string{"cancelled"}, Segment: "method", Unit: Millisecond}
	with := func(f func(o *ReadOptions)) ReadOptions { o := st; f(&o); return o }
	noCreated := *clockWant
	noCreated.Created = nil
	tests := []struct {
		name string
		opt  ReadOptions
		want *Sample
	}{
		{"start and end", with(func(o *ReadOptions) { o.Start, o.End, o.ObservedAt = "created_at", "settled_at", clockObserved }), clockWant},
		{"start and duration", with(func(o *ReadOptions) { o.Start, o.Column = "created_at", "dur_ms" }), clockWant},
		{"start and duration, observation time unused", with(func(o *ReadOptions) { o.Start, o.Column, o.ObservedAt = "created_at", "dur_ms", clockObserved }), clockWant},
		{"end and duration", with(func(o *ReadOptions) { o.End, o.Column, o.ObservedAt = "settled_at", "dur_ms", clockObserved }), clockWant},
		{"duration alone", with(func(o *ReadOptions) { o.Column = "dur_ms" }), &noCreated},
	}
	for _, tt := range tests {
		for _, form := range []string{"csv", "stream", "parquet"} {
			t.Run(tt.name+"/"+form, func(t *testing.T) {
				var s *Sample
				var rep *Report
				var err error
				switch form {
				case "csv":
					s, rep, err = Read([]string{csvPath}, tt.opt)
				case "stream":
					s, rep, err = ReadCSV(strings.NewReader(clockCSV), "stdin", tt.opt)
				case "parquet":
					s, rep, err = Read([]string{pqPath}, tt.opt)
				}
				if err != nil {
					t.Fatal(err)
				}
				if d := sameSample(s, tt.want); d != "" {
					t.Error(d)
				}
				if rep.Used != 4 || rep.Censored != 1 || rep.Excluded != 1 {
					t.Errorf("report %v, want used 4 (censored 1), excluded 1", rep)
				}
				if err := s.Validate(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestCreatedClockFixture: fixtures/clock.csv read by start and end, by
// start and its duration column, and by end and its duration column gives
// the same settle times, censoring and creation instants.
func TestCreatedClockFixture(t *testing.T) {
	const path = "../fixtures/clock.csv"
	obs := time.Date(2025, 3, 2, 1, 0, 0, 0, time.UTC) // the generator's ObservationEnd
	pend := func(o ReadOptions) ReadOptions {
		o.Status, o.Pending = "status", []string{"pending"}
		return o
	}
	ref, _, err := Read([]string{path}, pend(ReadOptions{Start: "created_at", End: "settled_at", ObservedAt: obs}))
	if err != nil {
		t.Fatal(err)
	}
	if ref.Len() != 5000 || ref.CensoredCount() != 131 || len(ref.Created) != 5000 {
		t.Fatalf("start and end: %d items (%d censored), %d creation instants; want 5000 (131), 5000", ref.Len(), ref.CensoredCount(), len(ref.Created))
	}
	// The first row, by hand: 2025-03-01T00:00:17.123Z, 1.323 s.
	if ref.Created[0] != t0ns+17_123e6 || ref.Times[0] != 1.323 {
		t.Errorf("row 2: created %d, settle time %v; want %d, 1.323", ref.Created[0], ref.Times[0], t0ns+17_123e6)
	}
	for _, tt := range []struct {
		name string
		opt  ReadOptions
	}{
		{"start and duration", pend(ReadOptions{Start: "created_at", Column: "settle_s"})},
		{"start and duration, no status", ReadOptions{Start: "created_at", Column: "settle_s"}},
		{"end and duration", pend(ReadOptions{End: "settled_at", Column: "settle_s", ObservedAt: obs})},
	} {
		s, _, err := Read([]string{path}, tt.opt)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := ref
		if tt.opt.Status == "" {
			want = &Sample{Times: ref.Times, Created: ref.Created}
		}
		if d := sameSample(s, want); d != "" {
			t.Errorf("%s: %s", tt.name, d[:min(len(d), 300)])
		}
	}
}

// TestCreatedEdges: the cases of a duration with a timestamp that
// are not a plain row — a pending row without end (with and without the
// observation time), no status column, an empty end on a settled status,
// negative durations under each policy, epoch timestamps, instants
// beyond the range of int64 nanoseconds — each checked against values
// worked by hand.
func TestCreatedEdges(t *testing.T) {
	const s1 = int64(time.Second)
	tests := []struct {
		name    string
		csv     string
		opt     ReadOptions
		times   []float64
		created []int64
		cens    []bool
		err     error  // the sentinel, when the read fails
		msg     string // a part of its message
		dropped map[string]int
		zeroed  int
	}{
		{
			name: "pending without end, no observation time",
			csv:  "end,d,status\n2025-03-01T00:00:01Z,1,ok\n,5,pending\n",
			opt:  ReadOptions{End: "end", Column: "d", Status: "status", Pending: []string{"pending"}},
			err:  ErrNoObservation, msg: `row 3, column "end": pending row without end time or observation time: column "d" holds its age when observation ended: give when that was (--observed-at), or the creation timestamps (--start)`,
		},
		{
			name:    "pending without end, no observation time, dropped",
			csv:     "end,d,status\n2025-03-01T00:00:01Z,1,ok\n,5,pending\n",
			opt:     ReadOptions{End: "end", Column: "d", Status: "status", Pending: []string{"pending"}, DropInvalid: true},
			times:   []float64{1},
			created: []int64{t0ns},
			cens:    nil,
			dropped: map[string]int{"no observation time": 1},
		},
		{
			name:    "pending with an end: its age then",
			csv:     "end,d,status\n2025-03-01T00:00:10Z,4,pending\n",
			opt:     ReadOptions{End: "end", Column: "d", Status: "status", Pending: []string{"pending"}},
			times:   []float64{4},
			created: []int64{t0ns + 6*s1},
			cens:    []bool{true},
		},
		{
			name:    "no status column: an empty end is pending",
			csv:     "end,d\n2025-03-01T00:00:10Z,4\n,90\n",
			opt:     ReadOptions{End: "end", Column: "d", ObservedAt: time.Unix(0, t0ns+100*s1)},
			times:   []float64{4, 90},
			created: []int64{t0ns + 6*s1, t0ns + 10*s1},
			cens:    []bool{false, true},
		},
		{
			name: "settled status with an empty end",
			csv:  "end,d,status\n,4,ok\n",
			opt:  ReadOptions{End: "end", Column: "d", Status: "status", Pending: []string{"pending"}, ObservedAt: clockObserved},
			err:  ErrEmptyValue, msg: `row 2, column "end": empty value, and status "ok" is not a pending one (pending)`,
		},
		{
			name: "start and duration: an empty start",
			csv:  "start,d\n,4\n",
			opt:  ReadOptions{Start: "start", Column: "d"},
			err:  ErrEmptyValue, msg: `row 2, column "start": empty value`,
		},
		{
			name: "end and duration: negative",
			csv:  "end,d\n2025-03-01T00:00:10Z,-0.25\n",
			opt:  ReadOptions{End: "end", Column: "d"},
			err:  ErrNegative, msg: `row 2, column "d": negative duration: "-0.25"`,
		},
		{
			name:    "end and duration: negative dropped",
			csv:     "end,d\n2025-03-01T00:00:10Z,-0.25\n2025-03-01T00:00:10Z,2\n",
			opt:     ReadOptions{End: "end", Column: "d", Negative: NegativeDrop},
			times:   []float64{2},
			created: []int64{t0ns + 8*s1},
			dropped: map[string]int{"negative": 1},
		},
		{
			// Made 0, the item settles at its end timestamp: created there.
			name:    "end and duration: negative made 0",
			csv:     "end,d\n2025-03-01T00:00:10Z,-0.25\n",
			opt:     ReadOptions{End: "end", Column: "d", Negative: NegativeZero},
			times:   []float64{0},
			created: []int64{t0ns + 10*s1},
			zeroed:  1,
		},
		{
			name:    "start and duration: negative made 0",
			csv:     "start,d\n2025-03-01T00:00:10Z,-0.25\n",
			opt:     ReadOptions{Start: "start", Column: "d", Negative: NegativeZero},
			times:   []float64{0},
			created: []int64{t0ns + 10*s1},
			zeroed:  1,
		},
		{
			name:    "start and end: end before start made 0",
			csv:     "start,end\n2025-03-01T00:00:10Z,2025-03-01T00:00:09.75Z\n",
			opt:     ReadOptions{Start: "start", End: "end", Negative: NegativeZero},
			times:   []float64{0},
			created: []int64{t0ns + 10*s1},
			zeroed:  1,
		},
		{
			name:    "epoch ms, end and duration",
			csv:     "end,d\n1740787210000,2.5\n1740787200001,0.001\n",
			opt:     ReadOptions{End: "end", Column: "d", Epoch: Millisecond},
			times:   []float64{2.5, 0.001},
			created: []int64{t0ns + 7_500_000_000, t0ns},
		},
		{
			name:    "epoch s, start and duration in ms",
			csv:     "start,d\n1740787200,1500\n1740787200.5,1\n",
			opt:     ReadOptions{Start: "start", Column: "d", Epoch: Second, Unit: Millisecond},
			times:   []float64{1.5, 0.001},
			created: []int64{t0ns, t0ns + 500_000_000},
		},
		{
			name:    "a Go duration",
			csv:     "end,d\n2025-03-01T00:01:00Z,1m30s\n",
			opt:     ReadOptions{End: "end", Column: "d"},
			times:   []float64{90},
			created: []int64{t0ns - 30*s1},
		},
		{
			// 1677-09-21T00:12:43.145224192Z is the first instant of int64
			// nanoseconds: 1677-09-22 less 48 h is before it, less 23 h
			// after it.
			name: "end and duration: created before 1677",
			csv:  "end,d\n1677-09-22T00:00:00Z,48h\n",
			opt:  ReadOptions{End: "end", Column: "d"},
			err:  ErrOutOfRange, msg: `row 2, column "d": out of range: settled 1677-09-22T00:00:00Z, a settle time of 172800 s starts before 1677-09-21T00:12:43.145224192Z`,
		},
		{
			name:    "end and duration: created before 1677, dropped",
			csv:     "end,d\n1677-09-22T00:00:00Z,48h\n1677-09-22T00:00:00Z,23h\n",
			opt:     ReadOptions{End: "end", Column: "d", DropInvalid: true},
			times:   []float64{82800},
			created: []int64{time.Date(1677, 9, 21, 1, 0, 0, 0, time.UTC).UnixNano()},
			dropped: map[string]int{"out of range": 1},
		},
		{
			name: "start and duration: settled after 2262",
			csv:  "start,d\n2262-04-10T00:00:00Z,48h\n",
			opt:  ReadOptions{Start: "start", Column: "d"},
			err:  ErrOutOfRange, msg: `row 2, column "d": out of range: started 2262-04-10T00:00:00Z, a settle time of 172800 s ends after 2262-04-11T23:47:16.854775807Z`,
		},
		{
			name: "a duration beyond 292 years",
			csv:  "start,d\n2000-01-01T00:00:00Z,1e10\n",
			opt:  ReadOptions{Start: "start", Column: "d"},
			err:  ErrOutOfRange, msg: "a settle time of 1e+10 s ends after",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rep, err := ReadCSV(strings.NewReader(tt.csv), "x.csv", tt.opt)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("error %v, want %v containing %q", err, tt.err, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Times, tt.times) || !slices.Equal(s.Created, tt.created) || !slices.Equal(s.Censored, tt.cens) {
				t.Errorf("times %v, created %v, censored %v; want %v, %v, %v", s.Times, s.Created, s.Censored, tt.times, tt.created, tt.cens)
			}
			if tt.dropped == nil {
				tt.dropped = map[string]int{}
			}
			if !mapsEqual(rep.Dropped, tt.dropped) || rep.Zeroed != tt.zeroed {
				t.Errorf("dropped %v, zeroed %d; want %v, %d", rep.Dropped, rep.Zeroed, tt.dropped, tt.zeroed)
			}
		})
	}
}

// TestParquetDate: a Parquet date column is a creation instant at
// midnight UTC of its day.
func TestParquetDate(t *testing.T) {
	mem := memory.DefaultAllocator
	db := array.NewDate32Builder(mem)
	db.AppendValues([]arrow.Date32{20148, 20149}, nil) // days since 1970: 2025-03-01, 2025-03-02
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{1500, 60_000}, nil)
	schema := arrow.NewSchema([]arrow.Field{{Name: "day", Type: arrow.FixedWidthTypes.Date32}, {Name: "wait_ms", Type: arrow.PrimitiveTypes.Int64}}, nil)
	path := filepath.Join(t.TempDir(), "d.parquet")
	rec := array.NewRecordBatch(schema, []arrow.Array{db.NewArray(), ib.NewArray()}, 2)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	if err := pqarrow.WriteTable(tbl, f, 2, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, _, err := Read([]string{path}, ReadOptions{Start: "day", Column: "wait_ms"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{t0ns, t0ns + 86400e9}; !slices.Equal(s.Created, want) || !slices.Equal(s.Times, []float64{1.5, 60}) {
		t.Errorf("created %v, times %v; want %v, [1.5 60]", s.Created, s.Times, want)
	}
}

// clockRow is one row of a generated log, in milliseconds since t0.
type clockRow struct {
	id             string
	method, status string
	start, end     int64 // end < 0: empty (pending without end)
	bad            bool  // unreadable in every column
}

// genClockRows makes n rows with distinct, increasing starts: settled,
// pending with and without an end, cancelled, a few with an end before
// the start, unreadable ones (with bad), repeated ids.
func genClockRows(rng *rand.Rand, n int, bad bool) ([]clockRow, int64) {
	var rows []clockRow
	obs := int64(0)
	start := int64(0)
	for i := range n {
		start += 1 + rng.Int64N(5000)
		r := clockRow{id: fmt.Sprintf("id%d", i), method: []string{"card", "momo", "bank"}[rng.IntN(3)], status: "ok", start: start}
		if i > 0 && rng.IntN(8) == 0 {
			r.id = rows[rng.IntN(len(rows))].id
		}
		dur := rng.Int64N(600_000)
		if rng.IntN(4) == 0 {
			dur = rng.Int64N(2000)
		}
		r.end = start + dur
		switch k := rng.IntN(20); {
		case k == 0:
			r.status, r.end = "pending", -1
		case k == 1:
			r.status = "pending"
		case k == 2:
			r.status = "cancelled"
		case k == 3:
			r.end = start - 1 - rng.Int64N(500)
		case k == 4 && bad:
			r.bad = true
		}
		obs = max(obs, r.end, start)
		rows = append(rows, r)
	}
	return rows, obs + 1 + rng.Int64N(1000)
}

// rfc formats ms since t0 as RFC 3339 in UTC.
func rfc(ms int64) string {
	return time.Unix(0, t0ns+ms*1e6).UTC().Format(time.RFC3339Nano)
}

// clockItem is what one row read gives, worked out from the row alone.
type clockItem struct {
	time    float64
	created int64
	cens    bool
	seg     string
}

// expectClock reads rows as pollfit should, independently of it: rows
// excluded, unreadable or with an end before the start dropped, later
// rows of an id dropped, each item created at its start and settled (or
// seen pending) at its end, or at obs without one.
func expectClock(rows []clockRow, obs int64) []clockItem {
	var out []clockItem
	seen := map[string]bool{}
	for _, r := range rows {
		end := r.end
		if end < 0 {
			end = obs
		}
		if r.bad || r.status == "cancelled" || end < r.start || seen[r.id] {
			continue
		}
		seen[r.id] = true
		out = append(out, clockItem{float64(end-r.start) / 1000, t0ns + r.start*1e6, r.status == "pending", r.method})
	}
	return out
}

// itemsOf lists the items of s.
func itemsOf(s *Sample, names []string) []clockItem {
	out := make([]clockItem, s.Len())
	for i := range out {
		out[i] = clockItem{s.Times[i], s.Created[i], s.IsCensored(i), ""}
		if s.HasSegments() {
			out[i].seg = names[s.SegmentOf(i)]
		}
	}
	return out
}

// checkEnds checks, for every item of s, that Created + Times·10⁹ is the
// settle instant (or the pending item's end of observation) of the row
// created then (ends, by creation instant).
func checkEnds(t *testing.T, what string, s *Sample, ends map[int64]int64) {
	t.Helper()
	if len(s.Created) != s.Len() {
		t.Fatalf("%s: %d creation instants for %d items", what, len(s.Created), s.Len())
	}
	for i, c := range s.Created {
		end, ok := ends[c]
		if got := c + int64(math.Round(s.Times[i]*1e9)); !ok || got != end {
			t.Fatalf("%s: item %d: created %d + %v s = %d, want %d (a row created then: %v)", what, i, c, s.Times[i], got, end, ok)
		}
	}
}

// TestCreatedAligned is a property test: for random logs — pending
// rows with and without an end, excluded, unreadable and repeated rows,
// ends before starts — read by each form with a timestamp, from CSV in
// tiny blocks, Parquet in small row groups, several files, a
// Hive-partitioned directory, with deduplication, dropping and segments,
// the sample is the one worked out row by row, and Created[i] +
// Times[i]·10⁹ is item i's end instant in the sample and after Subset,
// Segments and Split.
func TestCreatedAligned(t *testing.T) {
	defer func(n int) { chunkSize = n }(chunkSize)
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 14))
		n := 1 + rng.IntN(300)
		form := []string{"csv", "csv files", "hive", "parquet text", "parquet typed"}[seed%5]
		rows, obs := genClockRows(rng, n, form != "parquet typed")
		dir := t.TempDir()
		var paths []string
		order := rows
		switch form {
		case "csv":
			paths = []string{writeClockCSV(t, filepath.Join(dir, "a.csv"), rows, obs, true)}
			chunkSize = 64 + rng.IntN(200)
		case "csv files":
			k := rng.IntN(len(rows) + 1)
			writeClockCSV(t, filepath.Join(dir, "part-0.csv"), rows[:k], obs, true)
			writeClockCSV(t, filepath.Join(dir, "part-1.csv"), rows[k:], obs, true)
			paths = []string{filepath.Join(dir, "part-*.csv")}
		case "hive":
			order = nil
			for _, m := range []string{"bank", "card", "momo"} { // lexical order
				var part []clockRow
				for _, r := range rows {
					if r.method == m {
						part = append(part, r)
					}
				}
				if len(part) > 0 {
					writeClockCSV(t, filepath.Join(dir, "method="+m, "p.csv"), part, obs, false)
				}
				order = append(order, part...)
			}
			paths = []string{dir}
		case "parquet text", "parquet typed":
			p := filepath.Join(dir, "a.parquet")
			writeClockRowsParquet(t, p, rows, obs, form == "parquet typed", 1+rng.Int64N(40))
			paths = []string{p}
		}
		want := expectClock(order, obs)
		ends := map[int64]int64{}
		for _, it := range want {
			ends[it.created] = it.created + int64(math.Round(it.time*1e9))
		}
		base := ReadOptions{Status: "status", Pending: []string{"pending"}, ExcludeStatus: []string{"cancelled"},
			Segment: "method", Dedupe: "id", DropInvalid: true, Negative: NegativeDrop, Unit: Millisecond,
			ObservedAt: time.Unix(0, t0ns+obs*1e6)}
		for _, mode := range []string{"start,end", "start,dur", "end,dur"} {
			opt := base
			switch mode {
			case "start,end":
				opt.Start, opt.End = "created_at", "settled_at"
			case "start,dur":
				opt.Start, opt.Column = "created_at", "dur_ms"
			case "end,dur":
				opt.End, opt.Column = "settled_at", "dur_ms"
			}
			what := fmt.Sprintf("seed %d, %s, %s", seed, form, mode)
			s, rep, err := Read(paths, opt)
			if len(want) == 0 {
				if !errors.Is(err, ErrNoRows) {
					t.Errorf("%s: no rows to use, error %v", what, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got := itemsOf(s, s.SegmentNames); !slices.Equal(got, want) {
				t.Fatalf("%s: items differ:\n got %v\nwant %v", what, got, want)
			}
			if rep.Read != len(rows) || rep.Read != rep.Used+rep.Excluded+rep.DroppedTotal() {
				t.Errorf("%s: report %v, want %d rows read, adding up", what, rep, len(rows))
			}
			checkEnds(t, what, s, ends)
			keep := rng.Float64()
			sub := s.Subset(func(i int) bool { return float64(i%7)/7 < keep })
			checkEnds(t, what+", subset", sub, ends)
			names, parts, _ := s.Segments(1 + rng.IntN(40))
			total := 0
			for k, p := range parts {
				checkEnds(t, what+", segment "+names[k], p, ends)
				total += p.Len()
			}
			train, test := s.Split(rng.Float64()*0.9, seed)
			checkEnds(t, what+", train", train, ends)
			checkEnds(t, what+", test", test, ends)
			if total != s.Len() || train.Len()+test.Len() != s.Len() {
				t.Errorf("%s: parts hold %d, train and test %d, of %d items", what, total, train.Len()+test.Len(), s.Len())
			}
		}
	}
}

// writeClockCSV writes rows as CSV at path; with method, the method column
// too (else a Hive partition gives it). The duration of a row without end
// is its age at obs. An unreadable row has "x" in every column but the
// id.
func writeClockCSV(t *testing.T, path string, rows []clockRow, obs int64, method bool) string {
	t.Helper()
	var b strings.Builder
	if method {
		b.WriteString("method,")
	}
	b.WriteString("id,created_at,settled_at,status,dur_ms\n")
	for _, r := range rows {
		if method {
			b.WriteString(r.method + ",")
		}
		start, end, dur := rfc(r.start), "", strconv.FormatInt(obs-r.start, 10)
		if r.end >= 0 {
			end = rfc(r.end)
			dur = strconv.FormatInt(r.end-r.start, 10)
		}
		if r.bad {
			start, end, dur = "x", "x", "x"
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s\n", r.id, start, end, r.status, dur)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeClockRowsParquet writes rows as Parquet: timestamps as text, or
// typed (Arrow timestamps in ms, nullable; dur_ms int64), group rows a
// row group; as writeClockCSV.
func writeClockRowsParquet(t *testing.T, path string, rows []clockRow, obs int64, typed bool, group int64) {
	t.Helper()
	var ids, methods, status, startS, endS, durS []string
	var startT, endT []*time.Time
	var durI []int64
	for _, r := range rows {
		ids, methods, status = append(ids, r.id), append(methods, r.method), append(status, r.status)
		st := at(time.Duration(r.start) * time.Millisecond)
		var et *time.Time
		e, dur := "", obs-r.start
		if r.end >= 0 {
			et = at(time.Duration(r.end) * time.Millisecond)
			e, dur = rfc(r.end), r.end-r.start
		}
		d := strconv.FormatInt(dur, 10)
		s := rfc(r.start)
		if r.bad {
			s, e, d = "x", "x", "x"
		}
		startS, endS, durS = append(startS, s), append(endS, e), append(durS, d)
		startT, endT, durI = append(startT, st), append(endT, et), append(durI, dur)
	}
	cols := map[string]any{"id": ids, "method": methods, "status": status, "created_at": startS, "settled_at": endS, "dur_ms": durS}
	if typed {
		cols["created_at"], cols["settled_at"], cols["dur_ms"] = startT, endT, durI
	}
	writeParquet(t, path, group, []string{"id", "method", "created_at", "settled_at", "status", "dur_ms"}, cols)
}
