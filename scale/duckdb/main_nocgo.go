//go:build !cgo

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "duckdb: built without cgo: the DuckDB driver needs cgo and a C compiler (CGO_ENABLED=1)")
	os.Exit(1)
}
