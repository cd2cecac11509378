//go:build !linux

package ingest

import "os"

var pageSize = os.Getpagesize()

// mapFile maps nothing outside Linux: files are read with read(2).
func mapFile(f *os.File, size int64) (data []byte, unmap func()) { return nil, nil }

// releaseMapped has nothing to release where nothing is mapped.
func releaseMapped(b []byte) {}
