package ingest

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/pollfit/pollfit/ingest/internal/pq"
	"github.com/pollfit/pollfit/internal/bulk"
)

// pqReader reads row groups, keeping the last file open.
type pqReader struct {
	path  string
	rdr   pqOpen
	cur   [nRoles]pqCursor
	cells [nRoles]cell
	key   []byte // a row's cells in use, for the repeat count
	plain pq.Chunk
}

// appendCells appends the cells of the roles in use to key, each as its
// kind and value, so that equal rows give equal keys.
func appendCells(key []byte, c *[nRoles]cell, active []role) []byte {
	for _, ro := range active {
		x := &c[ro]
		key = append(key, byte(x.kind))
		switch x.kind {
		case cellText:
			key = binary.LittleEndian.AppendUint32(key, uint32(len(x.b)))
			key = append(key, x.b...)
		case cellNum:
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(x.f))
		case cellInt, cellNanos:
			key = binary.LittleEndian.AppendUint64(key, uint64(x.ns))
		}
	}
	return key
}

func (r *pqReader) close() {
	r.rdr.close()
	r.rdr, r.path = pqOpen{}, ""
}

// open makes f the open file, unless it is already.
func (r *pqReader) open(f *pqFile) error {
	if r.path == f.in.path {
		return nil
	}
	r.close()
	open, err := openParquet(f.in.path)
	if err != nil {
		return err
	}
	r.path, r.rdr = f.in.path, open
	return nil
}

// readRowGroup decodes row group rg of f into b: by readPlain when it
// can, else by read.
func (r *pqReader) readRowGroup(f *pqFile, rg int, p *plan, b *batch) error {
	if f.plain {
		ok, err := r.readPlain(f, rg, p, b)
		if ok || err != nil {
			return err
		}
		b.times = b.times[:0]
	}
	return r.read(f, rg, p, b)
}

// corrupt is the error of a damaged column chunk.
func corrupt(f *pqFile, rg, row int, col string, err error) error {
	return &ParseError{File: f.in.path, RowGroup: rg, Row: row, Column: col, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
}

// readPlain decodes row group rg of a plain numeric duration column (see
// pqFile.plain) straight into b.times, page by page: no cells, no
// per-row path, which makes Parquet reads about twice as fast
// (docs/performance.md). It returns false, with b.times partly written,
// when the row group needs the general path: a null, or a value that is
// not a finite number ≥ 0 — read names its row, or drops it.
func (r *pqReader) readPlain(f *pqFile, rg int, p *plan, b *batch) (ok bool, err error) {
	defer func() {
		if x := recover(); x != nil {
			ok, err = false, &ParseError{File: f.in.path, RowGroup: rg, Err: fmt.Errorf("%w: %v", ErrCorrupt, x)}
		}
	}()
	if err := r.open(f); err != nil {
		return false, err
	}
	n := int(f.rowGroup[rg])
	if b.times == nil {
		b.times = bulk.Make[float64](0, n)
	}
	dst := b.times[:n]
	name := p.names[roleDur]
	ch := &r.plain
	if err := ch.Reset(r.rdr.File, rg, &f.cols[f.leaf[roleDur]]); err != nil {
		return false, corrupt(f, rg, 0, name, err)
	}
	k := f.kind[roleDur]
	// An Arrow duration in units of ns nanoseconds is made seconds as the
	// general path makes it (float64(v·ns)/10⁹); one whose nanoseconds
	// overflow is NaN, which sends the row group to the general path to
	// be named.
	ns := f.durNs[roleDur]
	lim := int64(math.MaxInt64)
	if ns > 0 {
		lim /= ns
	}
	conv := func(x int64) float64 {
		if ns > 0 {
			if x > lim || x < -lim {
				return math.NaN()
			}
			return float64(x*ns) / 1e9
		}
		return float64(x)
	}
	for got := 0; got < n; {
		page, err := ch.Next()
		if err != nil {
			return false, corrupt(f, rg, got+1, name, err)
		}
		if page.Defs != nil || got+page.Rows > n {
			return false, nil
		}
		out := dst[got : got+page.Rows]
		v := &page.Values
		if page.Index != nil {
			v = page.Dict
		}
		if !plainValues(out, v, page.Index, k.unsigned, conv) {
			return false, nil
		}
		got += page.Rows
	}
	// The general path's checks (checkFinite, the sign), over the whole
	// row group.
	sc := p.scale
	if ns > 0 {
		sc = newScale(1) // an Arrow duration, in seconds already
	}
	// Two loops, so that neither tests the unit per value.
	if div := sc.div; div != 1 {
		for i, v := range dst {
			v /= div
			if !(v >= 0 && v <= MaxSeconds) {
				return false, nil
			}
			dst[i] = v
		}
	} else {
		mul := sc.mul
		for i, v := range dst {
			v *= mul
			if !(v >= 0 && v <= MaxSeconds) {
				return false, nil
			}
			dst[i] = v
		}
	}
	b.times, b.read, b.used = dst, n, n
	return true, nil
}

// plainValues writes a page's values (with index, dictionary indices into
// v) to out as float64, integers by conv; false for a type readPlain does
// not take.
func plainValues(out []float64, v *pq.Values, index []uint32, unsigned bool, conv func(int64) float64) bool {
	at := func(i int) int { return i }
	if index != nil {
		at = func(i int) int { return int(index[i]) }
	}
	switch v.Type {
	case pq.Double:
		if index == nil {
			copy(out, v.Double)
			return true
		}
		for i, k := range index {
			out[i] = v.Double[k]
		}
	case pq.Float:
		for i := range out {
			out[i] = float64(v.Float[at(i)])
		}
	case pq.Int64:
		for i := range out {
			out[i] = conv(v.Int64[at(i)])
		}
	case pq.Int32:
		for i := range out {
			x := int64(v.Int32[at(i)])
			if unsigned {
				x = int64(uint32(x))
			}
			out[i] = float64(x)
		}
	default:
		return false
	}
	return true
}

// read decodes row group rg of f into b. Errors about the data go to
// b.err (row local to the row group); others are returned.
func (r *pqReader) read(f *pqFile, rg int, p *plan, b *batch) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = &ParseError{File: f.in.path, RowGroup: rg, Err: fmt.Errorf("%w: %v", ErrCorrupt, x)}
		}
	}()
	if err := r.open(f); err != nil {
		return err
	}
	var active []role
	for ro := range nRoles {
		r.cells[ro] = cell{}
		if c := f.consts[ro]; c != nil {
			r.cells[ro] = cell{kind: cellText, b: c}
		}
		if f.leaf[ro] < 0 {
			continue
		}
		text := role(ro) == roleStatus || role(ro) == roleSegment || role(ro) == roleID
		if err := r.cur[ro].reset(r.rdr.File, rg, &f.cols[f.leaf[ro]], f.kind[ro], text); err != nil {
			return corrupt(f, rg, 0, p.names[ro], err)
		}
		active = append(active, role(ro))
	}
	// Size the batch once: growing a row group's worth by append costs
	// more than decoding it.
	n := int(f.rowGroup[rg])
	if b.times == nil {
		b.times = make([]float64, 0, n)
	}
	if p.created && b.created == nil {
		b.created = make([]int64, 0, n)
	}
	if p.names[roleSegment] != "" && b.seg.narrow == nil {
		b.seg = labels{narrow: make([]uint8, 0, n)}
	}
	if f.rep != nil && !b.sampling {
		b.lim, b.sampling = limit(f.rep.level.Load()), true
	}
	for i := range n {
		for _, ro := range active {
			if err := r.cur[ro].load(&r.cells[ro]); err != nil {
				return corrupt(f, rg, i+1, p.names[ro], err)
			}
		}
		if f.rep != nil {
			r.key = appendCells(r.key[:0], &r.cells, active)
			if sel := rowSelector(r.key); sel <= b.lim {
				b.sample(r.key, sel)
			}
		}
		b.at = i + 1
		if ro, err := p.row(b, &r.cells); err != nil {
			b.err = &ParseError{Row: i + 1, Column: p.names[ro], Err: err}
			return nil
		}
	}
	return nil
}

// pqCursor walks one column chunk row by row, loading each row's value
// into a cell.
type pqCursor struct {
	ch    pq.Chunk
	kind  pqKind
	text  bool // a text role: integers and booleans as text
	page  *pq.Page
	row   int // the next row in page
	val   int // the next value in page
	dict  *pq.Values
	cells []cell // the dictionary's values as cells
	buf   []byte // text of the last value, for integers in text roles
}

func (c *pqCursor) reset(f *pq.File, rg int, col *pq.Column, k pqKind, text bool) error {
	c.kind, c.text, c.page, c.dict = k, text, nil, nil
	return c.ch.Reset(f, rg, col)
}

// load loads the next row's value into x.
func (c *pqCursor) load(x *cell) error {
	for c.page == nil || c.row >= c.page.Rows {
		p, err := c.ch.Next()
		if err != nil {
			return err
		}
		c.page, c.row, c.val = p, 0, 0
		if p.Index != nil && p.Dict != c.dict {
			// Each dictionary entry is made a cell once per chunk.
			c.dict = p.Dict
			c.cells = slices.Grow(c.cells[:0], p.Dict.Len())[:p.Dict.Len()]
			for k := range c.cells {
				if err := c.cell(&c.cells[k], p.Dict, k); err != nil {
					return err
				}
				if c.cells[k].kind == cellText && c.kind.class != kText {
					c.cells[k].b = slices.Clone(c.cells[k].b)
				}
			}
		}
	}
	p := c.page
	i := c.row
	c.row++
	if p.Defs != nil && p.Defs[i] == 0 {
		*x = cell{}
		return nil
	}
	k := c.val
	c.val++
	if p.Index != nil {
		*x = c.cells[p.Index[k]]
		return nil
	}
	return c.cell(x, &p.Values, k)
}

// cell makes value k of v a cell. Text roles get text whatever the
// column type; integers stay exact (epoch nanoseconds overflow a
// float64's 53 bits).
func (c *pqCursor) cell(x *cell, v *pq.Values, k int) error {
	kd := &c.kind
	integer := func(i int64) {
		if c.text {
			c.buf = strconv.AppendInt(c.buf[:0], i, 10)
			*x = cell{kind: cellText, b: c.buf}
			return
		}
		*x = cell{kind: cellInt, ns: i}
	}
	switch v.Type {
	case pq.Boolean:
		c.buf = strconv.AppendBool(c.buf[:0], v.Bool[k])
		*x = cell{kind: cellText, b: c.buf}
	case pq.Int32:
		i := int64(v.Int32[k])
		if kd.unsigned {
			i = int64(uint32(i))
		}
		switch kd.class {
		case kDate, kTimestamp:
			*x = nanosCell(i, kd.unitNs, kd.limit)
		default:
			integer(i)
		}
	case pq.Int64:
		i := v.Int64[k]
		switch kd.class {
		case kUint64:
			if c.text {
				c.buf = strconv.AppendUint(c.buf[:0], uint64(i), 10)
				*x = cell{kind: cellText, b: c.buf}
				return nil
			}
			*x = cell{kind: cellNum, f: float64(uint64(i))}
		case kDuration, kTimestamp, kDate:
			*x = nanosCell(i, kd.unitNs, kd.limit)
		default:
			integer(i)
		}
	case pq.Int96:
		// Nanoseconds of the day, then the Julian day (Apache Impala's
		// timestamp; Julian day 2440588 is 1970-01-01).
		b := v.Int96[k]
		nod, day := binary.LittleEndian.Uint64(b[:8]), int64(binary.LittleEndian.Uint32(b[8:]))-2440588
		if nod >= 86400e9 {
			return fmt.Errorf("an INT96 timestamp of %d nanoseconds in a day", nod)
		}
		*x = nanosCell(day, 86400e9, math.MaxInt64/int64(86400e9))
		if x.kind == cellNanos {
			if x.ns > math.MaxInt64-int64(nod) {
				*x = cell{kind: cellOverflow, ns: day, f: 86400e9}
			} else {
				x.ns += int64(nod)
			}
		}
	case pq.Float:
		*x = cell{kind: cellNum, f: float64(v.Float[k])}
	case pq.Double:
		*x = cell{kind: cellNum, f: v.Double[k]}
	default:
		*x = cell{kind: cellText, b: v.Bytes[k]}
	}
	return nil
}
