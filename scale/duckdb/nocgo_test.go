//go:build !cgo

package main

import "testing"

// TestDuckDBRecipes needs the DuckDB driver, which needs cgo
// (scale_test.go).
func TestDuckDBRecipes(t *testing.T) {
	t.Skip("the DuckDB driver needs cgo and a C compiler: run with CGO_ENABLED=1")
}
