package sample

import (
	"encoding/binary"
	"hash/maphash"
	"unsafe"
)

// digestSeed is the seed of every Digest in this process.
var digestSeed = maphash.MakeSeed()

// Digest returns a 64-bit hash of the sample's items in their order:
// every column, bit for bit, with the segment names. Two samples of one
// process with equal digests hold the same items, but for a collision
// (a chance of 2⁻⁶⁴); digests of different processes do not compare. It
// tells whether reading an input again gave the same rows (plan reads a
// file twice rather than hold its rows' order: docs/performance.md,
// Memory), at memory speed: the columns are hashed as they lie.
func (s *Sample) Digest() uint64 {
	var h maphash.Hash
	h.SetSeed(digestSeed)
	// Each column with its length: no two run into each other, and on a
	// sample with items a column differs from none.
	hashColumn(&h, s.Times)
	hashColumn(&h, s.Censored)
	hashColumn(&h, s.Weights)
	hashColumn(&h, s.Segment)
	hashColumn(&h, s.Segment8)
	hashColumn(&h, s.Created)
	word(&h, len(s.SegmentNames))
	for _, name := range s.SegmentNames {
		word(&h, len(name))
		h.WriteString(name)
	}
	return h.Sum64()
}

// hashColumn hashes col's length, then its memory.
func hashColumn[T bool | uint8 | float64 | int32 | int64](h *maphash.Hash, col []T) {
	word(h, len(col))
	if len(col) == 0 {
		return
	}
	var zero T
	h.Write(unsafe.Slice((*byte)(unsafe.Pointer(&col[0])), len(col)*int(unsafe.Sizeof(zero))))
}

// word hashes v as 8 bytes.
func word(h *maphash.Hash, v int) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	h.Write(b[:])
}
