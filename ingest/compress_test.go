package ingest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// gzipBytes compresses b with the standard library's writer (not the
// reader's library), as one member.
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zstdBytes compresses b as one Zstandard frame with a checksum.
func zstdBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(b, nil)
}

// compressedCSV is a CSV of n rows over several 2 MB blocks: quoted
// fields with delimiters and line breaks, CRLF, statuses (pending rows
// right-censored) and segments.
func compressedCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("id,method,note,status,settle_s\r\n")
	for i := range n {
		note := "plain"
		switch i % 5 {
		case 1:
			note = `"with, comma"`
		case 2:
			note = "\"two\nlines\""
		}
		status := "succeeded"
		if i%7 == 0 {
			status = "pending"
		}
		fmt.Fprintf(&b, "p%d,%s,%s,%s,%d.%03d\r\n", i, []string{"card", "momo", "bank"}[i%3], note, status, i%5000, i%1000)
	}
	return b.Bytes()
}

// TestCompressedSameSample: the same rows read from .csv, .csv.gz
// (one member, and two members concatenated as `cat a.gz b.gz` makes
// them), .csv.zst (one frame, and two) and from compressed standard
// input give identical samples and reports; so do binned rows.
func TestCompressedSameSample(t *testing.T) {
	data := compressedCSV(150000) // ~6 MB: three blocks and more
	cut := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
	dir := t.TempDir()
	files := map[string][]byte{
		"plain.csv":          data,
		"one.csv.gz":         gzipBytes(t, data),
		"two.csv.gz":         append(gzipBytes(t, data[:cut]), gzipBytes(t, data[cut:])...),
		"one.csv.zst":        zstdBytes(t, data),
		"two.csv.zst":        append(zstdBytes(t, data[:cut]), zstdBytes(t, data[cut:])...),
		"gzip-named-plain":   gzipBytes(t, data), // recognised by content
		"UPPER.CSV.ZST":      zstdBytes(t, data),
		"tab/plain.tsv.zst":  zstdBytes(t, bytes.ReplaceAll(data, []byte{','}, []byte{'\t'})),
		"tab/plain.tsv.gz":   gzipBytes(t, bytes.ReplaceAll(data, []byte{','}, []byte{'\t'})),
		"tab/ignored.txt.gz": []byte("not read"),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opt := ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}, Segment: "method"}
	want, wantRep, err := Read([]string{filepath.Join(dir, "plain.csv")}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want.Len() != 150000 || wantRep.Censored != 150000/7+1 {
		t.Fatalf("plain: %d items, %d censored; want 150000, %d", want.Len(), wantRep.Censored, 150000/7+1)
	}
	for _, name := range []string{"one.csv.gz", "two.csv.gz", "one.csv.zst", "two.csv.zst", "gzip-named-plain", "UPPER.CSV.ZST"} {
		got, rep, err := Read([]string{filepath.Join(dir, name)}, opt)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) || rep.String() != wantRep.String() {
			t.Errorf("%s: sample or report differs from plain.csv: %v, want %v", name, rep, wantRep)
		}
	}
	tsv := opt
	tsv.Delimiter = '\t'
	got, _, err := Read([]string{filepath.Join(dir, "tab")}, tsv) // the directory: .tsv.gz, .tsv.zst
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != 2*want.Len() {
		t.Errorf("directory of .tsv.gz and .tsv.zst: %d items, want %d", got.Len(), 2*want.Len())
	}
	for _, name := range []string{"one.csv.gz", "one.csv.zst"} {
		got, _, err := ReadCSV(bytes.NewReader(files[name]), "stdin", opt)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ReadCSV(%s bytes) = %v, want the plain sample", name, err)
		}
	}

	bins := []byte("lower,upper,count,censored\n0,1,10,2\n1,2,30,0\n2,,5,5\n")
	bw, _, err := ReadCSV(bytes.NewReader(bins), "bins.csv", ReadOptions{Binned: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"bins.csv.gz": gzipBytes(t, bins), "bins.csv.zst": zstdBytes(t, bins)} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		got, _, err := Read([]string{p}, ReadOptions{Binned: true})
		if err != nil || !reflect.DeepEqual(got, bw) {
			t.Errorf("binned %s: %v, want the plain bins' sample", name, err)
		}
	}
}

// TestCorruptCompressed: a compressed file cut short, damaged or
// mislabelled fails with ErrCorrupt in a *ParseError naming the file,
// never with a shorter sample and never with a panic.
func TestCorruptCompressed(t *testing.T) {
	data := compressedCSV(60000)
	gz, zs := gzipBytes(t, data), zstdBytes(t, data)
	flip := func(b []byte, at int) []byte {
		b = bytes.Clone(b)
		b[at] ^= 0x55
		return b
	}
	// A Zstandard frame header asking for a 1 GiB window (Window_Descriptor
	// 0xA0: exponent 20, 2^(10+20) bytes; RFC 8878 §3.1.1.1.2), above the
	// 128 MiB the reader takes.
	bigWindow := append([]byte("\x28\xb5\x2f\xfd\x00\xa0"), zs[6:]...)
	tests := []struct {
		name string
		data []byte
		want string // in the message, after "FILE: corrupt or truncated file: "
	}{
		{"gz cut at a seventh.csv.gz", gz[:len(gz)/7], "gzip data ends early: the file is truncated"},
		{"gz cut in the trailer.csv.gz", gz[:len(gz)-3], "gzip data ends early: the file is truncated"},
		{"gz cut in the header.csv.gz", gz[:5], "gzip data ends early: the file is truncated"},
		{"gz damaged.csv.gz", flip(gz, len(gz)/2), "gzip"},
		{"gz bad checksum.csv.gz", flip(gz, len(gz)-6), "gzip checksum mismatch: the file is damaged"},
		{"gz then garbage.csv.gz", append(bytes.Clone(gz), "garbage!"...), "gzip: bytes that are not gzip data follow the compressed data"},
		{"gz then zeros.csv.gz", append(bytes.Clone(gz), make([]byte, 512)...), "gzip: bytes that are not gzip data follow the compressed data"},
		{"gz then a bad member.csv.gz", append(bytes.Clone(gz), "\x1f\x8b\x09\x00\x00\x00\x00\x00\x00\x03"...), "gzip: invalid header: the file is damaged"},
		{"zst cut at a seventh.csv.zst", zs[:len(zs)/7], "zstd data ends early: the file is truncated"},
		{"zst cut before the checksum.csv.zst", zs[:len(zs)-2], "zstd data ends early: the file is truncated"},
		{"zst cut in the header.csv.zst", zs[:5], "zstd data ends early: the file is truncated"},
		{"zst damaged.csv.zst", flip(zs, len(zs)/2), "zstd"},
		{"zst bad checksum.csv.zst", flip(zs, len(zs)-1), "zstd checksum mismatch: the file is damaged"},
		{"zst window.csv.zst", bigWindow, "zstd: the data needs a window above 128 MiB"},
		{"plain named.csv.zst", data, "named .zst but not zstd data"},
		{"plain named.csv.gz", data, "named .gz but not gzip data"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			if err := os.WriteFile(p, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, drop := range []bool{false, true} {
				s, rep, err := Read([]string{p}, ReadOptions{Column: "settle_s", DropInvalid: drop})
				var pe *ParseError
				if !errors.As(err, &pe) || pe.File != p || !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Read (drop %v) = %v items, %v, error %v; want ErrCorrupt naming %s", drop, s.Len(), rep, err, p)
				}
				if prefix := p + ": corrupt or truncated file: " + tt.want; !strings.HasPrefix(err.Error(), prefix) {
					t.Errorf("Read (drop %v) error = %q, want it to start %q", drop, err, prefix)
				}
			}
		})
	}
}

// TestCompressedParquet: Parquet compressed as a whole is named
// as such, not parsed as CSV.
func TestCompressedParquet(t *testing.T) {
	pq := []byte("PAR1\x15\x04\x15\x10") // what a Parquet file starts with (the magic, then a page header)
	_, _, err := ReadCSV(bytes.NewReader(zstdBytes(t, pq)), "x.parquet.zst", ReadOptions{Column: "settle_s"})
	if err == nil || !strings.Contains(err.Error(), "compressed Parquet data") {
		t.Errorf("ReadCSV(zstd of Parquet) error = %v, want one saying it is compressed Parquet", err)
	}
}

// FuzzReadCompressed: CSV read through gzip or zstd gives what it gives
// plain (sample or error); the compressed bytes damaged at one place
// give either that same sample or an error, and never panic.
func FuzzReadCompressed(f *testing.F) {
	for _, s := range []string{"settle_s\n1\n2.5\n", "a,settle_s\r\nx,\"1\"\r\n", "settle_s\n\"", "", "settle_s\n-1\n"} {
		f.Add([]byte(s), uint16(0), byte(0))
		f.Add([]byte(s), uint16(7), byte(1))
	}
	basic, _ := os.ReadFile(ingestPath("basic.csv"))
	f.Add(basic, uint16(20), byte(0x80))
	f.Fuzz(func(t *testing.T, data []byte, at uint16, xor byte) {
		opt := ReadOptions{Column: "settle_s", DropInvalid: true}
		want, _, werr := ReadCSV(bytes.NewReader(data), "plain", opt)
		for _, z := range [][]byte{gzipBytes(t, data), zstdBytes(t, data)} {
			got, _, err := ReadCSV(bytes.NewReader(z), "z", opt)
			if (err == nil) != (werr == nil) || err == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("compressed: %v, %v; plain: %v, %v", got, err, want, werr)
			}
			if xor == 0 || len(z) == 0 {
				continue
			}
			z[int(at)%len(z)] ^= xor
			got, _, err = ReadCSV(bytes.NewReader(z), "z", opt)
			if err == nil && (werr != nil || !reflect.DeepEqual(got, want)) {
				t.Fatalf("damaged at %d: read %v without error; plain: %v, %v", int(at)%len(z), got, want, werr)
			}
		}
	})
}
