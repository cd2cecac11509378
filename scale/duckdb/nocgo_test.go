//go:build !cgo

package main

import "testing"

// TestIssue13DuckDBRecipes needs the DuckDB driver, which needs cgo
// (scale_test.go).
func TestIssue13DuckDBRecipes(t *testing.T) {
	t.Skip("the DuckDB driver needs cgo and a C compiler: run with CGO_ENABLED=1")
}
