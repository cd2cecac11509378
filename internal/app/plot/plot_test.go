package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/optimize"
)

// checkImage asserts that path holds a decodable PNG or an SVG document,
// and that no temporary file was left beside it.
func checkImage(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch filepath.Ext(path) {
	case ".png":
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if r := img.Bounds(); r.Dx() < 300 || r.Dy() < 200 {
			t.Errorf("%s is %v, want a readable figure", path, r)
		}
	case ".svg":
		if !bytes.Contains(b, []byte("<svg")) || !bytes.HasSuffix(bytes.TrimSpace(b), []byte("</svg>")) {
			t.Errorf("%s is not a whole SVG document", path)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestSweep(t *testing.T) {
	curves := []Curve{
		{Name: "exact", X: []float64{10, 30, 100, 300}, Y: []float64{8, 2.5, 0.7, 0.22}, Bold: true},
		{Name: "exp", X: []float64{10, 30, 100, 300}, Y: []float64{11, 5, 2.1, 1.1}},
		{Name: "now", X: []float64{152}, Y: []float64{0.7}, Points: true},
		{Name: "empty", X: []float64{10}, Y: []float64{math.NaN()}},
	}
	dir := t.TempDir()
	for _, name := range []string{"sweep.png", "sweep.svg", "SWEEP.PNG"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := Sweep(path, curves, SweepOptions{Title: "test"}); err != nil {
				t.Fatal(err)
			}
			checkImage(t, path)
		})
	}
}

func TestTimeline(t *testing.T) {
	scheds := []optimize.Schedule{optimize.References[0], optimize.References[3],
		optimize.MustParseSpec("every 2s until 1m, jitter full")}
	// Exponential settle times with mean 10 s, CDF 1 − e^(−t/10).
	cdf := func(x float64) float64 { return 1 - math.Exp(-x/10) }
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		horizon time.Duration
	}{
		{"log.png", 15 * time.Minute}, // 15m / 1s first poll: log axis
		{"linear.svg", 20 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := Timeline(path, cdf, scheds, tc.horizon, TimelineOptions{}); err != nil {
				t.Fatal(err)
			}
			checkImage(t, path)
		})
	}
}

// TestTimelineOptions: the title is drawn as given (SVG text is
// searchable), and a nil CDF (schedules without data) draws the polls
// alone, with no "settles" band; it panicked before.
func TestTimelineOptions(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		cdf   func(float64) float64
		title string
		want  []string
		not   []string
	}{
		{"titled.svg", func(x float64) float64 { return 1 - math.Exp(-x/10) }, "Poll times: segment card", []string{"Poll times: segment card", "settles"}, nil},
		{"default.svg", func(x float64) float64 { return 1 - math.Exp(-x/10) }, "", []string{DefaultTimelineTitle}, nil},
		{"nodata.svg", nil, "Poll times", []string{"now (152)"}, []string{"settles"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := Timeline(path, tc.cdf, optimize.References[3:], 15*time.Minute, TimelineOptions{Title: tc.title}); err != nil {
				t.Fatal(err)
			}
			checkImage(t, path)
			b, _ := os.ReadFile(path)
			for _, w := range tc.want {
				if !bytes.Contains(b, []byte(w)) {
					t.Errorf("%s does not contain %q", tc.name, w)
				}
			}
			for _, w := range tc.not {
				if bytes.Contains(b, []byte(w)) {
					t.Errorf("%s contains %q", tc.name, w)
				}
			}
		})
	}
}

func TestBadPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plot.jpg")
	err := Sweep(path, []Curve{{Name: "a", X: []float64{1}, Y: []float64{1}}}, SweepOptions{})
	if !errors.Is(err, ErrFormat) {
		t.Errorf("Sweep(%q) error = %v, want ErrFormat", path, err)
	}
	err = Timeline(path, func(float64) float64 { return 0 }, optimize.References, time.Minute, TimelineOptions{})
	if !errors.Is(err, ErrFormat) {
		t.Errorf("Timeline(%q) error = %v, want ErrFormat", path, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failed plot", path)
	}
	if err := CheckPath("a.SVG"); err != nil {
		t.Errorf("CheckPath(a.SVG) = %v, want nil", err)
	}
	// A directory that does not exist: an error, no file.
	err = Sweep(filepath.Join(dir, "no", "such.png"), []Curve{{Name: "a", X: []float64{1}, Y: []float64{1}}}, SweepOptions{})
	if err == nil || !strings.Contains(err.Error(), "such.png") {
		t.Errorf("Sweep into a missing directory error = %v, want one naming the file", err)
	}
}

// The empirical CDF of 1, 2, 2, 4 is 0 below 1, 1/4 from 1, 3/4 from 2
// and 1 from 4 (right-continuous: ties count at their value).
func TestEmpiricalCDF(t *testing.T) {
	f := EmpiricalCDF([]float64{4, 2, 1, 2})
	for _, tc := range []struct{ t, want float64 }{{0.5, 0}, {1, 0.25}, {1.5, 0.25}, {2, 0.75}, {3.9, 0.75}, {4, 1}, {10, 1}} {
		if got := f(tc.t); got != tc.want {
			t.Errorf("EmpiricalCDF(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
}

// Log ticks: 1-2-5 labels within two decades, decades only beyond.
func TestSecondsTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range secondsTicks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got, want := strings.Join(labels(0.3, 25), " "), "0.5 1 2 5 10 20"; got != want {
		t.Errorf("secondsTicks(0.3, 25) labels = %q, want %q", got, want)
	}
	if got, want := strings.Join(labels(0.3, 900), " "), "1 10 100"; got != want {
		t.Errorf("secondsTicks(0.3, 900) labels = %q, want %q", got, want)
	}
}

// FixedPolls splits off the polls that depend on the creation instant,
// by hand: the age phases before the first wall-clock phase
// poll at the same ages for every item.
func TestFixedPolls(t *testing.T) {
	for _, tc := range []struct {
		spec, polls, clock string
		from               time.Duration
	}{
		{"every 1s until 10s, after each 5m (+1s +2.5s) until 15m", "[0s 1s 2s 3s 4s 5s 6s 7s 8s 9s 10s]", "after each 5m (+1s +2.5s)", 10 * time.Second},
		{"at 2s, after each 12s (+500ms +6s) until 2m, every 30s until 5m", "[2s]", "after each 12s (+500ms +6s)", 2 * time.Second},
		{"every 500ms until 2s, after each 1m (+0s +30s) until 10m, after each 5m (+2s) until 1h", "[0s 500ms 1s 1.5s 2s]",
			"after each 1m (+0s +30s), then after each 5m (+2s)", 2 * time.Second},
		// The age phase's first gap passes its bound: one poll, at 1m.
		{"every 1m until 45s, after each 5m until 1h", "[0s 1m0s]", "after each 5m", time.Minute},
		{"every 1s until 3s, 5s", "[0s 1s 2s 3s 8s]", "", 0},
	} {
		polls, from, clock := FixedPolls(optimize.MustParseSpec(tc.spec))
		if fmt.Sprint(polls) != tc.polls || from != tc.from || clock != tc.clock {
			t.Errorf("FixedPolls(%q) = %v, %v, %q; want %s, %v, %q", tc.spec, polls, from, clock, tc.polls, tc.from, tc.clock)
		}
	}
}

// A wall-clock schedule's row shows its fixed polls as dots, the phase's
// text, and its stuck polls as the range over creation instants: 17 for an
// item created at 00:03:17, 16 for one whose age phase ends on an instant
// (the wall-clock example worked by hand in export's clock tests).
func TestTimelineClock(t *testing.T) {
	s := optimize.MustParseSpec("every 1s until 10s, after each 5m (+1s +2.5s) until 15m")
	s.Name = "clock"
	if lo, hi := s.StuckPollsRange(); lo > 16 || hi < 17 {
		t.Fatalf("StuckPollsRange = %d, %d; want a range holding 16 and 17", lo, hi)
	}
	path := filepath.Join(t.TempDir(), "clock.svg")
	if err := Timeline(path, nil, []optimize.Schedule{optimize.References[3], s}, 15*time.Minute, TimelineOptions{}); err != nil {
		t.Fatal(err)
	}
	checkImage(t, path)
	b, _ := os.ReadFile(path)
	lo, hi := s.StuckPollsRange()
	for _, w := range []string{"after each 5m (+1s +2.5s)", fmt.Sprintf("clock (%d–%d)", lo, hi), "now (152)"} {
		if !bytes.Contains(b, []byte(w)) {
			t.Errorf("timeline does not contain %q", w)
		}
	}
}
