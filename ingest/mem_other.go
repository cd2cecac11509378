//go:build !linux

package ingest

// systemMemAvailable returns 0 (unknown) outside Linux: no default row limit.
func systemMemAvailable() int64 { return 0 }
