//go:build !linux

package fit

import "unsafe"

// hugePages does nothing outside Linux.
func hugePages(unsafe.Pointer, uintptr) {}
