//go:build !linux

package bulk

import "unsafe"

// hugePages does nothing outside Linux.
func hugePages(unsafe.Pointer, uintptr) {}
