// Package ingest reads historical settle times from CSV and Parquet into
// a Sample, the input of the estimators in package fit.
//
// It is the first stage of pollfit's pipeline, and a package of its own so
// that the folder list shows it: ingest reads logs into a Sample, fit
// estimates their distribution, optimize derives and scores poll
// schedules, export writes them as code. The arrow runs one way: the
// Sample type lives in package sample, which ingest fills and fit reads,
// so neither stage imports the other: a program that only reads logs does
// not link the estimators, and one that only fits does not link the
// readers. Sample here is an alias of sample.Sample.
//
// A row's settle time is a duration column or the difference of two
// timestamp columns, in any unit (Unit, from the column's name when not
// set); pending rows are right-censored, and a segment column splits the
// sample (ReadOptions). Read takes files, globs, directories and
// Hive-partitioned datasets; ReadCSV a stream. CSV is parsed in parallel
// blocks (csv.go, csvworker.go, csvfast.go), in place from a memory
// mapping for large files on Linux (mmap_linux.go), decompressed on the
// way when it is gzip or Zstandard (compress.go); Parquet row group by
// row group (parquet.go, its columns as cells in parquetcells.go); all
// through one row loop (rows.go: cells, cell.go, into batches, batch.go,
// merged into the Sample, merge.go), so that every form of input gets the
// same checks.
//
// Bad input never passes silently: a value that cannot be read is a
// *ParseError naming file, row (and Parquet row group) and column, which
// wraps one of the Err sentinels; with ReadOptions.DropInvalid the row is
// dropped instead and counted per reason in the Report, whose counts
// always add up (read = used + excluded + dropped). Doubts about the
// input (repeated rows, implausible magnitudes, a status value no row
// has) are Report.Warnings.
package ingest
