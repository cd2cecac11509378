package ingest

import (
	"bytes"
	"fmt"
)

// parseJob parses j's block into its batch; a fault reading a mapped
// file ends the input.
func (w *csvWorker) parseJob(j *csvJob) {
	if w.f.mapped != nil {
		defer func() {
			if r := recover(); r != nil {
				j.err = mappedFault(w.f.name, w.f.mapped, r)
			}
		}()
	}
	w.parse(j.data, &j.b)
}

// csvWorker parses blocks of records; its buffers are reused.
type csvWorker struct {
	f       *csvFile
	fields  [][]byte
	offs    []int
	scratch []byte
	cells   [nRoles]cell
}

func (w *csvWorker) parse(data []byte, b *batch) {
	for r := range nRoles {
		w.cells[r] = cell{}
		if c := w.f.consts[r]; c != nil {
			w.cells[r] = cell{kind: cellText, b: c}
		}
	}
	if bytes.IndexByte(data, '"') < 0 {
		w.fast(data, b)
	} else {
		w.quoted(data, b)
	}
}

// fail records the first error of a batch, at the batch-local line.
func (w *csvWorker) fail(b *batch, line int, r role, err error) {
	col := ""
	if r >= 0 {
		col = w.f.p.names[r]
	}
	b.err = &ParseError{Row: line, RowGroup: -1, Column: col, Err: err}
}

// fieldCountError is ErrFieldCount for a record of found fields, want
// wanted; a carriage return inside it says the lines may end in CR only.
func fieldCountError(want, found int, rec []byte) error {
	if bytes.IndexByte(bytes.TrimSuffix(rec, []byte{'\r'}), '\r') >= 0 {
		return fmt.Errorf("%w: want %d, found %d; the record holds a carriage return: do some %v?", ErrFieldCount, want, found, ErrLineEnds)
	}
	return fmt.Errorf("%w: want %d, found %d", ErrFieldCount, want, found)
}

// quoted parses records that may hold quoted fields, RFC 4180 style.
func (w *csvWorker) quoted(data []byte, b *batch) {
	f, p := w.f, w.f.p
	sampling := f.rep != nil
	if sampling {
		b.lim, b.sampling = limit(f.rep.level.Load()), true
	}
	line := 0
	for len(data) > 0 {
		start := line + 1
		fields, used, err := w.splitQuoted(data, false)
		line += bytes.Count(data[:used], []byte{'\n'})
		rec := data[:used]
		data = data[used:]
		if err != nil {
			w.fail(b, start, -1, err)
			return
		}
		if len(fields) == 1 && len(fields[0]) == 0 && w.offs[0] >= 0 {
			b.blank++
			continue // blank line
		}
		if sampling {
			rec = bytes.TrimSuffix(bytes.TrimSuffix(rec, []byte{'\n'}), []byte{'\r'})
			if sel := rowSelector(rec); sel <= b.lim {
				b.sample(rec, sel)
			}
		}
		if len(fields) != f.ncols {
			b.read++
			err := fieldCountError(f.ncols, len(fields), rec)
			if p.opt.DropInvalid {
				b.dropped[reasonFields]++
				continue
			}
			w.fail(b, start, -1, err)
			return
		}
		for _, nc := range f.need {
			w.cells[nc.role] = cell{kind: cellText, b: fields[nc.idx]}
		}
		b.at = start
		if r, err := p.row(b, &w.cells); err != nil {
			w.fail(b, start, r, err)
			return
		}
	}
	b.lines = line
}

// splitQuoted splits the first record of data into fields, unquoting
// them, and returns how many bytes the record took with its line break.
// The fields alias w.scratch and stay valid until the next call. w.offs[0]
// is -1 when the first field was quoted (so "" is not a blank line). With
// whole, data is one record (the header) and a line break in it ends it.
func (w *csvWorker) splitQuoted(data []byte, whole bool) ([][]byte, int, error) {
	delim := w.f.delim
	w.scratch = w.scratch[:0]
	w.offs = w.offs[:0]
	pos := 0
	for {
		from := len(w.scratch)
		quoted := pos < len(data) && data[pos] == '"'
		if quoted {
			pos++
			for {
				i := bytes.IndexByte(data[pos:], '"')
				if i < 0 {
					return nil, len(data), fmt.Errorf("%w: quoted field not closed", ErrQuote)
				}
				w.scratch = append(w.scratch, data[pos:pos+i]...)
				pos += i + 1
				if pos < len(data) && data[pos] == '"' {
					w.scratch = append(w.scratch, '"')
					pos++
					continue
				}
				break
			}
			if pos < len(data) && data[pos] == '\r' && pos+1 < len(data) && data[pos+1] == '\n' {
				pos++
			}
			if pos < len(data) && data[pos] != delim && data[pos] != '\n' {
				return nil, len(data), fmt.Errorf("%w: %q after a closing quote, want %q or a line break", ErrQuote, data[pos], delim)
			}
		} else {
			end := pos
			for end < len(data) && data[end] != delim && data[end] != '\n' {
				end++
			}
			field := data[pos:end]
			if end == len(data) || data[end] == '\n' {
				field = bytes.TrimSuffix(field, []byte{'\r'})
			}
			if bytes.IndexByte(field, '"') >= 0 {
				return nil, len(data), fmt.Errorf("%w: bare \" in an unquoted field", ErrQuote)
			}
			w.scratch = append(w.scratch, field...)
			pos = end
		}
		if quoted && len(w.offs) == 0 {
			w.offs = append(w.offs, -1, len(w.scratch))
		} else {
			w.offs = append(w.offs, from, len(w.scratch))
		}
		if pos >= len(data) || data[pos] == '\n' {
			if pos < len(data) {
				pos++
			}
			break
		}
		pos++ // the delimiter
	}
	_ = whole
	w.fields = w.fields[:0]
	for i := 0; i < len(w.offs); i += 2 {
		from := w.offs[i]
		if from < 0 {
			from = 0
		}
		w.fields = append(w.fields, w.scratch[from:w.offs[i+1]])
	}
	return w.fields, pos, nil
}
