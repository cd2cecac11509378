package sample

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
// The parts are copies; SplitInPlace gives the same parts without them.
//
// holdout is the share held out, 0 ≤ holdout < 1; Split panics outside
// that range (callers check the flag).
func (s *Sample) Split(holdout float64, seed uint64) (train, test *Sample) {
	return s.SplitCount(holdoutCount(holdout, s.Len()), seed)
}

// SplitCount is Split holding out k items, 0 ≤ k ≤ n (fit's holdout
// keeps one item to score and two to fit on small samples); Split with a
// holdout of k/n holds out the same items. It panics for k outside [0, n].
func (s *Sample) SplitCount(k int, seed uint64) (train, test *Sample) {
	held, _ := s.held(k, seed)
	return s.pick(func(i int) bool { return !held.has(i) }, true), s.pick(held.has, true)
}

// holdoutCount is the number of items a holdout share of n holds out,
// round(holdout·n); it panics outside [0, 1) (callers check the flag).
func holdoutCount(holdout float64, n int) int {
	if !(holdout >= 0 && holdout < 1) {
		panic(fmt.Sprintf("sample: Split: holdout %v is not in [0, 1)", holdout))
	}
	return int(math.Round(holdout * float64(n)))
}

// SplitInPlace returns the parts Split returns for the same holdout and
// seed, without copying the sample: it reorders s's items in place, the
// training items first and the held-out ones after, each in their original
// order, and returns the two as views of s (Slice). s keeps all its items,
// in that order. A caller that needs s's order afterwards uses Split.
//
// The reordering is a stable partition done column by column through a
// buffer of the held-out items, which is the memory of the shuffle's
// indexes once the held-out items are marked (4 bytes an item: room for
// holdout ≤ ½ of 8-byte values, two words each). 10⁷ rows split 70/30
// take those 4 bytes and a bit an item at a time, instead of the 9 of
// copying both parts (docs/performance.md, Memory).
func (s *Sample) SplitInPlace(holdout float64, seed uint64) (train, test *Sample) {
	train, test, _ = s.SplitInPlaceUndo(holdout, seed)
	return train, test
}

// SplitInPlaceUndo is SplitInPlace, and returns undo, which puts s's
// items back in their original order (a stable merge of the two parts by
// the split's marks, a bit an item, through a buffer of the held-out
// items that undo allocates: 4 bytes an item for holdout ≤ ½). The views
// train and test are not to be read after undo. A caller that needs s's
// order after the parts are done with (plan's segments, which are taken
// out of all items after those are planned) so holds a bit an item
// instead of a copy of the sample.
func (s *Sample) SplitInPlaceUndo(holdout float64, seed uint64) (train, test *Sample, undo func()) {
	k := holdoutCount(holdout, s.Len())
	held, buf := s.held(k, seed)
	if len(buf) < 2*k {
		buf = make([]uint32, 2*k)
	}
	s.eachColumn(func(c column) { c.partition(held, k, buf) })
	n := s.Len()
	undo = func() {
		buf := make([]uint32, 2*k)
		s.eachColumn(func(c column) { c.unpartition(held, k, buf) })
	}
	return s.Slice(0, n-k), s.Slice(n-k, n), undo
}

// column is one of a sample's columns, for the stable partitions of
// SplitInPlaceUndo (the segment labels as 4-byte values).
type column interface {
	partition(held heldSet, k int, buf []uint32)
	unpartition(held heldSet, k int, buf []uint32)
}

// codedColumn is a column whose values go through buf in w words each
// (1 or 2), as enc writes their bits and dec reads them back.
type codedColumn[T any] struct {
	col []T
	w   int
	enc func(T) uint64
	dec func(uint64) T
}

func (c codedColumn[T]) partition(held heldSet, k int, buf []uint32) {
	partition(c.col, held, k, buf, c.w, c.enc, c.dec)
}

func (c codedColumn[T]) unpartition(held heldSet, k int, buf []uint32) {
	unpartition(c.col, held, k, buf, c.w, c.enc, c.dec)
}

// eachColumn calls fn on each of s's columns that is not nil.
func (s *Sample) eachColumn(fn func(column)) {
	if s.Times != nil {
		fn(codedColumn[float64]{s.Times, 2, math.Float64bits, math.Float64frombits})
	}
	if s.Censored != nil {
		fn(codedColumn[bool]{s.Censored, 1, func(v bool) uint64 {
			if v {
				return 1
			}
			return 0
		}, func(u uint64) bool { return u != 0 }})
	}
	if s.Weights != nil {
		fn(codedColumn[float64]{s.Weights, 2, math.Float64bits, math.Float64frombits})
	}
	if s.Segment != nil {
		fn(codedColumn[int32]{s.Segment, 1, func(v int32) uint64 { return uint64(uint32(v)) }, func(u uint64) int32 { return int32(uint32(u)) }})
	}
	if s.Segment8 != nil {
		fn(codedColumn[uint8]{s.Segment8, 1, func(v uint8) uint64 { return uint64(v) }, func(u uint64) uint8 { return uint8(u) }})
	}
	if s.Created != nil {
		fn(codedColumn[int64]{s.Created, 2, func(v int64) uint64 { return uint64(v) }, func(u uint64) int64 { return int64(u) }})
	}
}

// partition moves the items of col that held marks to its end, keeping
// the order of both kinds; k counts them. Each held item waits in buf in
// w words (1 or 2: buf holds at least k·w), as enc writes its bits and
// dec reads them back. A nil col is left nil.
func partition[T any](col []T, held heldSet, k int, buf []uint32, w int, enc func(T) uint64, dec func(uint64) T) {
	if col == nil {
		return
	}
	m, wr := 0, 0
	for i, v := range col {
		if !held.has(i) {
			col[wr] = v
			wr++
			continue
		}
		storeWords(buf[m:], w, enc(v))
		m += w
	}
	for j := range k {
		col[wr+j] = dec(loadWords(buf[j*w:], w))
	}
}

// unpartition undoes partition: the k held items at the end of col go
// back to the places held marks, and the others to the places between,
// each kind in its order. The held items wait in buf as in partition.
func unpartition[T any](col []T, held heldSet, k int, buf []uint32, w int, enc func(T) uint64, dec func(uint64) T) {
	if col == nil {
		return
	}
	n := len(col)
	for j, v := range col[n-k:] {
		storeWords(buf[j*w:], w, enc(v))
	}
	// From the end: the training items left to place are at col[:rd],
	// none of them after i, so none is overwritten before it is read.
	rd, m := n-k, k
	for i := n - 1; i >= 0; i-- {
		if !held.has(i) {
			rd--
			col[i] = col[rd]
			continue
		}
		m--
		col[i] = dec(loadWords(buf[m*w:], w))
	}
}

// storeWords writes the low w·32 bits of b to buf[0] and, for w = 2,
// buf[1].
func storeWords(buf []uint32, w int, b uint64) {
	buf[0] = uint32(b)
	if w == 2 {
		buf[1] = uint32(b >> 32)
	}
}

// loadWords reads back what storeWords wrote.
func loadWords(buf []uint32, w int) uint64 {
	b := uint64(buf[0])
	if w == 2 {
		b |= uint64(buf[1]) << 32
	}
	return b
}

// heldSet marks the items Split holds out, a bit an item.
type heldSet []uint64

func (h heldSet) has(i int) bool { return h[i>>6]&(1<<(i&63)) != 0 }

func (h heldSet) set(i int) { h[i>>6] |= 1 << (i & 63) }

// held marks the k items Split holds out; it also returns the shuffle's
// indexes as words (nil above 2³² items), which are done with.
func (s *Sample) held(k int, seed uint64) (held heldSet, scratch []uint32) {
	n := s.Len()
	if k < 0 || k > n {
		panic(fmt.Sprintf("sample: Split: %d items held out of %d", k, n))
	}
	// Shuffle the first k positions only (a partial Fisher–Yates): they
	// are a uniform random k-subset.
	// Indexes as uint32 (4 bytes an item, not 8) below 2³² items; the
	// draws are the same either way.
	rng := rand.New(rand.NewPCG(seed, 0x73706c6974)) // "split"
	if n < 1<<24 {
		// 3 bytes an index below 2²⁴ items: at 10⁷ rows the shuffle is
		// the plan's peak, 10 MB lower so.
		idx := make24(n)
		return shuffleHeld24(n, k, rng, idx), idx
	}
	if n <= math.MaxUint32 {
		scratch = bulk.Make[uint32](n, n)
		return shuffleHeld(n, k, rng, scratch), scratch
	}
	return shuffleHeld(n, k, rng, bulk.Make[uint64](n, n)), nil
}

// shuffleHeld marks the first k of a partial Fisher–Yates shuffle of the
// indexes 0 … n−1, drawn from rng, in idx (n long, overwritten).
func shuffleHeld[I uint32 | uint64](n, k int, rng *rand.Rand, idx []I) heldSet {
	for i := range idx {
		idx[i] = I(i)
	}
	for i := 0; i < k; i++ {
		j := i + rng.IntN(n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	held := make(heldSet, (n+63)/64)
	for _, i := range idx[:k] {
		held.set(int(i))
	}
	return held
}

// packed24 holds values below 2²⁴, 3 bytes each, packed in 32-bit words
// (with a word to spare, so that a value's two words are always there),
// which the partition that follows the shuffle reuses as its buffer.
type packed24 []uint32

// make24 returns a packed24 of n values.
func make24(n int) packed24 {
	w := (3*n+3)/4 + 1
	return make([]uint32, w)
}

func (p packed24) get(i int) uint32 {
	b := 24 * i
	q, r := b>>5, b&31
	v := uint64(p[q]) | uint64(p[q+1])<<32
	return uint32(v>>r) & 0xFFFFFF
}

func (p packed24) set(i int, x uint32) {
	b := 24 * i
	q, r := b>>5, b&31
	v := uint64(p[q]) | uint64(p[q+1])<<32
	v = v&^(0xFFFFFF<<r) | uint64(x)<<r
	p[q], p[q+1] = uint32(v), uint32(v>>32)
}

// shuffleHeld24 is shuffleHeld on indexes packed in 3 bytes: the same
// draws, so the same items held. The value a draw brings to position i is
// final there, so it is marked at once and position i not written.
func shuffleHeld24(n, k int, rng *rand.Rand, idx packed24) heldSet {
	for i := range n {
		idx.set(i, uint32(i))
	}
	held := make(heldSet, (n+63)/64)
	for i := range k {
		j := i + rng.IntN(n-i)
		held.set(int(idx.get(j)))
		idx.set(j, idx.get(i))
	}
	return held
}
