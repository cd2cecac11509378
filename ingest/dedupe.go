package ingest

import (
	"math"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// Duplicates come in two kinds. With ReadOptions.Dedupe, the first row of
// each value of the id column is kept and later ones are dropped (counted
// as "duplicate id"): every id is remembered as a 64-bit hash (XXH3), so
// among 10⁷ distinct ids two collide, and a row is wrongly dropped, with
// probability about n²/2⁶⁵ ≈ 3·10⁻⁶. Without it, rows that repeat an
// earlier row byte for byte are counted (Report.Repeated) and warned
// about, as a log written twice moves every quantile without a word.
//
// Counting repeats exactly would hash every row (as much as a tenth of the
// CSV reader's time) and keep a hash per row. Instead the count is exact
// up to repeatCap distinct rows and estimated beyond, by distinct sampling
// (P. B. Gibbons, "Distinct sampling for highly-accurate answers to
// distinct values queries and event reports", VLDB 2001): a row is sampled
// when its cheap fingerprint (a mix of its length and three 8-byte
// windows, rowSelector) falls below 2⁶⁴/2^level. Equal rows have equal
// fingerprints, so a row and its repeats are sampled together, and the
// repeats among the sampled rows, times 2^level, estimate all of them
// without bias (rows that share a fingerprint without being equal make
// the sample coarser). When the sample holds more than repeatCap distinct rows,
// the level goes up by one and the sampled rows that no longer qualify
// are forgotten. Only sampled rows are hashed in full.

// repeatCap is the number of distinct sampled rows kept: up to it, the
// count of repeated rows is exact.
const repeatCap = 1 << 12

// hashCounts is an open-addressing hash table from 64-bit row hashes to
// counts, each with the fingerprint that sampled it.
type hashCounts struct {
	keys  []uint64 // 0 is an empty slot
	sel   []uint64
	count []uint32
	n     int
	spare *hashCounts // the arrays of the last rebuild, for the next one
}

// init empties h and gives it the given number of slots, a power of 2,
// reusing arrays when it can.
func (h *hashCounts) init(slots int) {
	if len(h.keys) == slots {
		clear(h.keys)
		h.n = 0
		return
	}
	h.keys = make([]uint64, slots)
	h.sel = make([]uint64, slots)
	h.count = make([]uint32, slots)
	h.n = 0
}

// add counts key (with its fingerprint sel) once more.
func (h *hashCounts) add(key, sel uint64) { h.put(key, sel, 1) }

// put adds c to the count of key.
func (h *hashCounts) put(key, sel uint64, c uint32) {
	if key == 0 {
		key = 1
	}
	if 2*(h.n+1) > len(h.keys) {
		h.rebuild(2*len(h.keys), func(uint64) bool { return true })
	}
	mask := uint64(len(h.keys) - 1)
	for i := key & mask; ; i = (i + 1) & mask {
		switch h.keys[i] {
		case key:
			h.count[i] += c
			return
		case 0:
			h.keys[i], h.sel[i], h.count[i] = key, sel, c
			h.n++
			return
		}
	}
}

// rebuild remakes the table with the given number of slots, keeping the
// entries whose fingerprint passes keep.
func (h *hashCounts) rebuild(slots int, keep func(sel uint64) bool) {
	old := *h
	old.spare = nil
	if h.spare != nil {
		*h = *h.spare
	} else {
		*h = hashCounts{}
	}
	h.init(max(64, slots))
	for i, k := range old.keys {
		if k != 0 && keep(old.sel[i]) {
			h.put(k, old.sel[i], old.count[i])
		}
	}
	h.spare = &old
}

// repeats counts rows that repeat an earlier row (see above). Workers read
// level to skip rows that cannot be sampled; the merger, in input order,
// adds the rows they sampled.
type repeats struct {
	level atomic.Int32
	tab   hashCounts
	rows  int // rows counted
}

// limit is the largest fingerprint sampled at level l: 2⁶⁴/2^l − 1.
func limit(l int32) uint64 { return ^uint64(0) >> l }

// add adds the sampled rows of a batch of n rows, in order, sampled up
// to fingerprint blim: a batch that raised its own level (batch.sample)
// raises the merger's to it first.
func (r *repeats) add(rows []sampledRow, n int, blim uint64) {
	r.rows += n
	if r.tab.keys == nil {
		r.tab.init(2 * repeatCap)
	}
	l := r.level.Load()
	lim := limit(l)
	if blim < lim {
		for limit(l) > blim {
			l++
		}
		lim = limit(l)
		r.level.Store(l)
		r.tab.rebuild(len(r.tab.keys), func(sel uint64) bool { return sel <= lim })
	}
	for _, x := range rows {
		if x.sel > lim {
			continue
		}
		r.tab.add(x.key, x.sel)
		if r.tab.n > repeatCap {
			l++
			lim = limit(l)
			r.level.Store(l)
			r.tab.rebuild(len(r.tab.keys), func(sel uint64) bool { return sel <= lim })
		}
	}
}

// count returns the number of repeated rows, exact when the level is 0.
func (r *repeats) count() (n int, exact bool) {
	if r.tab.keys == nil {
		return 0, true
	}
	var sum uint64
	for i, k := range r.tab.keys {
		if k != 0 {
			sum += uint64(r.tab.count[i] - 1)
		}
	}
	l := r.level.Load()
	est := float64(sum) * math.Ldexp(1, int(l))
	return int(min(est, float64(r.rows))), l == 0
}

// sampledRow is a row a worker sampled: its full hash and fingerprint.
type sampledRow struct{ key, sel uint64 }

// rowSelector is the cheap fingerprint of a row's bytes: its length and
// three 8-byte windows (the first 16 bytes, where ids and timestamps
// usually are, and the last 8), mixed by multiplications (Fibonacci hashing,
// Knuth, TAOCP vol. 3, 6.4) whose top bits decide the sampling. Rows that
// agree on all of them share it, which only makes the sample coarser.
func rowSelector(b []byte) uint64 {
	if len(b) < 16 {
		return shortSelector(b)
	}
	return windows(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
}

// windows mixes the length n ≥ 16 of the bytes at p with three 8-byte
// windows of them, read without bounds checks.
func windows(p unsafe.Pointer, n uintptr) uint64 {
	x := *(*uint64)(p) ^ *(*uint64)(unsafe.Add(p, 8))*0xbf58476d1ce4e5b9 ^ *(*uint64)(unsafe.Add(p, n-8))
	return (x + uint64(n)) * 0x9E3779B97F4A7C15
}

//go:noinline
func shortSelector(b []byte) uint64 {
	var x uint64
	for _, c := range b {
		x = x<<8 | uint64(c)
	}
	return mix64(x ^ uint64(len(b))<<56)
}

// mix64 is the finaliser of SplitMix64 (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014).
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// seenWords is the size of a batch's bitmap of sampled row hashes:
// 2¹⁴ bits, so that repeatCap distinct rows set about 3,600 of them.
const seenWords = 256

// sample keeps row b, whose fingerprint is sel (≤ bt.lim), for the repeat
// count. A batch may hold more distinct rows than the merger will keep:
// the merger's level will then rise past the batch's, and the batch
// raises its own at once, hashing and keeping fewer rows. It counts its
// distinct rows from below, by the bits their hashes set in a bitmap
// (equal rows set the same bit), so it never raises the level further
// than the merger will: the result does not depend on how the input is
// cut into batches.
func (bt *batch) sample(b []byte, sel uint64) {
	if bt.sampled == nil {
		bt.sampled = make([]sampledRow, 0, 1024)
		bt.seen = new([seenWords]uint64)
	}
	key := xxh3.Hash(b)
	bt.sampled = append(bt.sampled, sampledRow{key, sel})
	if bt.mark(key) {
		for bt.distinct > repeatCap {
			bt.lim >>= 1
			clear(bt.seen[:])
			bt.distinct = 0
			k := 0
			for _, x := range bt.sampled {
				if x.sel <= bt.lim {
					bt.sampled[k] = x
					k++
					bt.mark(x.key)
				}
			}
			bt.sampled = bt.sampled[:k]
		}
	}
}

// mark sets the bit of key and reports whether it was clear.
func (bt *batch) mark(key uint64) bool {
	w, bit := key>>6%seenWords, uint64(1)<<(key&63)
	if bt.seen[w]&bit != 0 {
		return false
	}
	bt.seen[w] |= bit
	bt.distinct++
	return true
}

// idHash is the hash of an id value for Dedupe.
func idHash(b []byte) uint64 { return xxh3.Hash(b) }

// idSet is the set of ids seen, as hashes, for Dedupe.
type idSet struct {
	keys []uint64
	n    int
}

// add adds key and reports whether it is new.
func (s *idSet) add(key uint64) bool {
	if key == 0 {
		key = 1
	}
	if 2*(s.n+1) > len(s.keys) {
		old := s.keys
		s.keys = make([]uint64, max(1024, 2*len(old)))
		s.n = 0
		for _, k := range old {
			if k != 0 {
				s.add(k)
			}
		}
	}
	mask := uint64(len(s.keys) - 1)
	for i := mix64(key) & mask; ; i = (i + 1) & mask {
		switch s.keys[i] {
		case key:
			return false
		case 0:
			s.keys[i] = key
			s.n++
			return true
		}
	}
}

// skewMax is the most negative duration clock skew explains, in seconds:
// NTP keeps the clocks of a data centre within tens of milliseconds of
// each other, so a duration below −1 s is a wrong column, a swapped start
// and end, or a time zone, not skew (Report.Warnings).
const skewMax = -1.0

// identifies reports whether rows with this header can tell items apart,
// so that a row repeated byte for byte is a row logged twice: when they
// hold timestamps, or a column pollfit does not read (an id, a host, a
// message). Rows of a duration and the columns read with it (status,
// segment) repeat by chance wherever values are rounded: 3,000
// exponential settle times to 4 decimals repeat 20 times.
func (p *plan) identifies(header []string) bool {
	if p.polls {
		return false // a poll log's checks count repeated polls (PollCounts)
	}
	if p.created {
		return true
	}
	for _, h := range header {
		if !slices.Contains(p.names[:], h) {
			return true
		}
	}
	return false
}

// warnCleaning warns about repeated rows and zeroed negatives.
func (m *merger) warnCleaning(p *plan) {
	if n, exact := m.repeats.count(); n > 0 {
		about := ""
		if !exact {
			about = "about "
		}
		m.rep.warn("%s%d of the %d rows repeat an earlier row exactly (%.3g%%): if each row is one item, --dedupe COLUMN keeps the first row per id",
			about, n, m.repeats.rows, 100*float64(n)/float64(m.repeats.rows))
		m.rep.Repeated, m.rep.RepeatedExact = n, exact
	}
	if z := m.rep.Zeroed; z > 0 && m.rep.Lowest < skewMax {
		m.rep.warn("%s %s set to 0 (--negative zero), the lowest %s: more than clock skew explains; check the columns and their time zones",
			howMany(z, "negative duration"), wereOf(z), fmtSigned(m.rep.Lowest))
	}
	if d := m.negDropped.n; d > 0 && m.negDropped.lowest < skewMax {
		flag := "--negative drop"
		if p.opt.DropInvalid && p.opt.Negative != NegativeDrop {
			flag = "--drop-invalid"
		}
		m.rep.warn("%s %s dropped (%s), the lowest %s: more than clock skew explains; check the columns and their time zones",
			howMany(d, "negative duration"), wereOf(d), flag, fmtSigned(m.negDropped.lowest))
	}
}

// idOf hashes the id cell of a row for Dedupe; an empty id is an error.
func idOf(c *cell) (uint64, error) {
	switch c.kind {
	case cellText:
		s := trimSpace(c.b)
		if len(s) == 0 {
			return 0, ErrEmptyValue
		}
		return idHash(s), nil
	case cellInt, cellNanos:
		return mix64(uint64(c.ns)), nil
	case cellNum:
		return mix64(math.Float64bits(c.f)), nil
	}
	return 0, ErrEmptyValue
}

// dedupe drops the items of b whose id an earlier item had (Dedupe),
// keeping the first of each id in input order.
func (m *merger) dedupe(b *batch) {
	k := 0
	for i, h := range b.ids {
		if !m.ids.add(h) {
			b.used--
			if b.cens != nil && b.cens[i] {
				b.censored--
			}
			if b.lower != nil && b.lower[i] < b.times[i] {
				b.intervals--
			}
			b.dropped[reasonDuplicateID]++
			continue
		}
		if k != i {
			b.times[k] = b.times[i]
			if b.cens != nil {
				b.cens[k] = b.cens[i]
			}
			if b.seg.len() > 0 {
				b.seg.move(k, i)
			}
			if b.created != nil {
				b.created[k] = b.created[i]
			}
			if b.lower != nil {
				b.lower[k] = b.lower[i]
			}
		}
		k++
	}
	b.times = b.times[:k]
	if b.cens != nil {
		b.cens = b.cens[:k]
	}
	if b.seg.len() > 0 {
		b.seg.truncate(k)
	}
	if b.created != nil {
		b.created = b.created[:k]
	}
	if b.lower != nil {
		b.lower = b.lower[:k]
	}
	b.ids = b.ids[:k]
}
