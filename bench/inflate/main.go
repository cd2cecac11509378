//go:build unix

// Command inflate times the decompressors pollfit reads compressed CSV
// with, alone: github.com/klauspost/compress's gzip and zstd readers (the
// ones ingest uses, at the versions in go.mod) and the standard library's
// compress/gzip, each copying the decompressed stream to io.Discard. It
// prints the decompressed size, the wall and CPU seconds (user + system,
// getrusage) and the CPU rate, for bench/compressed.sh's floor: no read of
// a compressed file can take less CPU than its decompression.
//
//	go run ./bench/inflate [-codec gzip|zstd|stdgzip] FILE
package main

import (
	stdgzip "compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func main() {
	codec := flag.String("codec", "gzip", "gzip (klauspost), zstd (klauspost) or stdgzip (compress/gzip)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: inflate [-codec gzip|zstd|stdgzip] FILE")
		os.Exit(2)
	}
	if err := run(*codec, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "inflate:", err)
		os.Exit(1)
	}
}

func run(codec, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader
	switch codec {
	case "gzip":
		r, err = gzip.NewReader(f)
	case "stdgzip":
		r, err = stdgzip.NewReader(f)
	case "zstd":
		var z *zstd.Decoder
		z, err = zstd.NewReader(f)
		if z != nil {
			defer z.Close()
		}
		r = z
	default:
		return fmt.Errorf("unknown codec %q (gzip, zstd or stdgzip)", codec)
	}
	if err != nil {
		return err
	}
	c0, t0 := cpuTime(), time.Now()
	n, err := io.CopyBuffer(io.Discard, r, make([]byte, 1<<20))
	if err != nil {
		return err
	}
	wall, cpu := time.Since(t0).Seconds(), (cpuTime() - c0).Seconds()
	fmt.Printf("%s %d bytes wall %.3f s cpu %.3f s %.0f MB/s\n", codec, n, wall, cpu, float64(n)/1e6/cpu)
	return nil
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
