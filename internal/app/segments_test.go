package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/ingest"
)

// TestPlotPaths: all items keep the file name; each segment gets
// "-NAME" before the extension, with the name made safe for a file and
// clashes (case-insensitive, as on macOS) numbered in segment order.
func TestPlotPaths(t *testing.T) {
	names := []string{
		export.AllSegment,
		"card",
		"mobile money", // space → _
		"mobile_money", // now clashes with the one above
		"Card",         // clashes with card on a case-insensitive file system
		"../../etc/passwd",
		"(empty)", // fit's label for an empty segment value
		"???",
		"café",
		"mobile_money-2", // clashes with the numbered name above
		strings.Repeat("x", 70),
	}
	parts := make([]part, len(names))
	for i, n := range names {
		parts[i] = part{Name: n}
	}
	got := plotPaths("out/lag.v1.png", parts)
	want := []string{
		"out/lag.v1.png",
		"out/lag.v1-card.png",
		"out/lag.v1-mobile_money.png",
		"out/lag.v1-mobile_money-2.png",
		"out/lag.v1-Card-2.png",
		"out/lag.v1-etc_passwd.png",
		"out/lag.v1-empty.png",
		"out/lag.v1-segment.png",
		"out/lag.v1-café.png",
		"out/lag.v1-mobile_money-2-2.png",
		"out/lag.v1-" + strings.Repeat("x", 64) + ".png",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plotPaths (-want +got):\n%s", diff)
	}
	// plotParts says which segment went to which file (a new user could
	// not tell "q-eu_west-2.png" from "q-eu_west-3.png").
	var stderr strings.Builder
	three := []part{{Name: export.AllSegment}, {Name: "eu west"}, {Name: "eu_west"}}
	if err := plotParts("q.png", three, &stderr, false, func(int, string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got, want := stderr.String(), `plots: q.png (all items), q-eu_west.png ("eu west"), q-eu_west-2.png ("eu_west")`+"\n"; got != want {
		t.Errorf("plotParts said %q, want %q", got, want)
	}
}

// safeName cuts a long name on a character boundary, not inside one.
func TestSafeNameCutsWholeRunes(t *testing.T) {
	s := strings.Repeat("é", 40) // 80 bytes
	got := safeName(s)
	if want := strings.Repeat("é", 32); got != want {
		t.Errorf("safeName(40 × é) = %q (%d bytes), want %q", got, len(got), want)
	}
}

// segmentedSample has 3 card rows, 2 wallet rows and 1 bank row.
func segmentedSample() *ingest.Sample {
	return &ingest.Sample{
		Times:        []float64{1, 2, 3, 4, 5, 6},
		Segment:      []int32{0, 1, 0, 2, 1, 0},
		SegmentNames: []string{"card", "wallet", "bank"},
	}
}

func TestParts(t *testing.T) {
	var stderr bytes.Buffer
	in := Input{MinSegmentRows: 2, Read: ingest.ReadOptions{Segment: "method"}}
	parts, err := in.parts(segmentedSample(), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float64{}
	var order []string
	for _, p := range parts {
		order = append(order, p.Name)
		got[p.Name] = p.Sample.Times
	}
	// bank has 1 row < 2: folded into "other"; all items come first.
	if want := []string{"all", "card", "other", "wallet"}; !cmp.Equal(order, want) {
		t.Errorf("parts = %v, want %v", order, want)
	}
	want := map[string][]float64{"all": {1, 2, 3, 4, 5, 6}, "card": {1, 3, 6}, "wallet": {2, 5}, "other": {4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("part times (-want +got):\n%s", diff)
	}
	if want := "segments with fewer than 2 rows folded into \"other\": bank\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}

// A segment value "all" would be read as all items in every table, CSV
// and schedule document: refused.
func TestPartsReservedName(t *testing.T) {
	s := segmentedSample()
	s.SegmentNames[1] = export.AllSegment
	_, err := Input{Read: ingest.ReadOptions{Segment: "method"}}.parts(s, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `"all" is reserved`) {
		t.Errorf("parts with a segment named all: error = %v, want one saying the name is reserved", err)
	}
}

// Without data there is nothing to split: --segment is a usage error,
// and without --segment the one part has no sample.
func TestPartsWithoutData(t *testing.T) {
	_, err := Input{Read: ingest.ReadOptions{Segment: "method"}}.parts(nil, &bytes.Buffer{})
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Errorf("parts(nil) with --segment: error = %v, want a usage error", err)
	}
	parts, err := Input{}.parts(nil, &bytes.Buffer{})
	if err != nil || len(parts) != 1 || parts[0].Sample != nil || parts[0].segmented() {
		t.Errorf("parts(nil) = %v, %v; want the one part of all items, no sample", parts, err)
	}
}

// An error in a segment names it; one for all items does not.
func TestEachPartNamesSegment(t *testing.T) {
	parts := []part{{Name: export.AllSegment}, {Name: "card"}}
	bad := errors.New("too few rows")
	_, err := eachPart(parts, func(p part) (int, error) {
		if p.Name == "card" {
			return 0, bad
		}
		return 1, nil
	})
	if !errors.Is(err, bad) || err.Error() != `segment "card": too few rows` {
		t.Errorf("eachPart error = %v, want segment \"card\": too few rows", err)
	}
	_, err = eachPart(parts, func(p part) (int, error) { return 0, bad })
	if err == nil || err.Error() != "too few rows" {
		t.Errorf("eachPart error = %v, want too few rows", err)
	}
}

// TestPartSize: headings count rows and censored rows; binned input
// counts items and bins.
func TestPartSize(t *testing.T) {
	for _, tc := range []struct {
		s    *ingest.Sample
		want string
	}{
		{&ingest.Sample{Times: make([]float64, 12345)}, "12,345 rows"},
		{&ingest.Sample{Times: []float64{1, 2, 3}, Censored: []bool{false, true, false}}, "3 rows (1 censored)"},
		{&ingest.Sample{Times: []float64{0.5, 1.5}, Weights: []float64{1200, 34}}, "1,234 items in 2 bins"},
	} {
		if got := (part{Sample: tc.s}).size(); got != tc.want {
			t.Errorf("size = %q, want %q", got, tc.want)
		}
	}
}

// TestIssue18EachPartOnce: eachPartOnce gives the parts, results and
// errors of parts and eachPart (all items first, segments in name order,
// folded ones as "other"; all items' error before a segment's, then the
// first segment's by name), while it hands fn the segments one at a time
// and all items last; in place too, where each segment's items come in
// their order and all items in another (fn sorts theirs here).
func TestIssue18EachPartOnce(t *testing.T) {
	sample := func() *ingest.Sample {
		// Segments b (3 items), a (2), c and d (1 each, folded at 2).
		s := &ingest.Sample{SegmentNames: []string{"b", "a", "c", "d"}}
		for i, g := range []int32{0, 1, 0, 2, 1, 0, 3} {
			s.Times = append(s.Times, float64(i))
			s.Segment = append(s.Segment, g)
		}
		return s
	}
	// fn's result names the part and its items' times; it fails on the
	// parts in fail.
	fnFailing := func(calls *[]string, fail ...string) func(part) (string, error) {
		return func(p part) (string, error) {
			var b strings.Builder
			b.WriteString(p.Name + ":")
			times := p.Sample.Times
			if !p.segmented() {
				times = slices.Sorted(slices.Values(times))
			}
			for _, v := range times {
				b.WriteString(" " + strconv.FormatFloat(v, 'g', -1, 64))
			}
			*calls = append(*calls, p.Name)
			for _, f := range fail {
				if f == p.Name {
					return "", errors.New("failed " + f)
				}
			}
			return b.String(), nil
		}
	}
	in := Input{MinSegmentRows: 2}
	in.Read.Segment = "method"
	for _, c := range []struct {
		name      string
		fail      []string
		wantErr   string
		wantCalls []string
	}{
		// Segments by name, all items last; none after a failed one.
		{"ok", nil, "", []string{"a", "b", "other", export.AllSegment}},
		{"segment fails", []string{"b"}, `segment "b": failed b`, []string{"a", "b", export.AllSegment}},
		{"first by name", []string{"other", "b"}, `segment "b": failed b`, []string{"a", "b", export.AllSegment}},
		{"all items fail first", []string{"a", export.AllSegment}, "failed " + export.AllSegment, []string{"a", export.AllSegment}},
	} {
		for _, inPlace := range []bool{false, true} {
			c := c
			c.name = fmt.Sprintf("%s, in place %v", c.name, inPlace)
			var onceCalls, eachCalls []string
			var stderr1, stderr2 bytes.Buffer
			parts, got, err := eachPartOnce(in, sample(), &stderr1, inPlace, fnFailing(&onceCalls, c.fail...))
			wantParts, err2 := in.parts(sample(), &stderr2)
			if err2 != nil {
				t.Fatal(err2)
			}
			want, werr := eachPart(wantParts, fnFailing(&eachCalls, c.fail...))
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr || werr == nil || werr.Error() != c.wantErr {
					t.Errorf("%s: eachPartOnce error %v, eachPart error %v; want %q", c.name, err, werr, c.wantErr)
				}
			} else {
				if err != nil || werr != nil {
					t.Fatalf("%s: errors %v, %v", c.name, err, werr)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: eachPartOnce results (-eachPart +once):\n%s", c.name, diff)
				}
				if len(parts) != len(wantParts) || parts[0].Sample == nil {
					t.Errorf("%s: %d parts, want %d, all items' sample kept", c.name, len(parts), len(wantParts))
				}
				for i := range parts {
					if parts[i].Name != wantParts[i].Name {
						t.Errorf("%s: part %d named %q, want %q", c.name, i, parts[i].Name, wantParts[i].Name)
					}
				}
			}
			if diff := cmp.Diff(c.wantCalls, onceCalls); diff != "" {
				t.Errorf("%s: fn calls (-want +got):\n%s", c.name, diff)
			}
			if stderr1.String() != stderr2.String() {
				t.Errorf("%s: stderr %q, want %q", c.name, stderr1.String(), stderr2.String())
			}
		}
	}
}

// TestIssue18EachPartOnceMany: beyond lazyParts segments eachPartOnce
// copies them out in one pass; the parts and results are still those of
// parts and eachPart.
func TestIssue18EachPartOnceMany(t *testing.T) {
	sample := func() *ingest.Sample {
		s := &ingest.Sample{}
		for g := range 3 * lazyParts {
			s.SegmentNames = append(s.SegmentNames, "s"+strconv.Itoa(g))
		}
		for i := range 2000 {
			s.Times = append(s.Times, float64(i))
			s.Segment = append(s.Segment, int32(i*7%len(s.SegmentNames)))
		}
		return s
	}
	fn := func(p part) ([]float64, error) { return slices.Clone(p.Sample.Times), nil }
	in := Input{MinSegmentRows: 2}
	parts, got, err := eachPartOnce(in, sample(), io.Discard, true, fn)
	if err != nil {
		t.Fatal(err)
	}
	wantParts, err := in.parts(sample(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want, err := eachPart(wantParts, fn)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1+3*lazyParts || len(parts) != len(wantParts) {
		t.Fatalf("%d parts, want %d", len(parts), len(wantParts))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("eachPartOnce results (-eachPart +once):\n%s", diff)
	}
}

// TestIssue18RereadChecksRows: plan reads a file's rows a second time for
// its segments (Input.reread) and refuses rows that differ from the first
// read's — a log written to in between — instead of planning segments of
// other rows than all items'.
func TestIssue18RereadChecksRows(t *testing.T) {
	path := t.TempDir() + "/d.csv"
	rows := "settle_s,method\n1.5,card\n2.25,momo\n3,card\n0.5,momo\n"
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	in := Input{Paths: []string{path}, Read: ingest.ReadOptions{Column: "settle_s", Segment: "method"}}
	if !rereadable(in.Paths) {
		t.Fatalf("rereadable(%s) = false, want true", path)
	}
	if rereadable([]string{"-"}) {
		t.Errorf(`rereadable("-") = true, want false (standard input)`)
	}
	s, _, err := ingest.Read(in.Paths, in.Read)
	if err != nil {
		t.Fatal(err)
	}
	digest := s.Digest()
	seg, err := in.reread(digest)
	if err != nil {
		t.Fatalf("reread of the same file: %v", err)
	}
	if want := []string{"card", "momo"}; !slices.Equal(seg.Names, want) {
		t.Errorf("reread's segments = %v, want %v", seg.Names, want)
	}
	for _, changed := range []string{
		rows + "4,card\n", // a row appended
		strings.Replace(rows, "2.25,momo", "2.5,momo", 1),          // a time changed
		strings.Replace(rows, "3,card", "3,momo", 1),               // a segment changed
		"settle_s,method\n2.25,momo\n1.5,card\n3,card\n0.5,momo\n", // the same rows reordered
	} {
		if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := in.reread(digest)
		if err == nil || !strings.Contains(err.Error(), "the input changed while it was read ("+path+")") {
			t.Errorf("reread of %q: error %v, want the input changed, naming it", changed, err)
		}
	}
}

// TestIssue18SomeNames: a fold note lists at most 20 names and counts the
// rest (70,000 folded segments printed a line of 517 KB).
func TestIssue18SomeNames(t *testing.T) {
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "s" + strconv.Itoa(i)
		}
		return out
	}
	for _, c := range []struct {
		n    int
		want string
	}{
		{1, "s0"},
		{20, strings.Join(names(20), ", ")},
		{21, strings.Join(names(20), ", ") + " and 1 more"},
		{70000, strings.Join(names(20), ", ") + " and 69,980 more"},
	} {
		if got := someNames(names(c.n)); got != c.want {
			t.Errorf("someNames(%d names) = %q, want %q", c.n, got, c.want)
		}
	}
}
