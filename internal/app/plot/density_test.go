package plot

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
)

// TestDensity: the figure is written as PNG or SVG by the extension,
// headed by the label, and nothing else is left in the directory; other
// extensions are refused.
func TestDensity(t *testing.T) {
	ln := distuv.LogNormal{Mu: 3, Sigma: 1.5, Src: rand.New(rand.NewPCG(19, 1))}
	x := make([]float64, 2000)
	for i := range x {
		x[i] = math.Round(ln.Rand()) // recorded to the second
	}
	s := &ingest.Sample{Times: x}
	d, err := fit.Estimate(s, fit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for ext, magic := range map[string]string{".png": "\x89PNG", ".svg": "<?xml"} {
		p := filepath.Join(dir, "fit"+ext)
		if err := Density(p, d, s, DensityOptions{Label: "segment card"}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("Density(%s) wrote %d bytes starting %q, want %q", ext, len(b), b[:min(len(b), 5)], magic)
		}
		if ext == ".svg" && !bytes.Contains(b, []byte("segment card: kde")) {
			t.Errorf("Density(%s) title does not start with the label", ext)
		}
	}
	if err := Density(filepath.Join(dir, "fit.gif"), d, s, DensityOptions{}); err == nil {
		t.Error("Density(.gif) = nil error, want one")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("dir holds %d files, want 2 (no temp files left)", len(entries))
	}
}
