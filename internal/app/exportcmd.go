package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/internal/outfile"
	"github.com/pollfit/pollfit/optimize"
)

// Export settings: see the export command's help.
type Export struct {
	Schedule string // FILE_OR_SPEC
	Lang     string // go, json, ts, kotlin, swift
	Template string // a text/template file used instead of Lang
	Options  export.Options
	Jitter   string // replaces every schedule's jitter when not empty
	Tests    bool   // Go: also write an Example and a unit test beside -o
	Polls    bool   // JSON: add polls_ms
	Out      string
}

// Run writes the schedule in the target language.
func (e Export) Run(stdout, stderr io.Writer) error {
	if err := (outputs{Out: e.Out, Files: []string{e.Schedule, e.Template}}).check(); err != nil {
		return err
	}
	if e.Schedule == "" {
		return &UsageError{errNoSchedule}
	}
	doc, err := loadDocument(e.Schedule)
	if err != nil {
		return err
	}
	for _, w := range pendingWarnings(doc) {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if e.Jitter != "" {
		j, err := export.ParseJitter(e.Jitter)
		if err != nil {
			return Usagef("--jitter: %w", err)
		}
		e.Options.Jitter = &j
	}
	var write func(w io.Writer) error
	switch {
	case e.Template != "":
		text, err := os.ReadFile(e.Template)
		if err != nil {
			return Usagef("--template: %w", err)
		}
		write = func(w io.Writer) error { return export.NamedTemplate(w, e.Template, string(text), doc, e.Options) }
	case e.Lang == "json":
		write = func(w io.Writer) error { return export.JSON(w, doc, export.JSONOptions{Polls: e.Polls}) }
	case e.Lang == "go":
		write = func(w io.Writer) error { return export.GoSource(w, doc, e.Options) }
	case e.Lang == "ts" || e.Lang == "typescript":
		write = func(w io.Writer) error { return export.TypeScript(w, doc, e.Options) }
	case e.Lang == "kotlin" || e.Lang == "kt":
		write = func(w io.Writer) error { return export.Kotlin(w, doc, e.Options) }
	case e.Lang == "swift":
		write = func(w io.Writer) error { return export.Swift(w, doc, e.Options) }
	default:
		return Usagef("--lang %q: want go, json, ts, kotlin or swift (or --template FILE)", e.Lang)
	}
	if e.Tests {
		if e.Lang != "go" {
			return Usagef("--tests generates Go tests: use it with --lang go")
		}
		if e.Out == "" || e.Out == "-" {
			return Usagef("--tests writes a _test.go file beside the output: give -o FILE.go")
		}
		if err := keepHandWritten(testPath(e.Out)); err != nil {
			return err
		}
	}
	if err := outfile.Write(e.Out, stdout, write); err != nil {
		return e.clockUsage(err)
	}
	if e.Tests {
		path := testPath(e.Out)
		if err := outfile.Write(path, stdout, func(w io.Writer) error { return export.GoTest(w, doc, e.Options) }); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s and %s\n", e.Out, path)
	}
	return nil
}

// pendingWarnings returns a warning for each schedule of doc whose meta
// says that plan took its horizon from the data (or a model) while the
// fit had more than pendingShare of the items still pending there
// (withHorizonMeta): the generated client stops polling at the horizon
// (backoff.Stop in Go), and the items still pending then are never seen
// settled.
func pendingWarnings(doc export.Document) []string {
	var out []string
	check := func(name string, s optimize.Schedule, meta json.RawMessage) {
		var m struct {
			From    string  `json:"horizon_from"`
			Pending float64 `json:"pending_at_horizon"`
		}
		if len(meta) == 0 || json.Unmarshal(meta, &m) != nil || m.From == "" || m.From == "given" || !(m.Pending > pendingShare) {
			return
		}
		w := fmt.Sprintf("the generated client stops polling at %s, the horizon plan took from the %s, while the fit had %s of items still pending then: plan --horizon sets a later one",
			optimize.FormatDuration(s.Horizon()), m.From, pct(m.Pending))
		if len(doc.Segments) > 0 {
			w = name + ": " + w
		}
		out = append(out, w)
	}
	check("all items", doc.Schedule, doc.Meta)
	for _, sg := range doc.Segments {
		check(fmt.Sprintf("segment %q", sg.Name), sg.Schedule, sg.Meta)
	}
	return out
}

// testPath is the _test.go file --tests writes beside out.
func testPath(out string) string { return strings.TrimSuffix(out, ".go") + "_test.go" }

// generatedLine matches the line that marks a Go file as generated
// (https://go.dev/s/generatedcode), as pollfit's templates write it.
var generatedLine = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// keepHandWritten refuses to replace path, a file export writes without
// being named by -o, when it exists and was not generated: its header,
// before the package clause, has no "// Code generated … DO NOT EDIT."
// line. A missing file, or one pollfit (or another generator) wrote,
// may be replaced.
func keepHandWritten(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return err // outfile says what it makes of a device or directory
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if generatedLine.MatchString(line) {
			return nil
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	return fmt.Errorf("--tests would replace %s, which pollfit did not generate (it has no \"// Code generated ... DO NOT EDIT.\" line): move or rename it, or give -o another FILE.go", path)
}

// clockUsage returns the refusals of a schedule with a wall-clock phase as
// the usage errors they are, naming the flag to change; other errors as
// they are.
func (e Export) clockUsage(err error) error {
	switch {
	case errors.Is(err, export.ErrClockPolls):
		return Usagef("--polls: %w", err)
	case errors.Is(err, optimize.ErrClockJitter) && e.Jitter != "":
		return Usagef("--jitter: %w", err)
	case errors.Is(err, export.ErrClockEnd):
		return Usagef("--schedule: %w", err)
	}
	return err
}

// loadDocument resolves a --schedule argument of export and optimize: a
// reference name, a spec, or a file (spec or JSON document).
func loadDocument(arg string) (export.Document, error) {
	for _, r := range optimize.References {
		if arg == r.Name {
			return export.Document{Schedule: r}, nil
		}
	}
	doc, err := export.Load(arg)
	if err != nil {
		return doc, &UsageError{fmt.Errorf("--schedule: %w", err)}
	}
	return doc, nil
}

// writeDocument writes a schedule document as JSON, atomically.
func writeDocument(path string, stdout io.Writer, doc export.Document) error {
	return outfile.Write(path, stdout, func(w io.Writer) error {
		return export.JSON(w, doc, export.JSONOptions{})
	})
}
