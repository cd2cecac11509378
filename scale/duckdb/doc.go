// Command duckdb runs docs/scale.md's DuckDB recipes for pre-binned input
// on a synthetic payments table made in DuckDB, so that the SQL the docs
// give is run, and its bins checked against the raw rows, rather than only
// read.
//
//	go run . gen -db FILE -rows N [-parquet RAW.parquet]
//	go run . bins -db FILE -doc ../../docs/scale.md -recipe log|fixed [-o BINS.csv|-]
//
// gen creates the table payments(payment_id, method, created_at,
// settled_at, status) of the recipes (see Generate for its model) in the
// DuckDB database FILE, and with -parquet also writes it to a Parquet file
// for pollfit to read the raw rows from. bins runs the recipe of the
// ```sql blocks under docs/scale.md's "### DuckDB" heading whose first
// line names it ("-- log-spaced bins …", "-- fixed 1 s bins …") as
// written there, inside COPY (…) TO 'FILE' (HEADER) as the docs say, and
// writes the bins as CSV to -o (- for standard output, the default), which
// pollfit plan --binned --input - reads.
//
// This is its own Go module, so that pollfit's build, its go.mod and its
// go test ./... carry neither the DuckDB driver nor its 130 MB static
// library. It needs cgo and a C compiler; built without cgo it only says
// so. bench/duckdb.sh times both steps and pollfit at 10M and 100M rows;
// go test here checks the schedules at 200k rows (TestDuckDBRecipes).
package main
