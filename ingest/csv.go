package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// chunkSize is the size of the blocks the CSV reader hands to its
// parsing goroutines. It is a variable so that tests can make it tiny and
// hit every chunk boundary.
var chunkSize = 1 << 21

// plainFast enables csvWorker.fastPlain; tests turn it off to compare it
// with the general loop of csvWorker.fast.
var plainFast = true

// maxGuess bounds the rows the CSV reader reserves room for from the
// input's size (1 GB of times): beyond it the sample grows as rows come.
const maxGuess = 1 << 27

// maxRecord bounds one CSV record (a quoted field may hold line breaks),
// so that a stray quote fails instead of reading the whole input into one
// field.
const maxRecord = 64 << 20

// ReadCSV reads settle times from CSV with a header row; see ReadOptions
// for the columns it uses. name labels errors (usually the file path).
// Gzip- and Zstandard-compressed input is recognised by its magic bytes
// and decompressed while the blocks already out are parsed (see
// decompress); a truncated or damaged stream is ErrCorrupt.
//
// The input is RFC 4180: fields separated by opt.Delimiter, records ended
// by LF or CRLF, fields that hold the delimiter, quotes or line breaks
// enclosed in double quotes, a quote inside them doubled. A UTF-8 byte
// order mark before the header is skipped, blank lines are skipped, and
// every record must have as many fields as the header.
//
// The input is read in large blocks split at record ends and parsed by
// opt.Workers goroutines; only the columns in use are parsed, and memory
// apart from the values kept stays constant.
//
// Bad input returns a *ParseError naming the line and column; with
// opt.DropInvalid a bad value drops its row instead, counted in the
// Report. Quoting errors always fail, since the records after them
// cannot be trusted.
func ReadCSV(r io.Reader, name string, opt ReadOptions) (*Sample, *Report, error) {
	p, err := newPlan(opt)
	if err != nil {
		return nil, nil, err
	}
	size := int64(-1)
	switch r := r.(type) {
	case interface{ Size() int64 }: // bytes.Reader, strings.Reader
		size = r.Size()
	case *os.File:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	m := merger{memLimit: p.memLimit, created: p.created, interval: p.interval}
	if err := readCSV(r, name, size, p, nil, &m, nil, nil); err != nil {
		return nil, nil, err
	}
	m.rep.Files = 1
	return m.finish(name, p)
}

// ReadCSVFile reads settle times from the CSV file at path; see ReadCSV.
func ReadCSVFile(path string, opt ReadOptions) (*Sample, *Report, error) {
	return Read([]string{path}, opt)
}

// csvFile is the layout of one CSV input.
type csvFile struct {
	p      *plan
	name   string
	delim  byte
	ncols  int
	need   []csvCol       // columns to parse, by index
	consts [nRoles][]byte // partition values for roles not in the file
	rep    *repeats       // counts repeated lines; nil when not counted
	// mapped is the file's bytes mapped in memory (mmap), whose blocks
	// the parsers read in place; nil when the input is read through an
	// io.Reader.
	mapped   []byte
	released int       // mapped[:released] has been given back (release)
	bar      *progress // with mapped: counts the bytes handed to the parsers
}

type csvCol struct {
	idx  int
	role role
}

// readCSV reads one CSV input into m. part holds Hive partition values
// (key=value directories), used for roles the file has no column for.
//
// size is the input's size in bytes, -1 when unknown.
//
// mapped, when not nil, is the whole plain-text input mapped in memory
// (r reads it too, for the header): its records are parsed in place.
func readCSV(r io.Reader, name string, size int64, p *plan, part map[string]string, m *merger, mapped []byte, bar *progress) error {
	src := &compressedSource{r: r}
	br := bufio.NewReaderSize(src, 1<<16)
	if magic, _ := br.Peek(4); string(magic) == "PAR1" {
		return parquetAsCSV(name, false)
	}
	var in io.Reader = br
	dec, err := decompress(br, src, name)
	if err != nil {
		return err
	}
	if dec != nil {
		defer dec.close()
		in = dec
	}
	f := &csvFile{p: p, name: name, delim: ','}
	if dec == nil && mapped != nil {
		f.mapped, f.bar = mapped, bar
	}
	if p.opt.Delimiter != 0 {
		f.delim = byte(p.opt.Delimiter)
	}

	// Read until the header record ends.
	buf := make([]byte, chunkSize)
	n, eof := 0, false
	hdrEnd := -1
	for {
		k, err := io.ReadFull(in, buf[n:])
		n += k
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			eof = true
		} else if err != nil {
			return readError(name, err)
		}
		if n >= 4 && dec != nil && string(buf[:4]) == "PAR1" {
			return parquetAsCSV(name, true)
		}
		if hdrEnd = firstRecordEnd(buf[:n]); hdrEnd >= 0 || eof {
			break
		}
		if len(buf) >= maxRecord {
			return &ParseError{File: name, Row: 1, RowGroup: -1, Err: fmt.Errorf("%w: header longer than %d bytes", ErrQuote, maxRecord)}
		}
		buf = append(buf, make([]byte, len(buf))...)
	}
	data := buf[:n]
	if len(data) == 0 {
		return &ParseError{File: name, RowGroup: -1, Err: fmt.Errorf("%w: the file is empty", ErrNoRows)}
	}
	if hdrEnd < 0 {
		hdrEnd = len(data)
	}
	hdr := bytes.TrimPrefix(data[:hdrEnd], []byte("\ufeff"))
	if line := bytes.TrimSuffix(bytes.TrimSuffix(hdr, []byte{'\n'}), []byte{'\r'}); bytes.IndexByte(line, '\r') >= 0 && bytes.IndexByte(line, '"') < 0 {
		// Classic Mac OS line ends: the first line would be the file.
		return &ParseError{File: name, Row: 1, RowGroup: -1, Err: fmt.Errorf("%w (the first line holds a carriage return that no line feed follows): convert them to LF, e.g. tr '\\r' '\\n' < in.csv > out.csv", ErrLineEnds)}
	}
	var w csvWorker
	w.f = f
	fields, _, err := w.splitQuoted(hdr, true)
	if err != nil {
		return &ParseError{File: name, Row: 1, RowGroup: -1, Err: fmt.Errorf("%w%s", err, delimiterHint(hdr, f.delim))}
	}
	header := make([]string, len(fields))
	for i, fl := range fields {
		if !utf8.Valid(fl) {
			return &ParseError{File: name, Row: 1, RowGroup: -1, Err: fmt.Errorf("%w in the header: found %s", ErrNotUTF8, quote(fl))}
		}
		header[i] = string(trimSpace(fl))
	}
	if err := f.layout(header, part); err != nil {
		if pe, ok := err.(*ParseError); ok && errors.Is(err, ErrMissingColumn) {
			pe.Err = fmt.Errorf("%w%s", pe.Err, delimiterHint(hdr, f.delim))
		}
		return err
	}
	head, tail := peekEnds(r, data, hdrEnd, eof, size, dec == nil)
	m.warnLayout(header, part, p, statusPeek(header, p.statusPeekColumn(), f.delim, head, tail))
	m.noteUnit(p, [nRoles]int64{})
	if p.opt.Dedupe == "" && p.identifies(header) {
		f.rep = &m.repeats
	}
	headerLines := bytes.Count(data[:hdrEnd], []byte{'\n'})
	rest := data[hdrEnd:]
	if size > 0 && dec != nil && eof {
		size = int64(n)
	} else if size > 0 && dec != nil {
		// The bytes the first block took compressed give the ratio,
		// roughly: the buffered reader reads ahead.
		size = int64(float64(size) * float64(n) / float64(max(src.n, 1)))
	}
	if size > 0 && len(rest) > 0 {
		// Guess the row count from the first block to size the sample
		// once; no more than the rows allowed, nor than rows of 2 bytes
		// (a digit and a line break) fill: a sparse 50 GB file whose
		// first block held short rows asked for 29.5 G entries.
		perRow := float64(len(rest)) / float64(bytes.Count(rest, []byte{'\n'})+1)
		guess := min(1.1*float64(size-int64(hdrEnd))/perRow+1024, float64(size)/2+1, maxGuess)
		if p.maxRows > 0 {
			guess = min(guess, float64(p.maxRows-m.rep.Read+1))
		}
		if m.memLimit > 0 {
			guess = min(guess, float64(m.memLimit/p.bytesPerRow()))
		}
		if p.polls {
			m.reservePolls(int(guess))
		} else {
			m.reserve(int(guess))
		}
	}
	if eof && len(bytes.TrimSpace(rest)) == 0 {
		return &ParseError{File: name, RowGroup: -1, Err: fmt.Errorf("%w: the file has a header only", ErrNoRows)}
	}
	if f.mapped != nil {
		f.bar.add(int64(hdrEnd))
		rest, eof = f.mapped[hdrEnd:], true
	}
	return f.parse(in, rest, eof, headerLines, m)
}

// layout finds the columns in use in the header.
func (f *csvFile) layout(header []string, part map[string]string) error {
	f.ncols = len(header)
	for r := range nRoles {
		name := f.p.names[r]
		if name == "" {
			continue
		}
		idx := slices.Index(header, name)
		if idx < 0 {
			if v, ok := part[name]; ok {
				f.consts[r] = []byte(v)
				continue
			}
			if r == roleCensCount && f.p.opt.Bins.Censored == "" {
				continue // the default censored column is optional
			}
			return &ParseError{File: f.name, Row: 1, RowGroup: -1, Column: name, Err: fmt.Errorf("%w; the header has %s", ErrMissingColumn, listColumns(header, part))}
		}
		if j := slices.Index(header[idx+1:], name); j >= 0 {
			return &ParseError{File: f.name, Row: 1, RowGroup: -1, Column: name, Err: fmt.Errorf("%w: fields %d and %d of the header both have this name", ErrDuplicateColumn, idx+1, idx+j+2)}
		}
		f.need = append(f.need, csvCol{idx, r})
	}
	slices.SortFunc(f.need, func(a, b csvCol) int { return a.idx - b.idx })
	return nil
}

// firstRecordEnd returns the offset just past the first record's line
// break, or -1 when data holds no complete record.
func firstRecordEnd(data []byte) int {
	inq := false
	for i, c := range data {
		switch c {
		case '"':
			inq = !inq
		case '\n':
			if !inq {
				return i + 1
			}
		}
	}
	return -1
}

// lastRecordEnd returns the offset just past the last line break of data
// that is outside quotes, or 0 when there is none. Quotes toggle the state
// ("" inside a quoted field toggles twice), so the parity of the quotes
// before a line break says whether it ends a record.
func lastRecordEnd(data []byte) int {
	if bytes.IndexByte(data, '"') < 0 {
		return bytes.LastIndexByte(data, '\n') + 1
	}
	end, inq := 0, false
	for i := 0; i < len(data); {
		j := bytes.IndexAny(data[i:], "\"\n")
		if j < 0 {
			break
		}
		i += j
		if data[i] == '"' {
			inq = !inq
		} else if !inq {
			end = i + 1
		}
		i++
	}
	return end
}

// csvJob is one block of whole records and, once parsed, its batch.
type csvJob struct {
	buf  []byte
	data []byte
	end  int // with csvFile.mapped: the offset of data's end in it
	b    batch
	err  error // read error; ends the input
	done chan struct{}
}

// parse reads the records of src (after the header; first holds bytes
// already read) in blocks, parses them in parallel and merges the batches
// in input order.
func (f *csvFile) parse(src io.Reader, first []byte, eof bool, headerLines int, m *merger) error {
	workers := f.p.opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan *csvJob, workers)
	order := make(chan *csvJob, 2*workers)
	var stop atomic.Bool
	var pool sync.Pool // *csvJob, with their buffers

	getJob := func(size int) *csvJob {
		j, _ := pool.Get().(*csvJob)
		if j == nil {
			j = &csvJob{}
		}
		if cap(j.buf) < size {
			j.buf = make([]byte, size)
		}
		j.buf = j.buf[:cap(j.buf)]
		j.done = make(chan struct{})
		j.err = nil
		return j
	}

	if f.mapped != nil {
		go func() { // producer of blocks of the mapped file, in place
			defer close(jobs)
			defer close(order)
			j := getJob(0)
			defer func() {
				if r := recover(); r != nil {
					j.err = mappedFault(f.name, f.mapped, r)
					close(j.done)
					order <- j
				}
			}()
			debug.SetPanicOnFault(true) // this goroutine's own setting
			rest := first
			for len(rest) > 0 && !stop.Load() {
				n := min(chunkSize, len(rest))
				cut := n
				for n < len(rest) {
					if cut = lastRecordEnd(rest[:n]); cut > 0 {
						break
					}
					if n >= maxRecord {
						j.err = f.longRecord(rest[:n])
						close(j.done)
						order <- j
						return
					}
					n = min(2*n, len(rest))
					cut = n
				}
				j.data, rest = rest[:cut], rest[cut:]
				j.end = len(f.mapped) - len(rest)
				f.bar.add(int64(cut))
				order <- j
				jobs <- j
				j = getJob(0)
			}
			pool.Put(j)
		}()
	} else {
		go func() { // producer
			defer close(jobs)
			defer close(order)
			cur := getJob(max(chunkSize, 2*len(first)))
			n := copy(cur.buf, first)
			for !stop.Load() {
				if !eof {
					k, err := io.ReadFull(src, cur.buf[n:])
					n += k
					if err == io.EOF || err == io.ErrUnexpectedEOF {
						eof = true
					} else if err != nil {
						cur.err = readError(f.name, err)
						close(cur.done)
						order <- cur
						return
					}
				}
				data := cur.buf[:n]
				cut := len(data)
				if !eof {
					cut = lastRecordEnd(data)
				}
				if cut == 0 && !eof {
					// One record is longer than the buffer: grow it.
					if len(cur.buf) >= maxRecord {
						cur.err = f.longRecord(data)
						close(cur.done)
						order <- cur
						return
					}
					cur.buf = append(cur.buf[:n], make([]byte, len(cur.buf))...)
					cur.buf = cur.buf[:cap(cur.buf)]
					continue
				}
				next := getJob(max(chunkSize, 2*(n-cut)))
				n = copy(next.buf, data[cut:])
				cur.data = data[:cut]
				order <- cur
				jobs <- cur
				cur = next
				if eof && n == 0 {
					break
				}
			}
			pool.Put(cur)
		}()

	}

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := csvWorker{f: f}
			if f.mapped != nil {
				debug.SetPanicOnFault(true) // this goroutine's own setting
			}
			for j := range jobs {
				j.b.reset()
				if !stop.Load() {
					w.parseJob(j)
				}
				close(j.done)
			}
		}()
	}

	var firstErr error
	line := headerLines
	for j := range order {
		<-j.done
		if firstErr == nil {
			switch {
			case j.err != nil:
				firstErr = j.err
			case j.b.err != nil:
				e := j.b.err
				e.File, e.Row = f.name, line+e.Row
				firstErr = e
				j.b.file, j.b.base, j.b.rowGroup = f.name, line, -1
				_ = m.add(&j.b) // rows before the error still count
			default:
				j.b.file, j.b.base, j.b.rowGroup = f.name, line, -1
				if err := m.add(&j.b); err != nil {
					firstErr = &ParseError{File: f.name, Row: line + 1, RowGroup: -1, Err: err}
				} else if f.p.maxRows > 0 && m.rep.Read > f.p.maxRows {
					firstErr = f.p.tooManyRows(f.name, int64(m.rep.Read))
				}
				line += j.b.lines
			}
			if firstErr != nil {
				stop.Store(true)
			}
		}
		if f.mapped != nil && j.err == nil {
			f.release(j.end)
		}
		pool.Put(j)
	}
	wg.Wait()
	return firstErr
}

// release gives back the pages of the mapping wholly before offset end,
// whose records are merged: without it the file's pages, mapped as they
// are read, count in the process's resident memory until the mapping
// goes (the 846 MB of a 10M-row CSV, against 160 MB for the rest of
// pollfit fit). They stay in the page cache.
func (f *csvFile) release(end int) {
	end &^= pageSize - 1
	if end > f.released {
		releaseMapped(f.mapped[f.released:end])
		f.released = end
	}
}

// longRecord is the error of a record longer than maxRecord bytes, of
// which data is the start.
func (f *csvFile) longRecord(data []byte) error {
	why := "unclosed quote?"
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') >= 0 {
		why = ErrLineEnds.Error() + "?"
	}
	return &ParseError{File: f.name, RowGroup: -1, Err: fmt.Errorf("%w: a record is longer than %d bytes (%s)", ErrQuote, maxRecord, why)}
}

// mappedFault returns the error of a memory fault in mapped, the
// mapping of file name (debug.SetPanicOnFault turns the SIGBUS of a page
// beyond the end of a file that shrank into a panic whose value gives
// the address); any other panic goes on.
func mappedFault(name string, mapped []byte, r any) error {
	if e, ok := r.(interface{ Addr() uintptr }); ok && len(mapped) > 0 {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(mapped)))
		if a := e.Addr(); a >= base && a-base < uintptr(len(mapped)) {
			return &ParseError{File: name, RowGroup: -1, Err: fmt.Errorf("%w: the file shrank while it was read", ErrCorrupt)}
		}
	}
	panic(r)
}

// peekBytes is how much of each end of an input peekEnds gives.
const peekBytes = 1 << 16

// peekEnds returns the records at the start of an input, after its header
// (which ends at hdrEnd in data, the input's first bytes), and at its end
// when they can be had without reading what lies between: the whole
// input is in data (eof), or it is a plain file (r reads at offsets, of
// size bytes). The tail starts past its first line break. The ends are
// the same bytes however the input is then read (mapped or in blocks).
func peekEnds(r io.Reader, data []byte, hdrEnd int, eof bool, size int64, plain bool) (head, tail []byte) {
	if eof {
		return data[hdrEnd:], data[hdrEnd:]
	}
	ra, ok := r.(io.ReaderAt)
	if !ok || !plain || size <= int64(hdrEnd) { // size: when listed; the file may have grown since
		return data[hdrEnd:min(len(data), hdrEnd+peekBytes)], nil
	}
	head = make([]byte, min(peekBytes, size-int64(hdrEnd)))
	n, err := ra.ReadAt(head, int64(hdrEnd))
	if n == 0 && err != nil {
		return data[hdrEnd:min(len(data), hdrEnd+peekBytes)], nil
	}
	head = head[:n]
	if size-int64(hdrEnd) <= peekBytes {
		return head, head
	}
	tail = make([]byte, peekBytes)
	n, _ = ra.ReadAt(tail, size-peekBytes)
	tail = tail[:n]
	return head, tail[bytes.IndexByte(tail, '\n')+1:]
}
