package ingest

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// fast parses records without quotes: fields are the bytes between
// delimiters and only the columns in use are looked at.
//
// A record costs three scans of its bytes, each a vectorised library
// call: its line break, its delimiters counted (a ragged record is an
// error), and the short hops to the fields in use, taken from whichever
// end of the record is nearer (settle times are often the last column).
// Stepping from field to field from the front took half the read's time
// on a 6-column file whose last column was the one in use.
func (w *csvWorker) fast(data []byte, b *batch) {
	f, p, delim := w.f, w.f.p, w.f.delim
	sampling := f.rep != nil
	if sampling {
		b.lim, b.sampling = limit(f.rep.level.Load()), true
	}
	// need[:front] are reached from the record's start, the rest from
	// its end.
	front := 0
	for front < len(f.need) && f.need[front].idx < f.ncols/2 {
		front++
	}
	// A duration column read alone, as plain decimals, skips the general
	// row path (plan.row): a third of a record's cost.
	plain := p.plainDuration() && len(f.need) == 1 && f.need[0].role == roleDur
	if plain && plainFast {
		w.fastPlain(data, b)
		return
	}
	line := 0
	for len(data) > 0 {
		line++
		var rec []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			rec, data = data[:i], data[i+1:]
		} else {
			rec, data = data, nil
		}
		if len(rec) > 0 && rec[len(rec)-1] == '\r' {
			rec = rec[:len(rec)-1]
		}
		if len(rec) == 0 {
			b.blank++
			continue
		}
		if sampling {
			// rowSelector, its common case inlined.
			var sel uint64
			if len(rec) >= 16 {
				sel = windows(unsafe.Pointer(unsafe.SliceData(rec)), uintptr(len(rec)))
			} else {
				sel = shortSelector(rec)
			}
			if sel <= b.lim {
				b.sample(rec, sel)
			}
		}
		if nf := 1 + bytes.Count(rec, []byte{delim}); nf != f.ncols {
			b.read++
			err := fieldCountError(f.ncols, nf, rec)
			if p.opt.DropInvalid {
				b.dropped[reasonFields]++
				continue
			}
			w.fail(b, line, -1, err)
			return
		}
		// The record has ncols fields: every hop below finds its
		// delimiter.
		col, rest := 0, rec
		for _, nc := range f.need[:front] {
			for ; col < nc.idx; col++ {
				rest = rest[bytes.IndexByte(rest, delim)+1:]
			}
			field := rest
			if i := bytes.IndexByte(rest, delim); i >= 0 {
				field = rest[:i]
			}
			w.cells[nc.role] = cell{kind: cellText, b: field}
		}
		col, rest = f.ncols-1, rec
		for k := len(f.need) - 1; k >= front; k-- {
			nc := f.need[k]
			for ; col > nc.idx; col-- {
				rest = rest[:lastIndexByte(rest, delim)]
			}
			field := rest[lastIndexByte(rest, delim)+1:]
			w.cells[nc.role] = cell{kind: cellText, b: field}
		}
		if plain {
			// plan.item's path for a plain decimal: never negative,
			// never empty; above MaxSeconds takes the general path.
			if t, ok := parseSimpleDecimal(w.cells[roleDur].b, p.scale.shift); ok && t*p.scale.mul <= MaxSeconds {
				b.read++
				b.used++
				b.times = append(b.times, t*p.scale.mul)
				continue
			}
		}
		b.at = line
		if r, err := p.row(b, &w.cells); err != nil {
			w.fail(b, line, r, err)
			return
		}
	}
	b.lines = line
}

// fastPlain is fast for a duration column read alone (plan.plainDuration),
// with its steps inlined: the record's line end and delimiter count (two
// vectorised library calls), the hops to the field, and the parse of a
// plain decimal, which never needs the general row path (plan.row) but
// for other forms (units, exponents, negatives, the unparsable). Its
// record split and row sampling repeat fast's on purpose: as shared
// helpers (too costly for the inliner) they cost 2.9 % more instructions
// on 2M rows (cachegrind, GOMAXPROCS=1: 1,694 M → 1,744 M).
func (w *csvWorker) fastPlain(data []byte, b *batch) {
	f, p, delim := w.f, w.f.p, w.f.delim
	cs := uint64(delim) * lanes01
	sampling := f.rep != nil
	if sampling {
		b.lim, b.sampling = limit(f.rep.level.Load()), true
	}
	idx, ncols := f.need[0].idx, f.ncols
	fromEnd := idx >= ncols/2 // as fast's front
	shift, mul := p.scale.shift, p.scale.mul
	// The batch's times and counts in locals, stored back before the
	// general path and at the end.
	times, plain := b.times, 0
	line := 0
	for len(data) > 0 {
		line++
		var rec []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			rec, data = data[:i], data[i+1:]
		} else {
			rec, data = data, nil
		}
		if len(rec) > 0 && rec[len(rec)-1] == '\r' {
			rec = rec[:len(rec)-1]
		}
		if len(rec) == 0 {
			b.blank++
			continue
		}
		if sampling {
			var sel uint64
			if len(rec) >= 16 {
				sel = windows(unsafe.Pointer(unsafe.SliceData(rec)), uintptr(len(rec)))
			} else {
				sel = shortSelector(rec)
			}
			if sel <= b.lim {
				b.sample(rec, sel)
			}
		}
		if nf := 1 + bytes.Count(rec, []byte{delim}); nf != ncols {
			b.read++
			err := fieldCountError(ncols, nf, rec)
			if p.opt.DropInvalid {
				b.dropped[reasonFields]++
				continue
			}
			b.times, b.read, b.used = times, b.read+plain, b.used+plain
			w.fail(b, line, -1, err)
			return
		}
		// The record has ncols fields: every hop below finds its
		// delimiter.
		// The field is field[start:]; the slice is taken only where it
		// is read. When it is found in its record's last 8 bytes, short
		// holds its bytes in its low lanes, the others zero, and
		// shortLen its length; else shortLen is 0.
		field, start := rec, 0
		var short uint64
		shortLen := 0
		if fromEnd {
			for col := ncols - 1; col > idx; col-- {
				field = field[:lastIndexByte(field, delim)]
			}
			// The last field, mostly shorter than 8 bytes: the last 8
			// tested at once.
			if n := len(field) - 8; n < 0 {
				start = lastIndexByte(field, delim) + 1
			} else {
				x := binary.LittleEndian.Uint64(field[n:])
				if m := equalBytes(x, cs); m != 0 {
					k := (63 - bits.LeadingZeros64(m)) >> 3
					start = n + k + 1
					if k < 7 { // else the field is empty
						short, shortLen = x>>((8*k+8)&63), 7-k
					}
				} else {
					start = lastIndexByte(field[:n], delim) + 1
				}
			}
		} else {
			for range idx {
				field = field[bytes.IndexByte(field, delim)+1:]
			}
			if i := bytes.IndexByte(field, delim); i >= 0 {
				field = field[:i]
			}
		}
		// plan.item's path for a plain decimal: never negative, never
		// empty; above MaxSeconds takes the general path.
		var t float64
		var ok bool
		if shortLen > 0 {
			t, ok = parseShortDecimal(short, shortLen, shift)
		} else {
			t, ok = parseSimpleDecimal(field[start:], shift)
		}
		if ok && t*mul <= MaxSeconds {
			times = append(times, t*mul)
			plain++
			continue
		}
		field = field[start:]
		b.times = times
		w.cells[roleDur] = cell{kind: cellText, b: field}
		b.at = line
		r, err := p.row(b, &w.cells)
		times = b.times
		if err != nil {
			b.read, b.used = b.read+plain, b.used+plain
			w.fail(b, line, r, err)
			return
		}
	}
	b.times, b.read, b.used = times, b.read+plain, b.used+plain
	b.lines = line
}

// lastIndexByte is bytes.LastIndexByte, which the compiler does not
// inline.
func lastIndexByte(s []byte, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return -1
}

const (
	lanes01 = 0x0101010101010101
	lanes30 = 0x3030303030303030
	lanes7f = 0x7f7f7f7f7f7f7f7f
	lanes80 = 0x8080808080808080
)

// equalBytes marks with bit 7 each byte of x equal to c, whose lanes are
// cs (c·0x01…01), and clears every other bit:
//
//	y = ((x ^ cs) & 0x7f…7f) + 0x7f…7f
//	m = ^(y | (x ^ cs) | 0x7f…7f)
//
// a byte of x ^ cs is zero exactly when neither its low seven bits carry
// into bit 7 of y nor its own bit 7 is set. Unlike the classic
// (x − 0x01…01) & ^x & 0x80…80, which marks a byte 0x01 above a zero byte
// (its borrow), every byte is marked exactly (Warren, Hacker's Delight,
// 2nd ed., section 6-1).
func equalBytes(x, cs uint64) uint64 {
	x ^= cs
	y := (x & lanes7f) + lanes7f
	return ^(y | x | lanes7f)
}
