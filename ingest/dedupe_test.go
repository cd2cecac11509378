package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkCounts fails unless every row read is used, excluded or dropped.
func checkCounts(t *testing.T, rep *Report) {
	t.Helper()
	if rep.Read != rep.Used+rep.Excluded+rep.DroppedTotal() {
		t.Errorf("report does not add up: %v", rep)
	}
}

// TestDedupe: --dedupe keeps the first row used of each id, in
// input order across blocks and files, and counts the others as dropped.
func TestDedupe(t *testing.T) {
	in := "id,settle_s,status,m\n" +
		"a,1,ok,x\n" +
		"b,2,pending,y\n" +
		"a,3,ok,y\n" + // a again: dropped
		"c,4,cancelled,x\n" + // excluded: its id is not taken
		"c,5,ok,x\n" +
		"b,6,ok,x\n" + // b again (the first was censored): dropped
		"d,,ok,x\n" + // empty value: dropped as empty, id not taken
		"d,7,ok,y\n" +
		" a ,8,ok,x\n" // ids are trimmed like every field
	opt := ReadOptions{Column: "settle_s", Dedupe: "id", Status: "status", Pending: []string{"pending"},
		ExcludeStatus: []string{"cancelled"}, Segment: "m", DropInvalid: true}
	for _, chunk := range []int{1 << 21, 7, 16} {
		chunkSize = chunk
		s, rep, err := ReadCSV(strings.NewReader(in), "dedupe", opt)
		chunkSize = 1 << 21
		if err != nil {
			t.Fatal(err)
		}
		if want := []float64{1, 2, 5, 7}; !slices.Equal(s.Times, want) {
			t.Errorf("chunk %d: Times = %v, want %v", chunk, s.Times, want)
		}
		if want := []bool{false, true, false, false}; !slices.Equal(s.Censored, want) {
			t.Errorf("chunk %d: Censored = %v, want %v", chunk, s.Censored, want)
		}
		if segs, want := segmentsOf(s), []string{"x", "y", "x", "y"}; !slices.Equal(segs, want) {
			t.Errorf("chunk %d: segments %v, want %v", chunk, segs, want)
		}
		if rep.Read != 9 || rep.Used != 4 || rep.Censored != 1 || rep.Excluded != 1 || rep.Dropped["duplicate id"] != 3 || rep.Dropped["empty"] != 1 {
			t.Errorf("chunk %d: report %v, want read 9, used 4 (censored 1), excluded 1, dropped 4 (duplicate id 3, empty 1)", chunk, rep)
		}
		checkCounts(t, rep)
		if rep.Repeated != 0 {
			t.Errorf("chunk %d: Repeated = %d with Dedupe, want 0 (not counted)", chunk, rep.Repeated)
		}
	}
	// Without DropInvalid an empty id is an error naming it.
	_, _, err := ReadCSV(strings.NewReader("id,t\na,1\n,2\n"), "x.csv", ReadOptions{Column: "t", Dedupe: "id"})
	if want := `x.csv: row 3, column "id": empty value`; err == nil || err.Error() != want {
		t.Errorf("empty id: %v, want %s", err, want)
	}
	// Across files, and with Parquet integer ids.
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	writeParquet(t, p1, 2, []string{"id", "t"}, map[string]any{"id": []int64{1, 2, 1}, "t": []float64{1, 2, 3}})
	writeParquet(t, p2, 2, []string{"id", "t"}, map[string]any{"id": []int64{2, 3}, "t": []float64{4, 5}})
	s, rep, err := Read([]string{p1, p2}, ReadOptions{Column: "t", Dedupe: "id"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 2, 5}; !slices.Equal(s.Times, want) || rep.Dropped["duplicate id"] != 2 {
		t.Errorf("parquet: Times %v, report %v; want %v and 2 duplicate ids", s.Times, rep, want)
	}
	checkCounts(t, rep)
	// Binned input has no rows to deduplicate.
	if _, _, err := ReadCSV(strings.NewReader("lower,upper,count\n0,1,2\n"), "b", ReadOptions{Binned: true, Dedupe: "id"}); !errors.Is(err, ErrOption) {
		t.Errorf("binned with Dedupe: %v, want ErrOption", err)
	}
}

// TestRepeatedRows: rows that repeat an earlier row exactly are
// counted and warned about: exactly up to repeatCap distinct rows, and
// estimated beyond.
func TestRepeatedRows(t *testing.T) {
	// A log written twice: every line twice (the second copy after
	// the whole first).
	lines := []string{"a,1.5,x", "b,0.25,y", "c,1.5,x", "d,2,y"}
	in := "id,t,m\n" + strings.Join(lines, "\n") + "\n" + strings.Join(lines, "\r\n") + "\n"
	for _, chunk := range []int{1 << 21, 5} {
		chunkSize = chunk
		_, rep, err := ReadCSV(strings.NewReader(in), "twice.csv", ReadOptions{Column: "t"})
		chunkSize = 1 << 21
		if err != nil {
			t.Fatal(err)
		}
		want := "4 of the 8 rows repeat an earlier row exactly (50%): if each row is one item, --dedupe COLUMN keeps the first row per id"
		if rep.Repeated != 4 || !rep.RepeatedExact || !slices.Contains(rep.Warnings, want) {
			t.Errorf("chunk %d: Repeated %d (exact %v), warnings %q; want 4, exact, %q", chunk, rep.Repeated, rep.RepeatedExact, rep.Warnings, want)
		}
	}
	// Quoted fields: the same record written with and without quotes is
	// not the same line; written alike twice, it is.
	q := "id,t\n\"a\",1\na,1\n\"b,c\",2\n\"b,c\",2\n"
	if _, rep, err := ReadCSV(strings.NewReader(q), "q.csv", ReadOptions{Column: "t"}); err != nil || rep.Repeated != 1 {
		t.Errorf("quoted: Repeated %v, %v; want 1", rep, err)
	}
	// One column: equal lines are ties, not repeats, and are not counted.
	if _, rep, err := ReadCSV(strings.NewReader("t\n1\n1\n1\n"), "one.csv", ReadOptions{Column: "t"}); err != nil || rep.Repeated != 0 || len(rep.Warnings) != 0 {
		t.Errorf("one column: %v, %v; want nothing repeated", rep, err)
	}
	// A duration with the columns read beside it (status, segment): equal
	// lines are ties of rounded values, not counted. A column not read
	// (an id) makes them repeats.
	ties := "t,status,m\n0.25,done,x\n0.25,done,x\n1,pending,y\n"
	if _, rep, err := ReadCSV(strings.NewReader(ties), "ties.csv", ReadOptions{Column: "t", Status: "status", Pending: []string{"pending"}, Segment: "m"}); err != nil || rep.Repeated != 0 || len(rep.Warnings) != 0 {
		t.Errorf("columns in use only: %v, %v; want nothing repeated", rep, err)
	}
	if _, rep, err := ReadCSV(strings.NewReader(ties), "ties.csv", ReadOptions{Column: "t", Status: "status", Pending: []string{"pending"}}); err != nil || rep.Repeated != 1 {
		t.Errorf("a column not read: %v, %v; want 1 repeated", rep, err)
	}
	// Parquet: by the columns in use, with timestamps; not with a
	// duration column alone.
	dir := t.TempDir()
	pq := filepath.Join(dir, "r.parquet")
	writeParquet(t, pq, 2, []string{"t", "created_at", "settled_at"}, map[string]any{
		"t":          []float64{1, 1, 2},
		"created_at": []*time.Time{at(0), at(0), at(0)},
		"settled_at": []*time.Time{at(time.Second), at(time.Second), at(2 * time.Second)},
	})
	if _, rep, err := Read([]string{pq}, ReadOptions{Start: "created_at", End: "settled_at"}); err != nil || rep.Repeated != 1 || len(rep.Warnings) != 1 {
		t.Errorf("parquet timestamps: %v, %v; want 1 repeated and its warning", rep, err)
	}
	if _, rep, err := Read([]string{pq}, ReadOptions{Column: "t"}); err != nil || rep.Repeated != 0 {
		t.Errorf("parquet duration column: %v, %v; want nothing counted", rep, err)
	}
}

// TestRepeatedRowsEstimate: beyond repeatCap distinct rows the count is
// estimated from a sample. With n distinct rows of which a share q is
// written twice, the true count is about q·n; the estimate counts the
// repeats among the sampled distinct rows (between repeatCap/2 and
// repeatCap of them when the sampling stops), so its relative standard
// error is at most 1/√(q·repeatCap/2): 4.9% at q = 0.2, 2.2% at q = 0.5.
// The test allows 4 standard errors.
func TestRepeatedRowsEstimate(t *testing.T) {
	const n = 200_000
	for _, q := range []float64{0.2, 0.5} {
		r := rand.New(rand.NewPCG(15, 1))
		var b bytes.Buffer
		b.WriteString("id,t,m\n")
		twice := 0
		var again []string
		for i := range n {
			line := fmt.Sprintf("pay_%08d,%.3f,card", i, r.ExpFloat64()*20)
			b.WriteString(line + "\n")
			if r.Float64() < q {
				again = append(again, line)
				twice++
			}
			if len(again) > 0 && r.Float64() < 0.3 { // repeats come a little later, interleaved
				b.WriteString(again[0] + "\n")
				again = again[1:]
			}
		}
		for _, l := range again {
			b.WriteString(l + "\n")
		}
		data := b.Bytes()
		_, rep, err := ReadCSV(bytes.NewReader(data), "big.csv", ReadOptions{Column: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.RepeatedExact {
			t.Errorf("q %v: %d distinct rows: count marked exact", q, n)
		}
		se := 1 / math.Sqrt(q*repeatCap/2)
		if rel := math.Abs(float64(rep.Repeated-twice)) / float64(twice); rel > 4*se {
			t.Errorf("q %v: Repeated = %d, want %d within %.0f%% (off by %.1f%%)", q, rep.Repeated, twice, 400*se, 100*rel)
		}
		if !strings.HasPrefix(strings.Join(rep.Warnings, "\n"), "about ") {
			t.Errorf("q %v: warnings %q, want an estimate (\"about …\")", q, rep.Warnings)
		}
		// The estimate does not depend on how the input is cut into blocks.
		chunkSize = 1 << 16
		_, rep2, err := ReadCSV(bytes.NewReader(data), "big.csv", ReadOptions{Column: "t", Workers: 1})
		chunkSize = 1 << 21
		if err != nil || rep2.Repeated != rep.Repeated {
			t.Errorf("q %v: 64 KB blocks, 1 worker: Repeated = %d, %v; want %d as with 2 MB blocks", q, rep2.Repeated, err, rep.Repeated)
		}
	}
	// No repeats, no warning, at any size.
	var u bytes.Buffer
	u.WriteString("id,t\n")
	for i := range n {
		fmt.Fprintf(&u, "%d,%d\n", i, i%100)
	}
	if _, rep, err := ReadCSV(&u, "unique.csv", ReadOptions{Column: "t"}); err != nil || rep.Repeated != 0 || len(rep.Warnings) != 0 {
		t.Errorf("unique rows: Repeated %d, warnings %q, %v", rep.Repeated, rep.Warnings, err)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
