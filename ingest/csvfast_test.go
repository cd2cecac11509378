package ingest

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// readBothPaths reads in with csvWorker.fastPlain and with the general
// loop of csvWorker.fast, in one block and in blocks of 7
// bytes, and fails unless both paths give the same sample, report and
// error at each block size (and the block sizes the same values, or both
// an error: a header followed by spaces only is "a header only" in one
// block, a record of one field in small ones, as before fastPlain). It
// returns fastPlain's in one block.
func readBothPaths(t *testing.T, in []byte, opt ReadOptions) (*Sample, *Report, error) {
	t.Helper()
	defer func(n int, p bool) { chunkSize, plainFast = n, p }(chunkSize, plainFast)
	type result struct {
		s   *Sample
		rep *Report
		err error
	}
	var first result
	for k, size := range []int{1 << 21, 7} {
		var got [2]result
		for i, plain := range []bool{true, false} {
			plainFast, chunkSize = plain, size
			s, rep, err := ReadCSV(bytes.NewReader(in), "in.csv", opt)
			got[i] = result{s, rep, err}
		}
		p, g := got[0], got[1]
		if fmt.Sprint(p.err) != fmt.Sprint(g.err) {
			t.Fatalf("%q, blocks of %d: fastPlain: error %v, general loop: %v", in, size, p.err, g.err)
		}
		if p.err == nil && (!slices.Equal(p.s.Times, g.s.Times) || !reflect.DeepEqual(p.rep, g.rep)) {
			t.Fatalf("%q, blocks of %d: fastPlain: %v, %+v; general loop: %v, %+v", in, size, p.s.Times, p.rep, g.s.Times, g.rep)
		}
		if k == 0 {
			first = p
		} else if (p.err == nil) != (first.err == nil) || p.err == nil && !slices.Equal(p.s.Times, first.s.Times) {
			t.Fatalf("%q: blocks of 7 bytes: %v, %v; one block: %v, %v", in, p.s, p.err, first.s, first.err)
		}
	}
	return first.s, first.rep, first.err
}

// TestCSVPlainPath: fastPlain, the fast path's loop for a duration
// column read alone, reads every form of record as the general loop does:
// the values (written in the cases), blank lines and their count, and
// the errors, which name the row, and the column when a value is bad.
func TestCSVPlainPath(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    string
		delim rune
		drop  bool
		want  []float64
		blank int
		err   string // the error's text, "" for none
	}{
		{name: "LF", in: "a,settle_s\nx,1.5\ny,2\n", want: []float64{1.5, 2}},
		{name: "CRLF", in: "a,settle_s\r\nx,1.5\r\ny,14.485\r\n", want: []float64{1.5, 14.485}},
		{name: "last record without a line break", in: "a,settle_s\nx,1.5\ny,3.25", want: []float64{1.5, 3.25}},
		{name: "last record without a line break, CR", in: "a,settle_s\r\nx,1.5\r\ny,3.25\r", want: []float64{1.5, 3.25}},
		{name: "blank lines", in: "a,settle_s\n\nx,1\n\r\n\ny,2\n\n", want: []float64{1, 2}, blank: 4},
		{name: "records shorter than 8 bytes", in: "a,settle_s\nx,1\ny,22\n,3\nz,.5\n", want: []float64{1, 22, 3, 0.5}},
		{name: "last fields of 7, 8 and 9 bytes", in: "a,settle_s\nx,1234.56\nx,12345.67\nx,123456.78\n", want: []float64{1234.56, 12345.67, 123456.78}},
		{name: "records of 8 bytes and fewer", in: "a,settle_s\n,1234567\n,123456\n1,\n", err: `in.csv: row 4, column "settle_s": empty value`},
		{name: "a long last field", in: "a,settle_s\nx,1234567890.12345\ny,000000000000001\n", want: []float64{1234567890.12345, 1}},
		{name: "first of many columns", in: "settle_s,b,c,d\n1.5,x,y,z\n2,,,\n", want: []float64{1.5, 2}},
		{name: "middle column from the end", in: "a,b,settle_s,d\nx,y,1.5,z\n,,2,\n", want: []float64{1.5, 2}},
		{name: "one column", in: "settle_s\n1.5\n2\n", want: []float64{1.5, 2}},
		{name: "tab", in: "a\tsettle_s\nx\t1.5\ny\t2\n", delim: '\t', want: []float64{1.5, 2}},
		{name: "semicolon, decimal point", in: "a;settle_s;c\nx;1.5;z\ny;2;\n", delim: ';', want: []float64{1.5, 2}},
		{name: "general forms", in: "a,settle_s\nx,1e3\ny, 2.5 \nz,+4\nw,1h\n", want: []float64{1000, 2.5, 4, 3600}},
		{name: "negative number", in: "a,settle_s\nx,1\ny,-2.5\n",
			err: `in.csv: row 3, column "settle_s": negative duration: "-2.5"`},
		{name: "negative number dropped", in: "a,settle_s\nx,1\ny,-2.5\nz,3\n", drop: true, want: []float64{1, 3}},
		{name: "empty value", in: "a,settle_s\nx,1\ny,\n", err: `in.csv: row 3, column "settle_s": empty value`},
		{name: "delimiter at the end", in: "a,settle_s\nx,1,\n", err: "in.csv: row 2: wrong number of fields: want 2, found 3"},
		{name: "too few fields", in: "a,b,settle_s\nx,y,1\nx,2\n", err: "in.csv: row 3: wrong number of fields: want 3, found 2"},
		{name: "too many fields after a blank line", in: "a,settle_s\n\nx,1\nx,y,2\n", err: "in.csv: row 4: wrong number of fields: want 2, found 3"},
		{name: "wrong field counts dropped", in: "a,settle_s\nx,1,\nx,2\n3\n", drop: true, want: []float64{2}},
		{name: "CR-only line ends inside", in: "a,settle_s\nx,1\ry,2\rz,3\n",
			err: "in.csv: row 2: wrong number of fields: want 2, found 4; the record holds a carriage return: do some lines end in CR only?"},
		{name: "not a number", in: "a,settle_s\nx,1\ny,1.2.3\n", err: `in.csv: row 3, column "settle_s": not a number or duration: "1.2.3"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := ReadOptions{Column: "settle_s", Delimiter: c.delim, DropInvalid: c.drop}
			s, rep, err := readBothPaths(t, []byte(c.in), opt)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("ReadCSV(%q) = %v, want error %s", c.in, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadCSV(%q): %v", c.in, err)
			}
			if !slices.Equal(s.Times, c.want) || rep.BlankLines != c.blank {
				t.Fatalf("ReadCSV(%q) = %v, %d blank lines, want %v, %d", c.in, s.Times, rep.BlankLines, c.want, c.blank)
			}
		})
	}
}

// TestEqualBytes checks equalBytes against a byte-by-byte
// comparison for every pair of bytes in every pair of adjacent lanes, the
// others holding c: a borrow or carry from one lane must not mark its
// neighbour (the classic zero-byte test marks 0x01 above a match, so
// ",-" would count two commas).
func TestEqualBytes(t *testing.T) {
	for _, c := range []byte{',', '\t', ';', 0x01, 0x7f, 0x80, 0xff} {
		cs := uint64(c) * lanes01
		for lane := range 7 {
			for a := range 256 {
				for b := range 256 {
					x := cs &^ (0xffff << (8 * lane))
					x |= uint64(a)<<(8*lane) | uint64(b)<<(8*lane+8)
					var want uint64
					for k := range 8 {
						if byte(x>>(8*k)) == c {
							want |= 0x80 << (8 * k)
						}
					}
					if got := equalBytes(x, cs); got != want {
						t.Fatalf("equalBytes(%#016x, %q) = %#016x, want %#016x", x, c, got, want)
					}
				}
			}
		}
	}
}

// FuzzCSVPlainPath compares fastPlain with the general loop of the
// fast path (readBothPaths) on arbitrary records under headers that put
// the duration column first, last, in the middle and alone, with ',',
// ';' and tab delimiters.
func FuzzCSVPlainPath(f *testing.F) {
	for _, s := range []string{
		"x,1.5\ny,2\n", "x,1.5\r\ny,14.485\r\n", "\n\nx,1\n\r\n", "x,1,\n", "x,-2.5\n", "x,1\ry,2\n", "1.5\n2", ",3\n,.5\n",
		"pay_00000001,card,2025-03-01T00:00:00.008Z,2025-03-01T00:00:14.493Z,succeeded,14.485\n", "x,1e3\ny, 2.5 \nz,1h\n",
	} {
		for h := range uint8(4) {
			f.Add(h, false, []byte(s))
			f.Add(h, true, []byte(strings.ReplaceAll(s, ",", ";")))
		}
	}
	headers := []struct {
		header string
		delim  rune
	}{
		{"a,settle_s\n", ','}, {"settle_s,b,c\n", ','}, {"a;b;settle_s;d\n", ';'}, {"settle_s\n", ','}, {"a\tsettle_s\n", '\t'},
	}
	f.Fuzz(func(t *testing.T, h uint8, drop bool, data []byte) {
		hd := headers[int(h)%len(headers)]
		in := append([]byte(hd.header), data...)
		readBothPaths(t, in, ReadOptions{Column: "settle_s", Delimiter: hd.delim, DropInvalid: drop})
	})
}
