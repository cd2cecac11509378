package pq

import (
	"bytes"
	"encoding/binary"
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
// decompressed, into dst (reused when large enough). Memory for the n
// bytes is taken only as the data fills it, or once the codec's own
// length or ratio bound shows n possible: a damaged header can claim
// up to 2 GB.
func decompress(codec Codec, dst, src []byte, n int) ([]byte, error) {
	var out []byte
	var err error
	switch codec {
	case Uncompressed:
		return src, nil
	case Snappy:
		var l int
		if l, err = s2.DecodedLen(src); err == nil && l != n {
			return nil, fmt.Errorf("SNAPPY: a page of %d bytes decompressed, its header says %d", l, n)
		}
		if err == nil {
			out, err = s2.Decode(grow(dst, n), src)
		}
	case Gzip:
		var r *gzip.Reader
		if r, err = gzip.NewReader(bytes.NewReader(src)); err == nil {
			out, err = readUpTo(r, dst, n)
		}
	case Brotli:
		out, err = readUpTo(brotli.NewReader(bytes.NewReader(src)), dst, n)
	case Zstd:
		var d *zstd.Decoder
		if d, err = zstdDecoder(); err == nil {
			out, err = d.DecodeAll(src, dst[:0])
		}
	case LZ4Raw, LZ4:
		// An LZ4 sequence of one byte expands to at most 255+… bytes.
		if int64(n) > 256*int64(len(src))+64 {
			return nil, fmt.Errorf("%s: %d bytes cannot decompress to %d", codec, len(src), n)
		}
		var got int
		buf := grow(dst, n)
		if codec == LZ4Raw {
			got, err = lz4.UncompressBlock(src, buf)
		} else {
			got, err = lz4Hadoop(src, buf)
		}
		out = buf[:max(got, 0)]
	default:
		return nil, fmt.Errorf("%w: the %s codec", ErrUnsupported, codec)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", codec, err)
	}
	if len(out) != n {
		return nil, fmt.Errorf("%s: the page decompresses to %d bytes, its header says %d", codec, len(out), n)
	}
	return out, nil
}

// readUpTo reads r to its end into dst's memory, growing it as the data
// comes, and stops past n bytes.
func readUpTo(r io.Reader, dst []byte, n int) ([]byte, error) {
	out := dst[:0]
	for len(out) <= n {
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)]
		}
		k, err := r.Read(out[len(out):min(cap(out), n+1)])
		out = out[:len(out)+k]
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
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
		out, err := readUpTo(lz4.NewReader(bytes.NewReader(src)), dst[:0:len(dst)], len(dst))
		return len(out), err
	}
	return lz4.UncompressBlock(src, dst)
}
