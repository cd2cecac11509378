package ingest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalProgress: a regular file (as when stderr is redirected to a
// log) is not a terminal, so no progress is drawn there.
func TestTerminalProgress(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if w := TerminalProgress(f); w != nil {
		t.Errorf("TerminalProgress(regular file) = %v, want nil", w)
	}
	if w := TerminalProgress(nil); w != nil {
		t.Errorf("TerminalProgress(nil) = %v, want nil", w)
	}
}

// TestProgress: inputs under 64 MB get no bar; a large one gets a bar
// that counts the bytes read through it, names the input and is cleared
// when done.
func TestProgress(t *testing.T) {
	var out bytes.Buffer
	if p := newProgress(&out, progressMinBytes-1, "small.csv"); p != nil {
		t.Errorf("bar for %d bytes, want none", progressMinBytes-1)
	}
	if p := newProgress(nil, 1<<40, "big.csv"); p != nil {
		t.Error("bar without a writer")
	}
	const total = progressMinBytes + 1
	p := newProgress(&out, total, "big.csv")
	if p == nil {
		t.Fatal("no bar for a large input")
	}
	n, err := io.Copy(io.Discard, p.reader(io.LimitReader(zeros{}, total)))
	if err != nil || n != total {
		t.Fatalf("read %d, %v; want %d", n, err, total)
	}
	if got := p.bar.State().CurrentNum; got != total {
		t.Errorf("bar counted %d bytes, want %d", got, total)
	}
	p.done()
	if s := out.String(); !strings.Contains(s, "big.csv") {
		t.Errorf("bar output %q does not name the input", s)
	}
	// A nil bar (small input, no terminal) is a no-op.
	var none *progress
	none.add(1)
	none.done()
	if r := strings.NewReader("x"); none.reader(r) != r {
		t.Error("nil progress wraps the reader")
	}
}

// TestReadProgressSmallInput: a 2 MB input is read without a bar even
// when stderr is a terminal.
func TestReadProgressSmallInput(t *testing.T) {
	var out bytes.Buffer
	_, _, err := Read([]string{"../fixtures/payments.csv"}, ReadOptions{Column: "settle_s", Progress: &out})
	if err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("progress output for a 2 MB file: %q", out.String())
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}
