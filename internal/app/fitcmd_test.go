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
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
)

func TestCountAtoms(t *testing.T) {
	pt, sp := fit.Atom{T: 60, Mass: 0.1}, fit.Atom{T: 62, Mass: 0.06, Width: 1.5}
	for _, c := range []struct {
		atoms []fit.Atom
		want  string
	}{
		{nil, "no atoms"},
		{[]fit.Atom{pt}, "1 atom"},
		{[]fit.Atom{pt, pt, pt}, "3 atoms"},
		{[]fit.Atom{sp}, "1 spike"},
		{[]fit.Atom{pt, sp, sp}, "1 atom, 2 spikes"},
	} {
		if got := countAtoms(c.atoms); got != c.want {
			t.Errorf("countAtoms(%v) = %q, want %q", c.atoms, got, c.want)
		}
	}
}

// TestFitOutputTables (issue 11): fit's JSON holds its tables as objects
// of equal-length columns (grid, km) and lists of records (atoms), so each
// loads as a data frame; readDensity (optimize --density) reads it back;
// --format csv writes the grid as one table, with a segment column under
// --segment.
func TestFitOutputTables(t *testing.T) {
	in := Input{Paths: []string{"../../fixtures/payments.csv"}, Quiet: true, MinSegmentRows: 200,
		Read: ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}, Segment: "method"}}
	path := filepath.Join(t.TempDir(), "density.json")
	if err := (Fit{Input: in, Options: fit.Options{Holdout: 0.3, Seed: 1}, Out: path}).Run(io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	checkTables := func(name string, d map[string]any) {
		t.Helper()
		for _, key := range []string{"grid", "km"} {
			table, ok := d[key].(map[string]any)
			if !ok {
				t.Fatalf("%s: %s is %T, want an object of columns", name, key, d[key])
			}
			n := -1
			for col, v := range table {
				arr, ok := v.([]any)
				if !ok || (n >= 0 && len(arr) != n) {
					t.Errorf("%s: %s.%s has %d values, want every column as long (%d)", name, key, col, len(arr), n)
				}
				n = len(arr)
			}
		}
		grid := d["grid"].(map[string]any)
		for _, col := range gridColumns {
			if _, ok := grid[col]; !ok {
				t.Errorf("%s: grid has no column %s", name, col)
			}
		}
		atoms, ok := d["atoms"].([]any)
		if !ok {
			t.Fatalf("%s: atoms is %T, want a list of records", name, d["atoms"])
		}
		for _, a := range atoms {
			r := a.(map[string]any)
			if _, ok := r["t_s"]; !ok || r["width_s"] == nil || r["mass"] == nil {
				t.Errorf("%s: atom %v, want t_s, mass and width_s", name, r)
			}
		}
		for _, key := range []string{"ks", "ks_holdout"} {
			if _, ok := d[key].(map[string]any); !ok {
				t.Errorf("%s: no %s", name, key)
			}
		}
	}
	checkTables("all", doc)
	segs := doc["segments"].(map[string]any)
	if len(segs) != 4 {
		t.Errorf("%d segments, want 4 (wallet, momo, card, bank)", len(segs))
	}
	for name, s := range segs {
		checkTables(name, s.(map[string]any))
	}
	d, err := readDensity(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.T) != fit.DefaultGrid || len(d.PDFs) != len(d.T) || d.HoldoutKS == nil || len(d.Atoms) == 0 {
		t.Errorf("readDensity: %d grid points, %d pdf, holdout KS %v, atoms %v", len(d.T), len(d.PDFs), d.HoldoutKS, d.Atoms)
	}

	var out bytes.Buffer
	if err := (Fit{Input: in, Options: fit.Options{Grid: 16}, Format: "csv"}).Run(&out, io.Discard); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]string{"segment"}, gridColumns...); !slices.Equal(rows[0], want) {
		t.Errorf("CSV header %v, want %v", rows[0], want)
	}
	count := map[string]int{}
	for _, r := range rows[1:] {
		count[r[0]]++
	}
	if len(rows) != 1+5*16 || count["all"] != 16 || count["momo"] != 16 {
		t.Errorf("CSV: %d rows, per segment %v; want 16 for all and each of 4 segments", len(rows)-1, count)
	}
}

// TestReadDensityOldLayout: a density written before the grid moved into
// its own object is refused with what to do.
func TestReadDensityOldLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(path, []byte(`{"t":[0,1,2],"pdf":[0,1,0],"cdf":[0,0.5,1]}`), 0o644)
	if _, err := readDensity(path); err == nil || !strings.Contains(err.Error(), "run pollfit fit again") {
		t.Errorf("readDensity(old layout) error = %v, want one saying to run pollfit fit again", err)
	}
}

// TestIssue18FitSegmentsInPlace: fit --segment on a censored input, whose
// segments are then views of the rows partitioned in place
// (fitCanPartition), writes the JSON the copies give (a plot keeps the
// rows in their order and copies the segments out): 3·10⁵ rows in four
// segments, ms times but for every 150th row, all at places the strided
// resolution test reads in the rows' order (2 % of its subsample, over
// the 1 % that may fail: no lattice) and sees a third as often once the
// rows are partitioned and sorted (the lattice of 1 ms); and by
// histogram. fitCanPartition refuses what reads the rows' order.
func TestIssue18FitSegmentsInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 5))
	var b strings.Builder
	b.WriteString("settle_s,status,method\n")
	for i := range 300_000 {
		v := math.Exp(r.NormFloat64() + 1)
		if i%150 != 0 {
			v = math.Round(v*1000) / 1000
		}
		st := "succeeded"
		if r.Float64() < 0.03 {
			st = "pending"
		}
		fmt.Fprintf(&b, "%s,%s,%s\n", strconv.FormatFloat(max(v, 0.001), 'g', -1, 64), st, []string{"card", "bank", "wallet", "momo"}[r.IntN(4)])
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in := Input{Paths: []string{path}, Quiet: true, MinSegmentRows: 200,
		Read: ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}, Segment: "method"}}
	for _, method := range []string{"kde", "histogram"} {
		var inPlace, copied bytes.Buffer
		if err := (Fit{Input: in, Options: fit.Options{Method: method}}).Run(&inPlace, io.Discard); err != nil {
			t.Fatal(err)
		}
		plot := filepath.Join(dir, "fit.svg")
		if err := (Fit{Input: in, Options: fit.Options{Method: method}, Plot: plot}).Run(&copied, io.Discard); err != nil {
			t.Fatal(err)
		}
		if inPlace.String() != copied.String() {
			t.Errorf("%s: fit --segment in place differs from the copies' fit", method)
		}
		var doc struct {
			Resolution float64 `json:"resolution"`
			Segments   map[string]struct {
				Resolution float64 `json:"resolution"`
			} `json:"segments"`
		}
		if err := json.Unmarshal(inPlace.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Resolution != 0 || len(doc.Segments) != 4 || doc.Segments["card"].Resolution != 0.001 {
			t.Errorf("%s: resolution %g, segments %v; want 0 (found in the rows' order) and 0.001 in each of 4", method, doc.Resolution, doc.Segments)
		}
	}
	s := &ingest.Sample{Times: []float64{1, 2}, Censored: []bool{true, false}}
	for _, c := range []struct {
		name string
		s    *ingest.Sample
		opt  fit.Options
		want bool
	}{
		{"kde", s, fit.Options{}, true},
		{"KDE", s, fit.Options{Method: "KDE"}, true},
		{"histogram", s, fit.Options{Method: "histogram"}, true},
		{"weibull", s, fit.Options{Method: "weibull"}, false},
		{"mixture", s, fit.Options{Method: fit.LogNormalMixture}, false},
		{"holdout", s, fit.Options{Holdout: 0.2}, false},
		{"uncensored", &ingest.Sample{Times: []float64{1, 2}}, fit.Options{}, false},
		{"weights", &ingest.Sample{Times: []float64{1, 2}, Censored: []bool{true, false}, Weights: []float64{1, 2}}, fit.Options{}, false},
		{"created", &ingest.Sample{Times: []float64{1, 2}, Censored: []bool{true, false}, Created: []int64{0, 1}}, fit.Options{}, false},
	} {
		if got := fitCanPartition(c.s, c.opt); got != c.want {
			t.Errorf("fitCanPartition(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}
