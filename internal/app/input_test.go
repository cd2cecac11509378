package app

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestIssue18CollectTighterLink: an input of largeInput bytes given as a
// symbolic link, or as a directory holding one, is read with the
// collector at tightGC, as the file itself is (the link's own size, a
// few bytes, left it at 25 %: 145 → 154 MiB on 10⁷ Parquet rows); a
// smaller file is not.
func TestIssue18CollectTighterLink(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: collectTighter leaves the collector to it")
	}
	dir := t.TempDir()
	big, small := filepath.Join(dir, "big.parquet"), filepath.Join(dir, "small.csv")
	for path, size := range map[string]int64{big: largeInput, small: largeInput - 1} {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil { // sparse: no blocks written
			t.Fatal(err)
		}
		f.Close()
	}
	sub := filepath.Join(dir, "links")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{big, filepath.Join(dir, "big-link.parquet")}, {small, filepath.Join(dir, "small-link.csv")}, {big, filepath.Join(sub, "in.parquet")}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // as it was
	for _, c := range []struct {
		name  string
		paths []string
		want  bool
	}{
		{"file", []string{big}, true},
		{"link", []string{filepath.Join(dir, "big-link.parquet")}, true},
		{"directory of a link", []string{sub}, true},
		{"small link", []string{filepath.Join(dir, "small-link.csv")}, false},
	} {
		tight = false
		collectTighter(c.paths)
		if tight != c.want {
			t.Errorf("%s: collectTighter set tightGC %v, want %v", c.name, tight, c.want)
		}
		collectAsBefore()
	}
}
