package ingest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pollfit/pollfit/internal/bulk"
)

// Split divides the sample at random into a training part and a held-out
// test part of round(holdout·n) items, so that a schedule derived from
// the training items can be scored on items it has not seen. The split is
// reproducible: the same sample, holdout and seed give the same parts on
// every platform (a PCG stream seeded by seed, Fisher–Yates shuffle of
// the indexes). Each part keeps its items in their original order with
// their censoring flags, weights, segment labels and creation instants.
//
// holdout is the share held out, 0 ≤ holdout < 1; Split panics outside
// that range (callers check the flag).
func (s *Sample) Split(holdout float64, seed uint64) (train, test *Sample) {
	if !(holdout >= 0 && holdout < 1) {
		panic(fmt.Sprintf("fit: Split: holdout %v is not in [0, 1)", holdout))
	}
	n := s.Len()
	k := int(math.Round(holdout * float64(n)))
	// Shuffle the first k positions only (a partial Fisher–Yates): they
	// are a uniform random k-subset.
	// Indexes as uint32 (4 bytes an item, not 8) below 2³² items; the
	// draws are the same either way.
	held := bulk.Make[bool](n, n)
	if n <= math.MaxUint32 {
		shuffleHeld(held, k, rand.New(rand.NewPCG(seed, 0x73706c6974)), bulk.Make[uint32](n, n)) // "split"
	} else {
		shuffleHeld(held, k, rand.New(rand.NewPCG(seed, 0x73706c6974)), bulk.Make[uint64](n, n))
	}
	return s.pick(func(i int) bool { return !held[i] }, true), s.pick(func(i int) bool { return held[i] }, true)
}

// shuffleHeld marks in held the first k of a partial Fisher–Yates shuffle
// of the indexes 0 … len(held)−1, drawn from rng, in idx (len(held)
// long, overwritten).
func shuffleHeld[I uint32 | uint64](held []bool, k int, rng *rand.Rand, idx []I) {
	n := len(held)
	for i := range idx {
		idx[i] = I(i)
	}
	for i := 0; i < k; i++ {
		j := i + rng.IntN(n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	for _, i := range idx[:k] {
		held[i] = true
	}
}
