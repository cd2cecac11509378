package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/pollfit/pollfit/ingest/internal/pq"
	"github.com/pollfit/pollfit/internal/bulk"
)

// pqFile is the layout of one Parquet file: which leaf column holds each
// role, and the partition values of the roles it has no column for.
type pqFile struct {
	in       input
	leaf     [nRoles]int // the role's column in cols, -1 when unused or a constant
	cols     []pq.Column
	consts   [nRoles][]byte
	rowGroup []int64 // rows per row group
	rows     int64   // their sum
	// plain is set when the duration column alone is read and holds
	// plain signed integers or floats: readPlain can decode it.
	plain   bool
	columns []string // the file's top-level column names
	// durNs is the unit in nanoseconds of each role's Arrow duration
	// column, 0 for other types (see pqKind).
	durNs [nRoles]int64
	kind  [nRoles]pqKind
	// rep, when not nil, counts rows that repeat an earlier one, by the
	// columns in use: only when they include timestamps or bin bounds,
	// as durations alone repeat by chance (ties).
	rep *repeats
}

// pqUnit is one row group of one file: the unit of parallel work.
type pqUnit struct {
	file, rg int
	b        batch
	err      error
	done     chan struct{}
}

// readParquet reads Parquet files into m, row groups in parallel and
// merged in file order. With multi, a file without rows is skipped.
func readParquet(ins []input, p *plan, multi bool, bar *progress, m *merger) error {
	files := make([]*pqFile, len(ins))
	var units []*pqUnit
	for i, in := range ins {
		f, err := openParquetLayout(in, p)
		if err != nil {
			return err
		}
		files[i] = f
		m.warnLayout(f.columns, in.part, p, nil)
		m.noteUnit(p, f.durNs)
		if p.opt.Dedupe == "" && (p.names[roleStart] != "" || p.opt.Binned) {
			f.rep = &m.repeats
		}
		for rg, n := range f.rowGroup {
			if n == 0 {
				// Nothing to read, and its chunks' offsets may be 0 (arrow-go
				// writes such a group for an empty record batch).
				continue
			}
			units = append(units, &pqUnit{file: i, rg: rg, done: make(chan struct{})})
		}
	}
	rows := int64(0)
	for _, f := range files {
		rows += f.rows
	}
	// The footers' row counts size the sample: refuse, before asking for
	// the memory, more than may be read or memory holds.
	if p.maxRows > 0 && int64(m.rep.Read)+rows > int64(p.maxRows) {
		return p.tooManyRows(ins[0].path, int64(m.rep.Read)+rows)
	}
	if err := m.ensure(int(rows), nil); err != nil {
		return &ParseError{File: ins[0].path, RowGroup: -1, Err: err}
	}
	if rows == 0 && !multi {
		return &ParseError{File: ins[0].path, RowGroup: -1, Err: fmt.Errorf("%w: the file has no rows", ErrNoRows)}
	}
	if !p.opt.Binned {
		// Each row group decodes straight into its place in the sample, so
		// that merging is no copy when no row is left out. A row group
		// never yields more items than rows (binned input can: it is
		// excluded), so the windows do not overlap and m.s.Times, whose
		// capacity was reserved above, is never reallocated meanwhile.
		// Creation instants (timestamp input) likewise.
		// So do the censoring flags, when rows may be pending, and the
		// segment labels while they are a byte a row (batch-local labels
		// there, which merging remaps in place): else each row group's
		// batch made its own, 2 MB a row group at 10⁶ rows, garbage once
		// merged (issue 18).
		if m.created {
			m.s.Created = regrow(m.s.Created, cap(m.s.Times))
		}
		cens := p.names[roleStatus] != "" || p.created
		if cens && m.s.Censored == nil {
			m.s.Censored = bulk.Make[bool](len(m.s.Times), cap(m.s.Times)) // zero: dropped at the end without a censored item
		}
		if cens {
			m.s.Censored = regrow(m.s.Censored, cap(m.s.Times))
		}
		labels := p.hasSeg && m.s.Segment == nil
		if labels {
			if m.s.Segment8 == nil {
				m.s.Segment8 = bulk.Make[uint8](len(m.s.Times), cap(m.s.Times))
			}
			m.s.Segment8 = regrow(m.s.Segment8, cap(m.s.Times))
		}
		off := len(m.s.Times)
		for _, u := range units {
			n := int(files[u.file].rowGroup[u.rg])
			u.b.times = m.s.Times[off : off : off+n]
			if m.created {
				u.b.created = m.s.Created[off : off : off+n]
			}
			if cens {
				u.b.censAt = m.s.Censored[off : off+n : off+n]
			}
			if labels {
				u.b.seg.narrow = m.s.Segment8[off : off : off+n]
			}
			off += n
		}
	}

	workers := p.opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range min(workers, len(units)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r pqReader
			defer r.close()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(units) {
					return
				}
				u := units[k]
				if !stop.Load() {
					u.err = r.readRowGroup(files[u.file], u.rg, p, &u.b)
				}
				close(u.done)
			}
		}()
	}
	var firstErr error
	for _, u := range units {
		<-u.done
		if firstErr != nil {
			continue
		}
		f := files[u.file]
		switch {
		case u.err != nil:
			firstErr = u.err
		case u.b.err != nil:
			e := u.b.err
			e.File, e.RowGroup = f.in.path, u.rg
			firstErr = e
		default:
			u.b.file, u.b.rowGroup = f.in.path, u.rg
			if err := m.add(&u.b); err != nil {
				firstErr = &ParseError{File: f.in.path, RowGroup: u.rg, Err: err}
			}
			u.b = batch{}
			if n := f.rowGroup[u.rg]; n > 0 {
				bar.add(f.in.size * n / f.rows)
			}
		}
		if firstErr != nil {
			stop.Store(true)
		}
	}
	wg.Wait()
	return firstErr
}

// openParquetLayout reads a file's footer and finds the columns in use.
func openParquetLayout(in input, p *plan) (f *pqFile, err error) {
	rdr, err := openParquet(in.path)
	if err != nil {
		return nil, err
	}
	defer rdr.close()
	f = &pqFile{in: in, cols: rdr.Columns}
	for rg := range rdr.NumRowGroups() {
		f.rowGroup = append(f.rowGroup, rdr.RowGroup(rg).NumRows)
		f.rows += rdr.RowGroup(rg).NumRows
	}
	var names []string
	for _, c := range rdr.Columns {
		names = append(names, c.Name)
	}
	f.columns = names
	for r := range nRoles {
		f.leaf[r] = -1
		name := p.names[r]
		if name == "" {
			continue
		}
		i := slices.Index(names, name)
		if i < 0 {
			if v, ok := in.part[name]; ok {
				f.consts[r] = []byte(v)
				continue
			}
			if role(r) == roleCensCount && p.opt.Bins.Censored == "" {
				continue
			}
			return nil, &ParseError{File: in.path, RowGroup: -1, Column: name, Err: fmt.Errorf("%w; the file has %s", ErrMissingColumn, listColumns(names, in.part))}
		}
		k := classify(&rdr.Columns[i], rdr.durNs[name])
		if k.unitNs > 0 {
			k.limit = math.MaxInt64 / k.unitNs
		}
		if err := checkType(p, role(r), k); err != nil {
			return nil, &ParseError{File: in.path, RowGroup: -1, Column: name, Err: err}
		}
		f.kind[r] = k
		if k.class == kDuration {
			f.durNs[r] = k.unitNs
		}
		f.leaf[r] = i
	}
	f.plain = !p.opt.Binned && f.leaf[roleDur] >= 0
	for r := range nRoles {
		if role(r) != roleDur && (f.leaf[r] >= 0 || f.consts[r] != nil) {
			f.plain = false
		}
	}
	if f.plain {
		switch f.kind[roleDur].class {
		case kFloat, kInt, kDuration:
		default:
			f.plain = false
		}
	}
	return f, nil
}

// pqOpen is an open Parquet file, its footer read.
type pqOpen struct {
	*pq.File
	os    *os.File
	durNs map[string]int64 // the Arrow duration columns (arrowDurations)
}

func (o *pqOpen) close() {
	if o.os != nil {
		o.os.Close()
	}
}

// openParquet opens a Parquet file and reads its footer (ingest/internal/pq).
func openParquet(path string) (rdr pqOpen, err error) {
	fail := func(err error) (pqOpen, error) {
		if rdr.os != nil {
			rdr.os.Close()
		}
		if !errors.Is(err, ErrCorrupt) {
			err = fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		rg := -1
		if e := (*pq.RowGroupError)(nil); errors.As(err, &e) {
			rg = e.RowGroup
		}
		return pqOpen{}, &ParseError{File: path, RowGroup: rg, Err: err}
	}
	defer func() {
		if r := recover(); r != nil {
			rdr, err = fail(fmt.Errorf("%v", r))
		}
	}()
	if rdr.os, err = os.Open(path); err != nil {
		return pqOpen{}, err
	}
	// The file's own size, not the size it had when listed.
	st, err := rdr.os.Stat()
	if err != nil {
		return fail(err)
	}
	size := st.Size()
	if rdr.File, err = pq.Open(rdr.os, size); err != nil {
		return fail(err)
	}
	if v, ok := rdr.Metadata("ARROW:schema"); ok {
		err := checkArrowSchema(v)
		if err == nil {
			rdr.durNs, err = arrowDurations(v)
		}
		if err != nil {
			return fail(fmt.Errorf("%w: the ARROW:schema metadata is damaged: %v", ErrCorrupt, err))
		}
	}
	return rdr, nil
}

// pqClass is how the reader takes a column's values.
type pqClass uint8

const (
	kOther     pqClass = iota // a type no role takes (decimal, time, …)
	kInt                      // a signed integer, or unsigned of up to 32 bits
	kUint64                   // an unsigned 64-bit integer: taken as a float
	kFloat                    // FLOAT or DOUBLE
	kText                     // BYTE_ARRAY, annotated as text or not
	kBool                     // BOOLEAN
	kDuration                 // an Arrow duration stored as INT64 (unitNs)
	kTimestamp                // TIMESTAMP in units of unitNs, or INT96
	kDate                     // DATE: days
)

// pqKind is a column's class, with what decoding it needs, and its type
// as Arrow names it, for errors (the names of arrow-go's pqarrow, which
// earlier versions read Parquet through).
type pqKind struct {
	class    pqClass
	unitNs   int64
	limit    int64 // math.MaxInt64 / unitNs: the most units that fit in int64 nanoseconds
	unsigned bool  // an INT32 that holds a uint32
	int96    bool
	name     string
}

// classify describes column c; durNs is its Arrow duration unit, 0 when
// the ARROW:schema metadata does not say it is one.
func classify(c *pq.Column, durNs int64) pqKind {
	if c.Nested {
		return pqKind{name: "a nested type (a group or repeated field)"}
	}
	l := c.Logical
	switch c.Type {
	case pq.Boolean:
		return pqKind{class: kBool, name: "bool"}
	case pq.Int32, pq.Int64:
		bits := 32
		if c.Type == pq.Int64 {
			bits = 64
		}
		if durNs > 0 && c.Type == pq.Int64 && (l.Kind == pq.None || l.Kind == pq.Integer && l.Signed) {
			return pqKind{class: kDuration, unitNs: durNs, name: fmt.Sprintf("duration[%s]", arrowUnit(durNs))}
		}
		switch l.Kind {
		case pq.None:
			return pqKind{class: kInt, name: fmt.Sprintf("int%d", bits)}
		case pq.Integer:
			if !l.Signed {
				if l.BitWidth == 64 {
					return pqKind{class: kUint64, name: "uint64"}
				}
				return pqKind{class: kInt, unsigned: true, name: fmt.Sprintf("uint%d", l.BitWidth)}
			}
			return pqKind{class: kInt, name: fmt.Sprintf("int%d", l.BitWidth)}
		case pq.Date:
			return pqKind{class: kDate, unitNs: 86400e9, name: "date32"}
		case pq.Timestamp:
			tz := ""
			if l.UTC {
				tz = ", tz=UTC"
			}
			return pqKind{class: kTimestamp, unitNs: l.Unit.Nanos(), name: fmt.Sprintf("timestamp[%s%s]", arrowUnit(l.Unit.Nanos()), tz)}
		case pq.Decimal:
			return pqKind{name: fmt.Sprintf("decimal(%d, %d)", l.Precision, l.Scale)}
		case pq.Time:
			return pqKind{name: fmt.Sprintf("time%d[%s]", bits, arrowUnit(l.Unit.Nanos()))}
		case pq.Unknown:
			return pqKind{name: "null"}
		}
	case pq.Int96:
		return pqKind{class: kTimestamp, unitNs: 1, int96: true, name: "timestamp[ns]"}
	case pq.Float:
		return pqKind{class: kFloat, name: "float32"}
	case pq.Double:
		return pqKind{class: kFloat, name: "float64"}
	case pq.ByteArray:
		switch l.Kind {
		case pq.None, pq.BSON:
			return pqKind{class: kText, name: "binary"}
		case pq.String, pq.Enum, pq.JSON:
			return pqKind{class: kText, name: "utf8"}
		case pq.Decimal:
			return pqKind{name: fmt.Sprintf("decimal(%d, %d)", l.Precision, l.Scale)}
		}
	case pq.FixedLenByteArray:
		switch l.Kind {
		case pq.Decimal:
			return pqKind{name: fmt.Sprintf("decimal(%d, %d)", l.Precision, l.Scale)}
		case pq.Float16:
			return pqKind{name: "float16"}
		case pq.UUID:
			return pqKind{name: "uuid"}
		}
		return pqKind{name: fmt.Sprintf("fixed_size_binary[%d]", c.TypeLength)}
	}
	return pqKind{name: fmt.Sprintf("%s annotated %d", c.Type, l.Kind)}
}

// arrowUnit is Arrow's name of a time unit of ns nanoseconds.
func arrowUnit(ns int64) string {
	switch ns {
	case 1e9:
		return "s"
	case 1e6:
		return "ms"
	case 1e3:
		return "us"
	}
	return "ns"
}

// wantType describes the types a role accepts, for errors.
func wantType(p *plan, r role) string {
	switch r {
	case roleStart, roleEnd:
		if p.epochNs > 0 {
			return "a timestamp, date, string or epoch number"
		}
		return "a timestamp, date or string (or --epoch s|ms|us|ns for epoch numbers)"
	case roleStatus, roleSegment, roleID:
		return "a string, integer or boolean"
	case roleCount, roleCensCount:
		return "a number"
	}
	return "a number, duration or string"
}

func checkType(p *plan, r role, k pqKind) error {
	c := k.class
	isNum := c == kInt || c == kUint64 || c == kFloat
	ok := false
	switch r {
	case roleStart, roleEnd:
		ok = c == kTimestamp || c == kDate || c == kText || (isNum && p.epochNs > 0)
	case roleStatus, roleSegment, roleID:
		ok = c == kText || c == kInt || c == kUint64 || c == kBool
	case roleCount, roleCensCount:
		ok = isNum || c == kText
	default:
		ok = isNum || c == kText || c == kDuration
	}
	if !ok {
		return fmt.Errorf("%w: want %s, found %s", ErrWrongType, wantType(p, r), k.name)
	}
	return nil
}

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
