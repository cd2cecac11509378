package export

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/pollfit/pollfit/optimize"
)

// Load reads the schedule that a --schedule argument names. arg is, in the
// order tried:
//
//   - the path of an existing file: a JSON document written by JSON (the
//     file's first non-space byte is '{'), or a file holding a spec, one
//     or more items per line, with blank lines and lines starting with '#'
//     ignored and a line's trailing comma optional;
//   - a schedule spec, as read by optimize.ParseSpec.
//
// Errors from a file name the file. When arg is neither an existing file
// nor a valid spec, the error says both, so that a mistyped path is not
// reported as a bad spec alone.
func Load(arg string) (Document, error) {
	data, ferr := os.ReadFile(arg)
	if ferr == nil {
		doc, err := parseFile(data)
		if err != nil {
			return doc, fmt.Errorf("schedule file %s: %w", arg, err)
		}
		return doc, nil
	}
	s, err := optimize.ParseSpec(arg)
	if err == nil {
		return Document{Schedule: s}, nil
	}
	if errors.Is(ferr, fs.ErrNotExist) && !looksLikePath(arg) {
		return Document{}, err
	}
	return Document{}, fmt.Errorf("schedule %q is neither a readable file (%w) nor a spec (%w)", arg, ferr, err)
}

// looksLikePath reports whether a --schedule argument that is no file was
// probably meant as one: specs never contain a slash or end in .json.
func looksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".json") || strings.HasSuffix(arg, ".txt") || strings.HasSuffix(arg, ".spec")
}

func parseFile(data []byte) (Document, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return ReadJSON(bytes.NewReader(data))
	}
	var items []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		items = append(items, strings.TrimSuffix(line, ","))
	}
	s, err := optimize.ParseSpec(strings.Join(items, ", "))
	return Document{Schedule: s}, err
}

// ParseJitter reads a jitter as written in a spec (see
// optimize.ParseJitter). It serves the --jitter flag.
func ParseJitter(s string) (optimize.Jitter, error) {
	if s == "" {
		return optimize.Jitter{}, errors.New("empty jitter; want full, equal, decorrelated, ±P% or none")
	}
	return optimize.ParseJitter(s)
}
