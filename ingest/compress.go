package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compressed text input (CSV, TSV, binned bins) is recognised by its
// magic bytes, whatever its name, and decompressed as it is read:
//
//   - gzip (RFC 1952), one member or several concatenated, by
//     github.com/klauspost/compress/gzip, which inflates about 1.3–1.8×
//     as fast as compress/gzip (docs/performance.md, Ingest);
//   - Zstandard (RFC 8878), by github.com/klauspost/compress/zstd, which
//     decodes blocks ahead on other goroutines.
//
// Decompression runs in the CSV reader's producer goroutine, so the
// blocks it fills are parsed on the other cores as the next ones are
// decompressed. The gzip stream cannot be split across cores (a deflate
// block's start is only known once the block before it is decoded), so
// on a single core it bounds the read: see docs/performance.md.

// A codec is a compression format of text input.
type codec struct {
	name   string // as messages say it: "gzip", "zstd"
	suffix string // the usual file name suffix: ".gz", ".zst"
	magic  string
}

var codecs = []codec{
	{name: "gzip", suffix: ".gz", magic: "\x1f\x8b"},
	{name: "zstd", suffix: ".zst", magic: "\x28\xb5\x2f\xfd"},
}

// maxZstdWindow is the largest Zstandard window accepted, 128 MiB: the
// zstd command's own default limit (--memory), so that a hostile frame
// header cannot make the reader allocate gigabytes.
const maxZstdWindow = 128 << 20

// compressedSource counts the bytes read from r and keeps its first error
// other than io.EOF, so that a failing disk is told apart from a corrupt
// stream.
type compressedSource struct {
	r   io.Reader
	n   int64
	err error
}

func (c *compressedSource) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// decoded is the decompressed stream of a file; its errors are the file's
// read errors as they are, or ErrCorrupt with what is wrong.
type decoded struct {
	r     io.Reader
	src   *compressedSource
	codec codec
	close func()
}

func (d *decoded) Read(b []byte) (int, error) {
	n, err := d.r.Read(b)
	if err != nil && err != io.EOF {
		err = d.wrap(err)
	}
	return n, err
}

// wrap turns a decompressor's error into a read error of the file or a
// description of the damage.
func (d *decoded) wrap(err error) error {
	if d.src.err != nil {
		return d.src.err // the file could not be read: not the stream's fault
	}
	c := d.codec.name
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: %s data ends early: the file is truncated", ErrCorrupt, c)
	case errors.Is(err, zstd.ErrWindowSizeExceeded):
		return fmt.Errorf("%w: zstd: the data needs a window above %d MiB, the most read (was it written with zstd --long=28 or more? recompress with a smaller window)", ErrCorrupt, maxZstdWindow>>20)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, zstd.ErrCRCMismatch):
		return fmt.Errorf("%w: %s checksum mismatch: the file is damaged", ErrCorrupt, c)
	case errors.Is(err, errTrailing):
		return fmt.Errorf("%w: %s: bytes that are not gzip data follow the compressed data: the file is damaged, or something was appended to it", ErrCorrupt, c)
	case errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("%w: %s: invalid header: the file is damaged", ErrCorrupt, c)
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: %s: invalid deflate data: the file is damaged", ErrCorrupt, c)
	}
	return fmt.Errorf("%w: %s: %v", ErrCorrupt, c, err)
}

// gzipMembers reads the members of a gzip file one after the other, as
// gzip -d does, and tells bytes after the last member that are not one
// (errTrailing) from a member cut short.
type gzipMembers struct {
	gz *gzip.Reader
	br *bufio.Reader
}

// errTrailing is data after the end of the last gzip member.
var errTrailing = errors.New("bytes after the end of the compressed data")

func (g *gzipMembers) Read(b []byte) (int, error) {
	for {
		n, err := g.gz.Read(b)
		if err != io.EOF {
			return n, err
		}
		next, _ := g.br.Peek(2)
		switch {
		case len(next) == 0:
			return n, io.EOF
		case string(next) != "\x1f\x8b":
			return n, errTrailing
		}
		if err := g.gz.Reset(g.br); err != nil {
			return n, err
		}
		g.gz.Multistream(false)
		if n > 0 {
			return n, nil
		}
	}
}

// decompress returns the decompressed stream of br when it starts with
// the magic bytes of a codec, else nil. name labels errors; a name ending
// in a codec's suffix whose content is not that codec is ErrCorrupt.
// src is the reader under br, which counts the compressed bytes.
func decompress(br *bufio.Reader, src *compressedSource, name string) (*decoded, error) {
	lower := strings.ToLower(name)
	for _, c := range codecs {
		magic, _ := br.Peek(len(c.magic))
		if string(magic) != c.magic {
			if strings.HasSuffix(lower, c.suffix) && len(magic) > 0 {
				return nil, &ParseError{File: name, RowGroup: -1, Err: fmt.Errorf("%w: named %s but not %s data", ErrCorrupt, c.suffix, c.name)}
			}
			continue
		}
		d := &decoded{src: src, codec: c}
		switch c.name {
		case "gzip":
			gz, err := gzip.NewReader(br)
			if err != nil {
				return nil, &ParseError{File: name, RowGroup: -1, Err: d.wrap(err)}
			}
			gz.Multistream(false)
			d.r, d.close = &gzipMembers{gz: gz, br: br}, func() { gz.Close() }
		case "zstd":
			zr, err := zstd.NewReader(br, zstd.WithDecoderMaxWindow(maxZstdWindow))
			if err != nil {
				return nil, &ParseError{File: name, RowGroup: -1, Err: d.wrap(err)}
			}
			d.r, d.close = zr, zr.Close
		}
		return d, nil
	}
	return nil, nil
}

func readError(name string, err error) error {
	if errors.Is(err, ErrCorrupt) {
		return &ParseError{File: name, RowGroup: -1, Err: err}
	}
	return fmt.Errorf("%s: %w", name, err)
}
