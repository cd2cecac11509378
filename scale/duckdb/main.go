//go:build cgo

package main

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{errors.New("want a command: gen or bins")}
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", "DuckDB database `FILE` (required)")
	switch args[0] {
	case "gen":
		rows := fs.Int64("rows", 200000, "rows of the payments table")
		pq := fs.String("parquet", "", "also write the table to this Parquet `FILE`")
		if err := parse(fs, args[1:], dbPath); err != nil {
			return err
		}
		if *rows < 0 {
			return usageError{fmt.Errorf("-rows %d: want a count ≥ 0", *rows)}
		}
		db, err := open(*dbPath)
		if err != nil {
			return err
		}
		defer db.Close()
		if err := Generate(db, *rows); err != nil {
			return err
		}
		if *pq != "" {
			return WriteParquet(db, *pq)
		}
		return nil
	case "bins":
		doc := fs.String("doc", "docs/scale.md", "the doc `FILE` whose recipe is run")
		name := fs.String("recipe", "log-spaced", "the recipe: a `WORD` of its first line (log-spaced, fixed)")
		out := fs.String("o", "-", "bins CSV `FILE`, - for standard output")
		if err := parse(fs, args[1:], dbPath); err != nil {
			return err
		}
		text, err := os.ReadFile(*doc)
		if err != nil {
			return err
		}
		recipes, err := Recipes(text, "### DuckDB")
		if err != nil {
			return fmt.Errorf("%s: %w", *doc, err)
		}
		r, err := Find(recipes, *name)
		if err != nil {
			return usageError{fmt.Errorf("-recipe: %s: %w", *doc, err)}
		}
		db, err := open(*dbPath)
		if err != nil {
			return err
		}
		defer db.Close()
		path := *out
		if path == "-" {
			path = "/dev/stdout"
		}
		return WriteBins(db, r.SQL, path)
	}
	return usageError{fmt.Errorf("unknown command %q: want gen or bins", args[0])}
}

// parse parses the flags of a command, all of them: db is the -db flag's
// variable, read once parsed.
func parse(fs *flag.FlagSet, args []string, db *string) error {
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if *db == "" {
		return usageError{errors.New("-db: want the database file")}
	}
	return nil
}

func open(path string) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}
