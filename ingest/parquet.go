package ingest

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pollfit/pollfit/internal/bulk"
)

// pqBatchRows is how many rows the Parquet reader decodes at a time.
const pqBatchRows = 1 << 16

// pqFile is the layout of one Parquet file: which leaf column holds each
// role, and the partition values of the roles it has no column for.
type pqFile struct {
	in       input
	leaf     [nRoles]int // -1 when the role is unused or a constant
	consts   [nRoles][]byte
	rowGroup []int64 // rows per row group
	// plain is set when the duration column alone is read and holds
	// plain signed integers or floats: readPlain can decode it.
	plain   bool
	columns []string // the file's top-level column names
	// durNs is the unit in nanoseconds of each role's Arrow duration
	// column, 0 for other types (see readAsInt64).
	durNs [nRoles]int64
	// rep, when not nil, counts rows that repeat an earlier one, by the
	// columns in use: only when they include timestamps or bin bounds,
	// as durations alone repeat by chance (ties).
	rep *repeats
}

// readAsInt64 makes fr read Arrow duration columns as the INT64 values
// they are stored as: arrow-go's pqarrow restores the duration type from
// the ARROW:schema metadata (pandas timedeltas written by pyarrow) but
// cannot read it ("no support for reading columns of type: duration").
// The reader applies the unit itself (pqFile.durNs).
func readAsInt64(fr *pqarrow.FileReader) {
	for i := range fr.Manifest.Fields {
		if f := fr.Manifest.Fields[i].Field; f.Type.ID() == arrow.DURATION {
			f.Type = arrow.PrimitiveTypes.Int64
		}
	}
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
		m.warnLayout(f.columns, in.part, p)
		m.noteUnit(p, f.durNs)
		if p.opt.Dedupe == "" && (p.names[roleStart] != "" || p.opt.Binned) {
			f.rep = &m.repeats
		}
		for rg := range f.rowGroup {
			units = append(units, &pqUnit{file: i, rg: rg, done: make(chan struct{})})
		}
	}
	rows := int64(0)
	for _, f := range files {
		for _, n := range f.rowGroup {
			rows += n
		}
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
		if m.created {
			m.s.Created = regrow(m.s.Created, cap(m.s.Times))
		}
		off := len(m.s.Times)
		for _, u := range units {
			n := int(files[u.file].rowGroup[u.rg])
			u.b.times = m.s.Times[off : off : off+n]
			if m.created {
				u.b.created = m.s.Created[off : off : off+n]
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
				total := int64(0)
				for _, x := range f.rowGroup {
					total += x
				}
				bar.add(f.in.size * n / total)
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
	rdr, err := openParquet(in.path, in.size)
	if err != nil {
		return nil, err
	}
	defer rdr.Close()
	rg := -1 // the row group being looked at, for errors
	defer func() {
		if x := recover(); x != nil {
			f, err = nil, &ParseError{File: in.path, RowGroup: rg, Err: fmt.Errorf("%w: %v", ErrCorrupt, x)}
		}
	}()
	fr, err := pqarrow.NewFileReader(rdr.Reader, pqarrow.ArrowReadProperties{}, rdr.alloc)
	if err != nil {
		return nil, &ParseError{File: in.path, RowGroup: -1, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	f = &pqFile{in: in}
	// The footer's counts size the sample: check them before they are
	// trusted. A row count below 0 made slicing panic.
	for rg = range rdr.NumRowGroups() {
		md := rdr.MetaData().RowGroup(rg)
		n := md.NumRows()
		if n < 0 {
			return nil, &ParseError{File: in.path, RowGroup: rg, Err: fmt.Errorf("%w: the footer gives the row group %d rows", ErrCorrupt, n)}
		}
		f.rowGroup = append(f.rowGroup, n)
	}
	rg = -1
	var names []string
	for _, sf := range fr.Manifest.Fields {
		names = append(names, sf.Field.Name)
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
		sf := fr.Manifest.Fields[i]
		if !sf.IsLeaf() {
			return nil, &ParseError{File: in.path, RowGroup: -1, Column: name, Err: fmt.Errorf("%w: want %s, found %s", ErrWrongType, wantType(p, role(r)), sf.Field.Type)}
		}
		if err := checkType(p, role(r), sf.Field.Type); err != nil {
			return nil, &ParseError{File: in.path, RowGroup: -1, Column: name, Err: err}
		}
		if d, ok := sf.Field.Type.(*arrow.DurationType); ok {
			f.durNs[r] = int64(d.Unit.Multiplier())
		}
		f.leaf[r] = sf.ColIndex
	}
	f.plain = !p.opt.Binned && f.leaf[roleDur] >= 0
	for r := range nRoles {
		if role(r) != roleDur && (f.leaf[r] >= 0 || f.consts[r] != nil) {
			f.plain = false
		}
	}
	if f.plain {
		switch fr.Manifest.Fields[slices.Index(names, p.names[roleDur])].Field.Type.ID() {
		case arrow.FLOAT64, arrow.FLOAT32, arrow.INT64, arrow.INT32, arrow.DURATION:
		default:
			f.plain = false
		}
	}
	return f, nil
}

// pqOpen is an open Parquet file with the allocator of its reads.
type pqOpen struct {
	*file.Reader
	alloc *boundedAllocator
}

func openParquet(path string, size int64) (rdr pqOpen, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &ParseError{File: path, RowGroup: -1, Err: fmt.Errorf("%w: %v", ErrCorrupt, r)}
		}
	}()
	// Stream column chunks through a 1 MB buffer instead of reading each
	// whole into a fresh one: less memory, and fresh memory is slow here
	// (bulk.Make).
	alloc := newBoundedAllocator(size)
	props := parquet.NewReaderProperties(alloc)
	props.BufferedStreamEnabled = true
	props.BufferSize = 1 << 20
	r, err := file.OpenParquetFile(path, false, file.WithReadProps(props))
	if err != nil {
		return pqOpen{}, &ParseError{File: path, RowGroup: -1, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	if v := r.MetaData().KeyValueMetadata().FindValue("ARROW:schema"); v != nil {
		if err := checkArrowSchema(*v); err != nil {
			r.Close()
			return pqOpen{}, &ParseError{File: path, RowGroup: -1, Err: fmt.Errorf("%w: the ARROW:schema metadata is damaged: %v", ErrCorrupt, err)}
		}
	}
	return pqOpen{r, alloc}, nil
}

// boundedAllocator is the Arrow allocator of one Parquet file's reads. It
// refuses, by a panic that the readers recover as ErrCorrupt, any one
// allocation beyond what the file can hold: a damaged length in a 1 KB
// file (a page size, a count in the ARROW:schema metadata) asked for
// 265 GB and ended the process. The bound is generous for real files:
// the readers decode pqBatchRows rows at a time and stream pages through
// 1 MB, and page decompression rarely expands more than 16 times.
type boundedAllocator struct {
	memory.Allocator
	limit int
}

// minAllocBound is the bound of boundedAllocator for small files.
const minAllocBound = 256 << 20

func newBoundedAllocator(fileSize int64) *boundedAllocator {
	limit := int64(minAllocBound)
	if fileSize > 0 && fileSize < math.MaxInt64/16 {
		limit = max(limit, 16*fileSize)
	}
	return &boundedAllocator{memory.DefaultAllocator, int(min(limit, math.MaxInt))}
}

func (a *boundedAllocator) check(size int) {
	if size < 0 || size > a.limit {
		panic(fmt.Sprintf("a length in the file asks for %d bytes, more than the file can hold", size))
	}
}

func (a *boundedAllocator) Allocate(size int) []byte {
	a.check(size)
	return a.Allocator.Allocate(size)
}

func (a *boundedAllocator) Reallocate(size int, b []byte) []byte {
	a.check(size)
	return a.Allocator.Reallocate(size, b)
}

// wantType describes the Arrow types a role accepts, for errors.
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

func checkType(p *plan, r role, t arrow.DataType) error {
	if d, ok := t.(*arrow.DictionaryType); ok {
		t = d.ValueType
	}
	id := t.ID()
	isNum := arrow.IsInteger(id) || arrow.IsFloating(id) && id != arrow.FLOAT16
	isText := id == arrow.STRING || id == arrow.LARGE_STRING || id == arrow.BINARY || id == arrow.LARGE_BINARY || id == arrow.STRING_VIEW || id == arrow.BINARY_VIEW
	ok := false
	switch r {
	case roleStart, roleEnd:
		ok = id == arrow.TIMESTAMP || id == arrow.DATE32 || id == arrow.DATE64 || isText || (isNum && p.epochNs > 0)
	case roleStatus, roleSegment, roleID:
		ok = isText || arrow.IsInteger(id) || id == arrow.BOOL
	case roleCount, roleCensCount:
		ok = isNum || isText
	default:
		ok = isNum || isText || id == arrow.DURATION
	}
	if !ok {
		return fmt.Errorf("%w: want %s, found %s", ErrWrongType, wantType(p, r), t)
	}
	return nil
}

// pqReader reads row groups, keeping the last file open.
type pqReader struct {
	path  string
	durNs [nRoles]int64 // the open file's pqFile.durNs
	rdr   *file.Reader
	fr    *pqarrow.FileReader
	cells [nRoles]cell
	get   [nRoles]func(i int, c *cell)
	texts [nRoles][]byte
	key   []byte // a row's cells in use, for the repeat count
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
	if r.rdr != nil {
		r.rdr.Close()
		r.rdr = nil
	}
}

// open makes f the open file, unless it is already.
func (r *pqReader) open(f *pqFile) error {
	if r.path == f.in.path {
		return nil
	}
	r.close()
	open, err := openParquet(f.in.path, f.in.size)
	if err != nil {
		return err
	}
	rdr := open.Reader
	props := pqarrow.ArrowReadProperties{BatchSize: pqBatchRows}
	for _, ro := range []role{roleStatus, roleSegment} {
		if f.leaf[ro] >= 0 {
			props.SetReadDict(f.leaf[ro], true)
		}
	}
	fr, err := pqarrow.NewFileReader(rdr, props, open.alloc)
	if err != nil {
		rdr.Close()
		return &ParseError{File: f.in.path, RowGroup: -1, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	readAsInt64(fr)
	r.path, r.rdr, r.fr, r.durNs = f.in.path, rdr, fr, f.durNs
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

// readPlain decodes row group rg of a plain numeric duration column (see
// pqFile.plain) straight into b.times with the Parquet column reader: no
// Arrow arrays, no per-row path, which makes Parquet reads about twice as
// fast (docs/performance.md). It returns false, with b.times partly
// written, when the row group needs the general path: a null, or a value
// that is not a finite number ≥ 0 — read names its row, or drops it.
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
	col, err := r.rdr.RowGroup(rg).Column(f.leaf[roleDur])
	if err != nil {
		return false, &ParseError{File: f.in.path, RowGroup: rg, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	var defs []int16
	if col.Descriptor().MaxDefinitionLevel() > 0 {
		defs = make([]int16, pqBatchRows)
	}
	// read decodes up to len(into) rows; a null makes values < rows.
	var read func(into []float64) (rows int64, values int, err error)
	switch cr := col.(type) {
	case *file.Float64ColumnChunkReader:
		read = func(into []float64) (int64, int, error) { return cr.ReadBatch(int64(len(into)), into, defs, nil) }
	case *file.Float32ColumnChunkReader:
		read = widening(cr.ReadBatch, defs, 0)
	case *file.Int64ColumnChunkReader:
		read = widening(cr.ReadBatch, defs, f.durNs[roleDur])
	case *file.Int32ColumnChunkReader:
		read = widening(cr.ReadBatch, defs, 0)
	default:
		return false, nil
	}
	for got := 0; got < n; {
		rows, vals, err := read(dst[got : got+min(n-got, pqBatchRows)])
		if err == nil && rows == 0 {
			// The page decoder keeps its error to itself.
			if err = col.Err(); err == nil {
				err = fmt.Errorf("the column chunk ends after %d of its %d rows", got, n)
			}
		}
		if err != nil {
			return false, &ParseError{File: f.in.path, RowGroup: rg, Row: got + 1, Column: p.names[roleDur], Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
		}
		if vals != int(rows) {
			return false, nil
		}
		got += vals
	}
	// The general path's checks (checkFinite, the sign), over the whole
	// row group.
	sc := p.scale
	if f.durNs[roleDur] > 0 {
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

// widening returns a readPlain reader for a column of E values: decoded
// by readBatch into a buffer, then widened to float64. With ns > 0 the
// values are an Arrow duration in units of ns nanoseconds, made seconds
// as the general path makes them (float64(v·ns)/10⁹); one whose
// nanoseconds overflow is NaN, which sends the row group to the general
// path to be named.
func widening[E int32 | int64 | float32](readBatch func(int64, []E, []int16, []int16) (int64, int, error), defs []int16, ns int64) func([]float64) (int64, int, error) {
	buf := make([]E, pqBatchRows)
	lim := int64(math.MaxInt64)
	if ns > 0 {
		lim /= ns
	}
	return func(into []float64) (int64, int, error) {
		rows, vals, err := readBatch(int64(len(into)), buf, defs, nil)
		for i, v := range buf[:vals] {
			into[i] = float64(v)
			if ns > 0 {
				if x := int64(v); x > lim || x < -lim {
					into[i] = math.NaN()
				} else {
					into[i] = float64(x*ns) / 1e9
				}
			}
		}
		return rows, vals, err
	}
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
	var leaves []int
	for _, l := range f.leaf {
		if l >= 0 && !slices.Contains(leaves, l) {
			leaves = append(leaves, l)
		}
	}
	slices.Sort(leaves)
	rr, err := r.fr.GetRecordReader(context.Background(), leaves, []int{rg})
	if err != nil {
		return &ParseError{File: f.in.path, RowGroup: rg, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	defer rr.Release()
	for ro := range nRoles {
		r.cells[ro] = cell{}
		if c := f.consts[ro]; c != nil {
			r.cells[ro] = cell{kind: cellText, b: c}
		}
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
	if p.names[roleSegment] != "" {
		b.seg = make([]int32, 0, n)
	}
	base := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		var active []role
		for ro := range nRoles {
			r.get[ro] = nil
			if f.leaf[ro] < 0 {
				continue
			}
			name := p.names[ro]
			idx := rec.Schema().FieldIndices(name)
			if len(idx) == 0 {
				return &ParseError{File: f.in.path, RowGroup: rg, Column: name, Err: ErrMissingColumn}
			}
			r.get[ro] = r.getter(role(ro), rec.Column(idx[0]))
			active = append(active, role(ro))
		}
		n := int(rec.NumRows())
		if f.rep != nil && !b.sampling {
			b.lim, b.sampling = limit(f.rep.level.Load()), true
		}
		for i := range n {
			for _, ro := range active {
				r.get[ro](i, &r.cells[ro])
			}
			if f.rep != nil {
				r.key = appendCells(r.key[:0], &r.cells, active)
				if sel := rowSelector(r.key); sel <= b.lim {
					b.sample(r.key, sel)
				}
			}
			b.at = base + i + 1
			if ro, err := p.row(b, &r.cells); err != nil {
				b.err = &ParseError{Row: base + i + 1, Column: p.names[ro], Err: err}
				return nil
			}
		}
		base += n
	}
	if err := rr.Err(); err != nil {
		return &ParseError{File: f.in.path, RowGroup: rg, Row: base + 1, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	return nil
}

// getter returns a function that loads row i of a into a cell. Text roles
// (status, segment) get text whatever the column type.
func (r *pqReader) getter(ro role, a arrow.Array) func(i int, c *cell) {
	text := ro == roleStatus || ro == roleSegment || ro == roleID
	nulls := a.NullN() > 0
	wrap := func(f func(i int, c *cell)) func(i int, c *cell) {
		if !nulls {
			return f
		}
		return func(i int, c *cell) {
			if a.IsNull(i) {
				*c = cell{}
				return
			}
			f(i, c)
		}
	}
	num := func(v func(i int) float64) func(i int, c *cell) {
		return wrap(func(i int, c *cell) { *c = cell{kind: cellNum, f: v(i)} })
	}
	integer := func(v func(i int) int64) func(i int, c *cell) {
		if text {
			return wrap(func(i int, c *cell) {
				r.texts[ro] = strconv.AppendInt(r.texts[ro][:0], v(i), 10)
				*c = cell{kind: cellText, b: r.texts[ro]}
			})
		}
		// Integers stay exact: epoch nanoseconds overflow a float64's
		// 53 bits.
		return wrap(func(i int, c *cell) { *c = cell{kind: cellInt, ns: v(i)} })
	}
	// nanos loads values in units of unitNs nanoseconds (durations,
	// timestamps, dates), overflow checked (nanosCell).
	nanos := func(unitNs int64, v func(i int) int64) func(i int, c *cell) {
		lim := math.MaxInt64 / unitNs
		return wrap(func(i int, c *cell) { *c = nanosCell(v(i), unitNs, lim) })
	}
	str := func(v func(i int) string) func(i int, c *cell) {
		return wrap(func(i int, c *cell) {
			s := v(i)
			*c = cell{kind: cellText, b: unsafe.Slice(unsafe.StringData(s), len(s))}
		})
	}
	switch a := a.(type) {
	case *array.Float64:
		v := a.Float64Values()
		return num(func(i int) float64 { return v[i] })
	case *array.Float32:
		v := a.Float32Values()
		return num(func(i int) float64 { return float64(v[i]) })
	case *array.Int64:
		v := a.Int64Values()
		if mult := r.durNs[ro]; mult > 0 { // an Arrow duration (readAsInt64)
			return nanos(mult, func(i int) int64 { return v[i] })
		}
		return integer(func(i int) int64 { return v[i] })
	case *array.Int32:
		v := a.Int32Values()
		return integer(func(i int) int64 { return int64(v[i]) })
	case *array.Int16:
		v := a.Int16Values()
		return integer(func(i int) int64 { return int64(v[i]) })
	case *array.Int8:
		v := a.Int8Values()
		return integer(func(i int) int64 { return int64(v[i]) })
	case *array.Uint64:
		v := a.Uint64Values()
		return num(func(i int) float64 { return float64(v[i]) })
	case *array.Uint32:
		v := a.Uint32Values()
		return integer(func(i int) int64 { return int64(v[i]) })
	case *array.Uint16:
		v := a.Uint16Values()
		return integer(func(i int) int64 { return int64(v[i]) })
	case *array.Uint8:
		v := a.Uint8Values()
		return integer(func(i int) int64 { return int64(v[i]) })
	case *array.Duration:
		v := a.DurationValues()
		return nanos(int64(a.DataType().(*arrow.DurationType).Unit.Multiplier()), func(i int) int64 { return int64(v[i]) })
	case *array.Timestamp:
		v := a.TimestampValues()
		return nanos(int64(a.DataType().(*arrow.TimestampType).Unit.Multiplier()), func(i int) int64 { return int64(v[i]) })
	case *array.Date32:
		v := a.Date32Values()
		return nanos(86400e9, func(i int) int64 { return int64(v[i]) })
	case *array.Date64:
		v := a.Date64Values()
		return nanos(1e6, func(i int) int64 { return int64(v[i]) })
	case *array.String:
		return str(a.Value)
	case *array.LargeString:
		return str(a.Value)
	case *array.StringView:
		return str(a.Value)
	case *array.Binary:
		return wrap(func(i int, c *cell) { *c = cell{kind: cellText, b: a.Value(i)} })
	case *array.LargeBinary:
		return wrap(func(i int, c *cell) { *c = cell{kind: cellText, b: a.Value(i)} })
	case *array.Boolean:
		return wrap(func(i int, c *cell) {
			*c = cell{kind: cellText, b: []byte(strconv.FormatBool(a.Value(i)))}
		})
	case *array.Dictionary:
		dict := r.getter(ro, a.Dictionary())
		// Resolve each dictionary entry once per batch.
		vals := make([]cell, a.Dictionary().Len())
		for k := range vals {
			dict(k, &vals[k])
			if vals[k].kind == cellText {
				vals[k].b = slices.Clone(vals[k].b)
			}
		}
		return wrap(func(i int, c *cell) { *c = vals[a.GetValueIndex(i)] })
	}
	return func(i int, c *cell) { *c = cell{} } // excluded by checkType
}
