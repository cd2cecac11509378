package ingest

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestParquetWindows: Parquet row groups decode their censoring
// flags and byte labels straight into the sample (windows of it), and
// merging takes them there: with duplicate ids dropped in a row group
// whose flags were written (its window then holds stale flags past its
// items, and the next row groups' items move down over them), a row group
// with no pending row after it (its flags cleared, not left stale), and
// a file without any pending row (no flags at all); against the rows by
// hand, by one worker and two.
func TestParquetWindows(t *testing.T) {
	dir := t.TempDir()
	// Row groups of 4: ids a–d with c and d pending; e, f settled, then a,
	// c pending (repeats, dropped: their flags stay in the window past e
	// and f); g–j settled; k pending.
	ids := []string{"a", "b", "c", "d", "e", "f", "a", "c", "g", "h", "i", "j", "k"}
	status := []string{"ok", "ok", "pending", "pending", "ok", "ok", "pending", "pending", "ok", "ok", "ok", "ok", "pending"}
	method := []string{"x", "y", "x", "y", "z", "x", "z", "z", "y", "y", "x", "x", "w"}
	times := make([]float64, len(ids))
	for i := range times {
		times[i] = float64(i)
	}
	path := filepath.Join(dir, "w.parquet")
	writeParquet(t, path, 4, []string{"id", "settle_s", "status", "method"}, map[string]any{"id": ids, "settle_s": times, "status": status, "method": method})
	opt := ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}, Segment: "method", Dedupe: "id"}
	wantTimes := []float64{0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12}
	wantCens := []bool{false, false, true, true, false, false, false, false, false, false, true}
	wantSegs := []string{"x", "y", "x", "y", "z", "x", "y", "y", "x", "x", "w"}
	for _, workers := range []int{1, 2} {
		o := opt
		o.Workers = workers
		s, _, err := Read([]string{path}, o)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Times, wantTimes) || !slices.Equal(s.Censored, wantCens) || !slices.Equal(segmentsOf(s), wantSegs) || s.Segment8 == nil {
			t.Errorf("workers %d: times %v, censored %v, segments %v (a byte each %v); want %v, %v, %v", workers, s.Times, s.Censored, segmentsOf(s), s.Segment8 != nil, wantTimes, wantCens, wantSegs)
		}
		o.Pending = []string{"none"}
		s, _, err = Read([]string{path}, o)
		if err != nil {
			t.Fatal(err)
		}
		if s.Censored != nil || s.Len() != 11 {
			t.Errorf("workers %d, no pending row: %d items, censored %v; want 11, nil", workers, s.Len(), s.Censored)
		}
	}
}
