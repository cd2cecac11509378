package main

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// Recipe is one SQL query of docs/scale.md.
type Recipe struct {
	// Title is its first line, a comment such as "-- log-spaced bins, …".
	Title string
	// SQL is the query as the doc gives it, without its final semicolon.
	SQL string
	// Line is the line of the doc its block starts on, counted from 1.
	Line int
}

// Recipes returns the ```sql blocks of doc under the heading (a whole
// line, such as "### DuckDB") up to the next heading of any level.
func Recipes(doc []byte, heading string) ([]Recipe, error) {
	var (
		out            []Recipe
		in, inBlock    bool
		block          []string
		start, lineNum int
	)
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		lineNum++
		line := sc.Text()
		switch {
		case inBlock && line == "```":
			inBlock = false
			q := strings.TrimSpace(strings.Join(block, "\n"))
			q = strings.TrimSpace(strings.TrimSuffix(q, ";"))
			if statements(q) > 1 {
				return nil, fmt.Errorf("line %d: the block holds more than one statement: give each query its own block", start)
			}
			title, _, _ := strings.Cut(q, "\n")
			out = append(out, Recipe{Title: title, SQL: q, Line: start})
			block = nil
		case inBlock:
			block = append(block, line)
		case line == heading:
			in = true
		case in && strings.HasPrefix(line, "#"):
			in = false
		case in && line == "```sql":
			inBlock, start = true, lineNum
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inBlock {
		return nil, fmt.Errorf("line %d: the block does not end", start)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no ```sql block under %q", heading)
	}
	return out, nil
}

// Find returns the recipe whose title holds name ("log-spaced", "fixed"),
// which must be one only.
func Find(recipes []Recipe, name string) (Recipe, error) {
	var found []Recipe
	for _, r := range recipes {
		if strings.Contains(r.Title, name) {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return Recipe{}, fmt.Errorf("%d recipes have %q in their first line, want 1", len(found), name)
	}
	return found[0], nil
}

// statements counts the statements of q by its semicolons outside
// comments, plus one for a final statement without one.
func statements(q string) int {
	n := 0
	last := ""
	for _, line := range strings.Split(q, "\n") {
		code, _, _ := strings.Cut(line, "--")
		if code = strings.TrimSpace(code); code != "" {
			n += strings.Count(code, ";")
			last = code
		}
	}
	if last != "" && !strings.HasSuffix(last, ";") {
		n++
	}
	return n
}
