package ingest

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
	var n [8]byte
	word := func(v int) {
		binary.LittleEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
	word(s.Len())
	writeBytes(&h, s.Times)
	// A nil column and an empty one differ; so do a column and none.
	word(len(s.Censored))
	writeBytes(&h, s.Censored)
	word(len(s.Weights))
	writeBytes(&h, s.Weights)
	word(len(s.Segment))
	writeBytes(&h, s.Segment)
	word(len(s.Segment8))
	writeBytes(&h, s.Segment8)
	word(len(s.Created))
	writeBytes(&h, s.Created)
	word(len(s.SegmentNames))
	for _, name := range s.SegmentNames {
		word(len(name))
		h.WriteString(name)
	}
	return h.Sum64()
}

// writeBytes hashes col's memory.
func writeBytes[T bool | uint8 | float64 | int32 | int64](h *maphash.Hash, col []T) {
	if len(col) == 0 {
		return
	}
	var zero T
	h.Write(unsafe.Slice((*byte)(unsafe.Pointer(&col[0])), len(col)*int(unsafe.Sizeof(zero))))
}
