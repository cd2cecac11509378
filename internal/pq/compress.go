package pq

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// zstdDecoder decodes Zstandard pages; DecodeAll may be called from many
// goroutines at once.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(MinAllocBound))
})

// decompress decompresses src, which the page header says is n bytes
// decompressed, into dst (reused when large enough).
func decompress(codec Codec, dst, src []byte, n int) ([]byte, error) {
	dst = grow(dst, n)
	var got int
	var err error
	switch codec {
	case Uncompressed:
		return src, nil
	case Snappy:
		var l int
		if l, err = s2.DecodedLen(src); err == nil && l != n {
			return nil, fmt.Errorf("a Snappy page of %d bytes for a page of %d", l, n)
		}
		if err == nil {
			var out []byte
			out, err = s2.Decode(dst, src)
			got = len(out)
		}
	case Gzip:
		var r *gzip.Reader
		if r, err = gzip.NewReader(bytes.NewReader(src)); err == nil {
			got, err = readFull(r, dst)
		}
	case Brotli:
		got, err = readFull(brotli.NewReader(bytes.NewReader(src)), dst)
	case Zstd:
		var d *zstd.Decoder
		if d, err = zstdDecoder(); err == nil {
			var out []byte
			out, err = d.DecodeAll(src, dst[:0])
			got = len(out)
			if err == nil && len(out) > n {
				err = errors.New("more bytes than the page header says")
			}
			dst = out
		}
	case LZ4Raw:
		got, err = lz4.UncompressBlock(src, dst)
	case LZ4:
		got, err = lz4Hadoop(src, dst)
	default:
		return nil, fmt.Errorf("%w: the %s codec", ErrUnsupported, codec)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", codec, err)
	}
	if got != n {
		return nil, fmt.Errorf("%s: the page decompresses to %d bytes, its header says %d", codec, got, n)
	}
	return dst[:n], nil
}

// readFull reads all of r into dst: exactly len(dst) bytes, or fewer
// and an error for more.
func readFull(r io.Reader, dst []byte) (int, error) {
	n, err := io.ReadFull(r, dst)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return n, nil
	}
	if err != nil {
		return n, err
	}
	var one [1]byte
	if k, _ := r.Read(one[:]); k > 0 {
		return n, errors.New("more bytes than the page header says")
	}
	return n, nil
}

// lz4Hadoop decodes the deprecated LZ4 codec: as Apache Arrow does, the
// Hadoop framing (blocks each after its 4-byte big-endian decompressed
// and compressed lengths), else the LZ4 frame format, else a raw block.
func lz4Hadoop(src, dst []byte) (int, error) {
	in, out := src, 0
	for len(in) >= 8 {
		dl, cl := binary.BigEndian.Uint32(in), binary.BigEndian.Uint32(in[4:])
		if uint64(cl) > uint64(len(in)-8) || uint64(dl) > uint64(len(dst)-out) {
			break
		}
		n, err := lz4.UncompressBlock(in[8:8+cl], dst[out:out+int(dl)])
		if err != nil || n != int(dl) {
			break
		}
		in, out = in[8+cl:], out+n
		if len(in) == 0 {
			return out, nil
		}
	}
	if bytes.HasPrefix(src, []byte{0x04, 0x22, 0x4d, 0x18}) {
		return readFull(lz4.NewReader(bytes.NewReader(src)), dst)
	}
	return lz4.UncompressBlock(src, dst)
}
