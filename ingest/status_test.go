package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReadWarnsUnmatchedStatus: a pending or excluded status that no row
// has is reported, since its rows silently count as settled otherwise.
func TestReadWarnsUnmatchedStatus(t *testing.T) {
	in := "settle_s,status\n1,succeeded\n2,pending\n3,failed\n"
	_, rep, err := ReadCSV(strings.NewReader(in), "x.csv", ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pendin"}, ExcludeStatus: []string{"faild"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`no row has a pending status (pendin in column "status"): nothing is censored; values seen include failed, pending, succeeded`,
		`no row has an excluded status (faild in column "status"): nothing was left out; values seen include failed, pending, succeeded`,
	}
	if !slices.Equal(rep.Warnings, want) || rep.Censored != 0 || rep.Used != 3 {
		t.Errorf("warnings %q (censored %d, used %d), want %q", rep.Warnings, rep.Censored, rep.Used, want)
	}
	_, rep, _ = ReadCSV(strings.NewReader(in), "x.csv", ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}, ObservedAt: time.Now()})
	if want := `the observation time is not used: pending rows' ages come from the duration column "settle_s"`; !slices.Contains(rep.Warnings, want) {
		t.Errorf("observed-at with a duration column: warnings %q, want %q", rep.Warnings, want)
	}
	_, rep, err = ReadCSV(strings.NewReader(in), "x.csv", ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}, ExcludeStatus: []string{"failed"}})
	if err != nil || len(rep.Warnings) != 0 || rep.Censored != 1 || rep.Excluded != 1 {
		t.Errorf("matching statuses: warnings %q, censored %d, excluded %d, err %v", rep.Warnings, rep.Censored, rep.Excluded, err)
	}
}

// TestUnusedStatusPeek: a "status" column while none is set is warned
// about when the rows at either end of a CSV input say pending (logs are
// in time order: pending items are the last rows), in any case, named
// with the values seen; not when they hold settled outcomes alone (the
// README's latency example); the same however the file is read (mapped,
// in blocks, from a pipe's first bytes). Parquet, not looked into, gets
// the warning without values.
func TestUnusedStatusPeek(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		rows int
		last string
		want string // "" for no warning
	}{
		{"settled outcomes", 5000, "failed", ""},
		{"running last of 5000", 5000, "Running", `the input has a "status" column whose values include Running (values seen: Running, failed, succeeded), but no status column is set (--status): every row counts as settled, those included; set --status status --pending Running`},
		{"in_progress last of 700000 (mapped)", 700000, "IN_PROGRESS", `the input has a "status" column whose values include IN_PROGRESS (values seen: IN_PROGRESS, failed, succeeded), but no status column is set (--status): every row counts as settled, those included; set --status status --pending IN_PROGRESS`},
		{"a word containing one", 5000, "unopened", ""},
	} {
		var b strings.Builder
		b.WriteString("settle_s,status\n")
		for i := range c.rows - 1 {
			fmt.Fprintf(&b, "%d.5,%s\n", i%7, []string{"succeeded", "failed"}[i%2])
		}
		fmt.Fprintf(&b, "1,%s\n", c.last)
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".csv")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{1 << 21, 4096} {
			chunkSize = chunk
			s, rep, err := Read([]string{path}, ReadOptions{Column: "settle_s"})
			chunkSize = 1 << 21
			if err != nil || s.Len() != c.rows {
				t.Fatalf("%s: %v, %d rows", c.name, err, s.Len())
			}
			got := ""
			for _, w := range rep.Warnings {
				if strings.Contains(w, `"status" column`) {
					got = w
				}
			}
			if got != c.want {
				t.Errorf("%s, chunk %d: warning %q, want %q", c.name, chunk, got, c.want)
			}
		}
	}
	pq := filepath.Join(dir, "s.parquet")
	writeParquet(t, pq, 2, []string{"settle_s", "status"}, map[string]any{"settle_s": []float64{1, 2}, "status": []string{"succeeded", "failed"}})
	_, rep, err := Read([]string{pq}, ReadOptions{Column: "settle_s"})
	want := `the input has a "status" column, but no status column is set (--status): every row counts as settled; if some are pending, set --status status --pending VALUE`
	if err != nil || !slices.Contains(rep.Warnings, want) {
		t.Errorf("parquet: warnings %q, %v", rep.Warnings, err)
	}
}

// TestStatusWithoutPending: a status column set (--status) with no
// pending value censors nothing, so rows whose status says pending count
// as settled; the ends of a CSV input are peeked as for an unused status
// column (TestUnusedStatusPeek), here in the column set, whatever its
// name, and the warning names --pending with the values; settled
// outcomes alone, or --pending given, warn nothing, unless other values
// at the ends read as pending (processing beside --pending pending);
// Parquet, not looked into, gets the warning without values.
func TestStatusWithoutPending(t *testing.T) {
	dir := t.TempDir()
	write := func(name, col, last string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "settle_s,%s\n", col)
		for i := range 4999 {
			fmt.Fprintf(&b, "%d.5,%s\n", i%7, []string{"settled", "failed"}[i%2])
		}
		fmt.Fprintf(&b, "9,%s\n", last)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		name, col, last string
		pending         []string
		want            string
	}{
		{"pending last", "status", "pending", nil, `the status column "status" has values pending (values seen: failed, pending, settled), but no pending value is given (--pending): every row counts as settled, those included; add --pending pending`},
		{"another name", "state", "Running", nil, `the status column "state" has values Running (values seen: Running, failed, settled), but no pending value is given (--pending): every row counts as settled, those included; add --pending Running`},
		{"settled outcomes", "status", "failed", nil, ""},
		{"pending given", "status", "pending", []string{"pending"}, ""},
		// A second reviewer: --pending pending where some pending rows say
		// processing counted those as settled without a word.
		{"another pending value", "status", "pending\n9,processing", []string{"pending"}, `the status column "status" also has processing (values seen: failed, pending, processing, settled), which is not among the --pending values (pending): those rows count as settled; if they are still pending, add --pending pending,processing`},
		{"both given", "status", "pending\n9,processing", []string{"pending", "processing"}, ""},
		// A --pending value no row has (a typo) is warned about once the
		// rows are read (TestReadWarnsUnmatchedStatus), not here.
		{"typo", "status", "pending\n9,processing", []string{"pendin"}, ""},
	} {
		path := write(strings.ReplaceAll(c.name, " ", "_")+".csv", c.col, c.last)
		_, rep, err := Read([]string{path}, ReadOptions{Column: "settle_s", Status: c.col, Pending: c.pending})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := ""
		for _, w := range rep.Warnings {
			if strings.Contains(w, "status column") {
				got = w
			}
		}
		if got != c.want {
			t.Errorf("%s: warning %q, want %q", c.name, got, c.want)
		}
	}
	pq := filepath.Join(dir, "s.parquet")
	writeParquet(t, pq, 2, []string{"settle_s", "status"}, map[string]any{"settle_s": []float64{1, 2}, "status": []string{"settled", "pending"}})
	_, rep, err := Read([]string{pq}, ReadOptions{Column: "settle_s", Status: "status"})
	want := `the status column "status" is set (--status) but no pending value (--pending): every row counts as settled; if some are pending, add --pending VALUE`
	if err != nil || !slices.Contains(rep.Warnings, want) {
		t.Errorf("parquet: warnings %q, %v", rep.Warnings, err)
	}
}
