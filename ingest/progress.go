package ingest

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressMinBytes is the input size below which no progress bar is shown:
// smaller inputs are read in well under a second.
const progressMinBytes = 64 << 20

// TerminalProgress returns f when it is a terminal and nil otherwise, for
// ReadOptions.Progress: progress bars go to people, not to logs.
func TerminalProgress(f *os.File) io.Writer {
	if f != nil && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

// progress shows how many input bytes were read; a nil *progress shows
// nothing.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress returns a bar over total bytes (-1: unknown, a spinner) on
// w, or nil when w is nil or the input is small.
func newProgress(w io.Writer, total int64, desc string) *progress {
	if w == nil || (total >= 0 && total < progressMinBytes) {
		return nil
	}
	return &progress{progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(false),
	)}
}

func (p *progress) add(n int64) {
	if p != nil {
		p.bar.Add64(n)
	}
}

func (p *progress) done() {
	if p != nil {
		p.bar.Finish()
	}
}

// reader counts the bytes read from r on the bar.
func (p *progress) reader(r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	return &countingReader{r, p}
}

type countingReader struct {
	r io.Reader
	p *progress
}

// ReadAt reads r at an offset, uncounted (peekEnds), when r can.
func (c *countingReader) ReadAt(b []byte, off int64) (int, error) {
	if ra, ok := c.r.(io.ReaderAt); ok {
		return ra.ReadAt(b, off)
	}
	return 0, errors.ErrUnsupported
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.add(int64(n))
	return n, err
}
