package ingest

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
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
		if p.opt.Dedupe == "" && (p.names[roleStart] != "" || p.opt.Binned) && !p.polls {
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
	if p.polls {
		m.reservePolls(int(rows)) // polls are not items: pollItems makes those
	} else if err := m.ensure(int(rows), nil); err != nil {
		return &ParseError{File: ins[0].path, RowGroup: -1, Err: err}
	}
	if rows == 0 && !multi {
		return &ParseError{File: ins[0].path, RowGroup: -1, Err: fmt.Errorf("%w: the file has no rows", ErrNoRows)}
	}
	if !p.opt.Binned && !p.polls {
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
		// merged (docs/performance.md, Memory).
		if m.created {
			m.s.Created = regrow(m.s.Created, cap(m.s.Times))
		}
		if m.interval {
			m.s.Lower = regrow(m.s.Lower, cap(m.s.Times))
		}
		cens := p.names[roleStatus] != "" || p.created || p.interval
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
			if m.interval {
				u.b.lower = m.s.Lower[off : off : off+n]
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
	if p.stamps && (r == roleLower || r == roleUpper) {
		r = roleStart // interval timestamps
	}
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
	if p.stamps && (r == roleLower || r == roleUpper) {
		r = roleStart // interval timestamps
	}
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
