package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestMappedSameAsRead: a file parsed in place from its memory
// mapping gives the sample, report and errors that reading it through
// an io.Reader gives, whatever the block size: block ends inside quoted
// fields and CRLFs, records longer than a block, no final line break, a
// byte order mark, bad rows.
func TestMappedSameAsRead(t *testing.T) {
	defer func(n int64, c int) { minMapped, chunkSize = n, c }(minMapped, chunkSize)
	minMapped = 1
	long := "\"" + strings.Repeat("x,\n", 300) + "\""
	inputs := map[string]string{
		"quotes and CRLF":  string(compressedCSV(3000)),
		"long record":      "note,settle_s\n" + long + ",1.5\nshort,2\n" + long + ",3",
		"BOM, no final LF": "\ufeffsettle_s\n1\n2\n0.25",
		"bad value":        "a,settle_s\nx,1\ny,oops\nz,3\n",
		"ragged":           "a,settle_s\nx,1\ny\nz,3\n",
		"header only":      "a,settle_s\n",
		"unclosed quote":   "a,settle_s\n\"x,1\n",
	}
	dir := t.TempDir()
	for name, in := range inputs {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".csv")
		if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{5, 64, 1000, 1 << 21} {
			chunkSize = size
			for _, opt := range []ReadOptions{{Column: "settle_s"}, {Column: "settle_s", DropInvalid: true}} {
				want, wrep, werr := ReadCSV(strings.NewReader(in), p, opt) // through an io.Reader
				got, grep, gerr := Read([]string{p}, opt)                  // mapped
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(grep, wrep) || errString(gerr) != errString(werr) {
					t.Errorf("%s, blocks of %d, drop %v: mapped %v, %v; read %v, %v", name, size, opt.DropInvalid, grep, gerr, wrep, werr)
				}
			}
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestMappedFileShrinks: a file cut short after it was mapped
// (another process truncating it) fails with ErrCorrupt naming it, where
// the pages beyond its new end would otherwise crash the program.
func TestMappedFileShrinks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	defer func(c int) { chunkSize = c }(chunkSize)
	chunkSize = 1 << 16
	data := compressedCSV(100000)
	p := filepath.Join(t.TempDir(), "shrinks.csv")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mapped, unmap := mapFile(f, int64(len(data)))
	if mapped == nil {
		t.Fatal("mapFile failed")
	}
	defer unmap()
	if err := os.Truncate(p, 1<<12); err != nil { // one page left
		t.Fatal(err)
	}
	pl, err := newPlan(ReadOptions{Column: "settle_s"})
	if err != nil {
		t.Fatal(err)
	}
	m := merger{}
	err = readMapped(mapped, input{path: p, size: int64(len(data))}, pl, nil, &m)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != p || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "the file shrank while it was read") {
		t.Fatalf("reading a mapped file cut short: %v, want ErrCorrupt: the file shrank", err)
	}
	// The same once the header's pages are gone too.
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	m = merger{}
	if err := readMapped(mapped, input{path: p, size: int64(len(data))}, pl, nil, &m); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("reading a mapped file cut to nothing: %v, want ErrCorrupt", err)
	}
}

// faultAt is a panic value of a memory fault at an address, as
// debug.SetPanicOnFault makes them.
type faultAt uintptr

func (f faultAt) Addr() uintptr { return uintptr(f) }

// TestMappedFaultElsewhere: only a fault inside the mapping is the file's
// doing; any other panic goes on.
func TestMappedFaultElsewhere(t *testing.T) {
	mapped := make([]byte, 100)
	base := uintptr(unsafe.Pointer(&mapped[0]))
	if err := mappedFault("f.csv", mapped, faultAt(base+99)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("fault inside the mapping: %v, want ErrCorrupt", err)
	}
	for _, r := range []any{faultAt(base + 100), faultAt(base - 1), "a bug"} {
		func() {
			defer func() {
				if recover() != r {
					t.Errorf("mappedFault(%v) did not panic with it", r)
				}
			}()
			mappedFault("f.csv", mapped, r)
		}()
	}
}
