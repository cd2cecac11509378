package sample

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func splitSample(n int) *Sample {
	s := &Sample{SegmentNames: []string{"a", "b"}}
	for i := range n {
		s.Times = append(s.Times, float64(i)) // the time names the item
		s.Censored = append(s.Censored, i%7 == 0)
		s.Weights = append(s.Weights, float64(1+i%3))
		s.Segment = append(s.Segment, int32(i%2))
	}
	return s
}

func TestSplit(t *testing.T) {
	tests := []struct {
		n        int
		holdout  float64
		wantTest int // round(holdout·n)
	}{
		{1000, 0.3, 300},
		{10, 0.25, 3}, // 2.5 rounds away from zero
		{7, 0, 0},
		{20000, 0.3, 6000},
		{1, 0.5, 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%g", tt.n, tt.holdout), func(t *testing.T) {
			s := splitSample(tt.n)
			train, test := s.Split(tt.holdout, 1)
			if test.Len() != tt.wantTest || train.Len() != tt.n-tt.wantTest {
				t.Fatalf("Split(%g) sizes = %d train, %d test; want %d, %d", tt.holdout, train.Len(), test.Len(), tt.n-tt.wantTest, tt.wantTest)
			}
			// Every item lands in exactly one part, with its own flags.
			seen := make([]int, tt.n)
			for _, p := range []*Sample{train, test} {
				if p.Validate() != nil || !slices.Equal(p.SegmentNames, s.SegmentNames) {
					t.Fatalf("part invalid or labels lost: %v", p.Validate())
				}
				if !slices.IsSorted(p.Times) {
					t.Errorf("part not in original order: %v", p.Times)
				}
				for j, v := range p.Times {
					i := int(v)
					seen[i]++
					if p.Censored[j] != s.Censored[i] || p.Weights[j] != s.Weights[i] || p.Segment[j] != s.Segment[i] {
						t.Errorf("item %d: censored %v weight %v segment %v, want %v %v %v", i,
							p.Censored[j], p.Weights[j], p.Segment[j], s.Censored[i], s.Weights[i], s.Segment[i])
					}
				}
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("item %d is in %d parts, want 1", i, c)
				}
			}
		})
	}
}

func TestSplitSeeded(t *testing.T) {
	s := splitSample(500)
	_, a := s.Split(0.3, 42)
	_, b := s.Split(0.3, 42)
	_, c := s.Split(0.3, 43)
	if !slices.Equal(a.Times, b.Times) {
		t.Error("Split with the same seed gave different test parts")
	}
	if slices.Equal(a.Times, c.Times) {
		t.Error("Split with seeds 42 and 43 gave the same test part")
	}
}

// A uniform random split holds out each item with probability holdout:
// the mean of the held-out indexes is near (n−1)/2, within 4 standard
// errors (σ of one index ≈ n/√12, of a mean of k of them ≈ n/√(12k)).
func TestSplitUniform(t *testing.T) {
	const n = 10000
	s := splitSample(n)
	_, test := s.Split(0.3, 7)
	mean := 0.0
	for _, v := range test.Times {
		mean += v
	}
	mean /= float64(test.Len())
	se := float64(n) / 3.4641016 / 54.77 // √12, √3000
	if d := mean - (n-1)/2.0; d > 4*se || d < -4*se {
		t.Errorf("mean held-out index = %v, want %v ± %v", mean, (n-1)/2.0, 4*se)
	}
}

func TestSplitUnlabelled(t *testing.T) {
	s := &Sample{Times: []float64{1, 2, 3, 4}}
	train, test := s.Split(0.5, 1)
	if train.Censored != nil || train.Weights != nil || test.Segment != nil {
		t.Errorf("Split of a plain sample added columns: %+v %+v", train, test)
	}
}

func ExampleSample_Split() {
	s := &Sample{Times: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	train, test := s.Split(0.3, 1)
	fmt.Println(train.Len(), test.Len())
	// Output:
	// 7 3
}

// SplitInPlace gives the parts Split gives, column by column,
// as views of the sample, which keeps all its items: the training items
// first, then the held-out ones.
func TestSplitInPlace(t *testing.T) {
	for _, n := range []int{0, 1, 10, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := splitSample(n)
			s.Created = make([]int64, n)
			for i := range s.Created {
				s.Created[i] = int64(i) * 1e9
			}
			wantTrain, wantTest := s.Split(0.3, 7)
			train, test := s.SplitInPlace(0.3, 7)
			for _, c := range []struct {
				name      string
				got, want *Sample
			}{{"train", train, wantTrain}, {"test", test, wantTest}} {
				if !slices.Equal(c.got.Times, c.want.Times) || !slices.Equal(c.got.Censored, c.want.Censored) ||
					!slices.Equal(c.got.Weights, c.want.Weights) || !slices.Equal(c.got.Segment, c.want.Segment) ||
					!slices.Equal(c.got.Created, c.want.Created) || (n > 0 && !slices.Equal(c.got.SegmentNames, c.want.SegmentNames)) {
					t.Errorf("%s part = %v, want %v", c.name, c.got.Times, c.want.Times)
				}
			}
			if !slices.Equal(s.Times, append(slices.Clone(wantTrain.Times), wantTest.Times...)) {
				t.Errorf("sample after = %v, want the training then the held-out items", s.Times)
			}
			if n > 0 && &train.Times[0] != &s.Times[0] {
				t.Error("training part is a copy, want a view of the sample")
			}
		})
	}
}

// Slice shares the sample's storage and cannot append into the items
// after it.
func TestSlice(t *testing.T) {
	s := &Sample{Times: []float64{1, 2, 3, 4}, Censored: []bool{false, true, false, true}}
	v := s.Slice(1, 3)
	if !slices.Equal(v.Times, []float64{2, 3}) || !slices.Equal(v.Censored, []bool{true, false}) || v.Weights != nil {
		t.Fatalf("Slice(1, 3) = %+v", v)
	}
	v.Times[0] = 20
	v.Times = append(v.Times, 30)
	if !slices.Equal(s.Times, []float64{1, 20, 3, 4}) {
		t.Errorf("sample after writing the view = %v, want [1 20 3 4]", s.Times)
	}
}

// The held-out items are marked in a bit set, and SplitInPlace
// buffers them in the shuffle's indexes (or, above a holdout of ½, in a
// buffer of their own); the parts must be those of the plain partial
// Fisher–Yates shuffle of []int indexes with a bool an item, taken here
// as the reference, for sizes around the bit set's words and holdouts on
// both sides of ½.
func TestSplitInPlaceBuffers(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 1000, 4097} {
		for _, h := range []float64{0.1, 0.3, 0.5, 0.7, 0.99} {
			s := splitSample(n)
			s.Created = make([]int64, n)
			for i := range s.Created {
				s.Created[i] = -int64(i) * 1e9 // negative: all 64 bits through the buffer
			}
			k := int(math.Round(h * float64(n)))
			rng := rand.New(rand.NewPCG(9, 0x73706c6974))
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			for i := 0; i < k; i++ {
				j := i + rng.IntN(n-i)
				idx[i], idx[j] = idx[j], idx[i]
			}
			held := make([]bool, n)
			for _, i := range idx[:k] {
				held[i] = true
			}
			var want []int // the items' indexes: training ones, then held-out ones
			for _, part := range []bool{false, true} {
				for i := range n {
					if held[i] == part {
						want = append(want, i)
					}
				}
			}
			train, test := s.SplitInPlace(h, 9)
			if test.Len() != k || train.Len() != n-k {
				t.Fatalf("n %d holdout %g: parts of %d and %d, want %d and %d", n, h, train.Len(), test.Len(), n-k, k)
			}
			for j, i := range want {
				if s.Times[j] != float64(i) || s.Censored[j] != (i%7 == 0) || s.Weights[j] != float64(1+i%3) ||
					s.Segment[j] != int32(i%2) || s.Created[j] != -int64(i)*1e9 {
					t.Fatalf("n %d holdout %g: position %d holds item %v (created %d), want item %d", n, h, j, s.Times[j], s.Created[j], i)
				}
			}
		}
	}
}

// The undo of SplitInPlaceUndo puts every column back in its
// original order (plan takes its segments out of all items after
// planning them), for sizes around the bit set's words and holdouts on
// both sides of ½, and with columns missing.
func TestSplitInPlaceUndo(t *testing.T) {
	for _, c := range []struct {
		name    string
		n       int
		holdout float64
		plain   bool // times only
	}{
		{"empty", 0, 0.3, false},
		{"one", 1, 0.3, false},
		{"one held", 1, 0.99, false},
		{"63", 63, 0.1, false},
		{"64", 64, 0.5, false},
		{"65", 65, 0.7, false},
		{"1000", 1000, 0.3, false},
		{"4097", 4097, 0.99, false},
		{"nothing held", 100, 0, false},
		{"times only", 1000, 0.3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := splitSample(c.n)
			s.Created = make([]int64, c.n)
			for i := range s.Created {
				s.Created[i] = -int64(i) * 1e9 // negative: all 64 bits through the buffer
			}
			if c.plain {
				s = &Sample{Times: s.Times}
			}
			orig := &Sample{Times: slices.Clone(s.Times), Censored: slices.Clone(s.Censored), Weights: slices.Clone(s.Weights),
				Segment: slices.Clone(s.Segment), Created: slices.Clone(s.Created)}
			wantTrain, wantTest := s.Split(c.holdout, 5)
			train, test, undo := s.SplitInPlaceUndo(c.holdout, 5)
			if !slices.Equal(train.Times, wantTrain.Times) || !slices.Equal(test.Times, wantTest.Times) {
				t.Fatalf("parts %v and %v, want Split's %v and %v", train.Times, test.Times, wantTrain.Times, wantTest.Times)
			}
			undo()
			// Item i is known by every column: time i, flag i%7 == 0,
			// weight 1+i%3, segment i%2, created −i s.
			for i := range c.n {
				if s.Times[i] != float64(i) {
					t.Fatalf("position %d holds item %v after undo, want %d", i, s.Times[i], i)
				}
			}
			if !slices.Equal(s.Censored, orig.Censored) || !slices.Equal(s.Weights, orig.Weights) ||
				!slices.Equal(s.Segment, orig.Segment) || !slices.Equal(s.Created, orig.Created) {
				t.Errorf("columns after undo differ from the original: %+v, want %+v", s, orig)
			}
			if c.plain && (s.Censored != nil || s.Weights != nil || s.Segment != nil || s.Created != nil) {
				t.Errorf("undo added columns: %+v", s)
			}
		})
	}
}

// TestShuffleHeld24: the shuffle on 3-byte indexes holds out the
// items the 4-byte one does, draw for draw, and packed24 keeps every value
// below 2²⁴ at every alignment in its words without touching neighbours.
func TestShuffleHeld24(t *testing.T) {
	for _, c := range []struct {
		n int
		h float64
	}{{1, 0}, {2, 0.5}, {7, 0.3}, {64, 0.3}, {65, 0.9}, {1000, 0.3}, {99991, 0.3}, {100000, 0.01}, {100000, 0.6}} {
		for seed := uint64(1); seed <= 3; seed++ {
			k := int(math.Round(c.h * float64(c.n)))
			want := shuffleHeld(c.n, k, rand.New(rand.NewPCG(seed, 0x73706c6974)), make([]uint32, c.n))
			got := shuffleHeld24(c.n, k, rand.New(rand.NewPCG(seed, 0x73706c6974)), make24(c.n))
			if !slices.Equal(got, want) {
				t.Errorf("n %d, k %d, seed %d: 3-byte indexes held other items", c.n, k, seed)
			}
		}
	}
	p := make24(10)
	vals := []uint32{0xFFFFFF, 0, 0xABCDEF, 1, 0x800000, 0xFFFFFF, 0x123456, 0, 0xFFFFFF, 42}
	for i, v := range vals {
		p.set(i, v)
	}
	for i, v := range vals {
		if got := p.get(i); got != v {
			t.Errorf("packed24[%d] = %#x, want %#x", i, got, v)
		}
	}
	if last := p[len(p)-1]; last != 0 {
		t.Errorf("the spare word holds %#x, want 0", last)
	}
}
