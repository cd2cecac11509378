package ingest

import (
	"slices"
	"testing"
)

// TestBatchPush: a batch makes its censoring flags at its first censored
// item and its weights at its first weighted one, the items before them
// settled and of weight 1; with a window of the sample's flags (censAt,
// readParquet's), the flags are written there, in place. reset empties
// the batch and keeps its buffers.
func TestBatchPush(t *testing.T) {
	var b batch
	b.push(1, false, 1, false, 0, true)
	b.push(2, true, 1, false, 3, true)
	b.push(3, false, 2.5, true, 1, true)
	if want := []float64{1, 2, 3}; !slices.Equal(b.times, want) {
		t.Errorf("times %v, want %v", b.times, want)
	}
	if want := []bool{false, true, false}; !slices.Equal(b.cens, want) {
		t.Errorf("censored %v, want %v", b.cens, want)
	}
	if want := []float64{1, 1, 2.5}; !slices.Equal(b.weights, want) {
		t.Errorf("weights %v, want %v", b.weights, want)
	}
	if want := []uint8{0, 3, 1}; !slices.Equal(b.seg.narrow, want) || b.seg.widened() {
		t.Errorf("labels %v (widened %v), want %v a byte each", b.seg.narrow, b.seg.widened(), want)
	}

	b.reset()
	if len(b.times) != 0 || b.cens != nil || b.weights != nil || b.seg.len() != 0 || cap(b.times) < 3 {
		t.Errorf("after reset: %d items, flags %v, weights %v, %d labels, capacity %d; want empty, nil, nil, 0, ≥ 3",
			len(b.times), b.cens, b.weights, b.seg.len(), cap(b.times))
	}
	window := make([]bool, 4)
	b.censAt = window
	b.push(4, false, 1, false, 0, false)
	b.push(5, true, 1, false, 0, false)
	if want := []bool{false, true, false, false}; !slices.Equal(window, want) || &b.cens[0] != &window[0] {
		t.Errorf("window %v (flags in it: %v), want %v", window, &b.cens[0] == &window[0], want)
	}
}
