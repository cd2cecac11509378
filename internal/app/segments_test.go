package app

import (
	"bytes"
	"errors"
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
