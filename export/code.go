package export

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"go/format"
	"io"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"

	"github.com/pollfit/pollfit/optimize"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// builtin holds the templates of the code targets, parsed once.
var builtin = template.Must(template.New("").Funcs(Funcs).ParseFS(templateFS, "templates/*.tmpl"))

// Growing reports whether some table has a phase whose gaps grow.
func (d *Data) Growing() bool {
	return d.Growths["linear"] || d.Growths["exponential"] || d.Growths["polynomial"] || d.Growths["fibonacci"]
}

// GoSource writes doc as one gofmt'd Go file of package opt.Package that
// imports the standard library only: the phase tables as time.Duration
// constants, and a type opt.Name with NextBackOff and Reset (the BackOff
// interface of github.com/cenkalti/backoff), GapAfter (age to the next
// gap), Poll (a context-aware polling loop), Start and Horizon. Segments
// get one table each, selected by the type's Segment field. Two files
// generated with different names can share a package.
func GoSource(w io.Writer, doc Document, opt Options) error {
	return renderGo(w, "go.tmpl", doc, opt)
}

// GoTest writes the _test.go file to go beside GoSource's output: a test
// that the generated type polls exactly at the times optimize computed
// (first gap included), stops after the horizon and restarts on Reset, and
// an Example with its // Output:.
func GoTest(w io.Writer, doc Document, opt Options) error {
	return renderGo(w, "go_test.tmpl", doc, opt)
}

func renderGo(w io.Writer, name string, doc Document, opt Options) error {
	d, err := NewData(doc, opt)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := builtin.ExecuteTemplate(&b, name, d); err != nil {
		return err
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		// A bug of ours: the names are sanitised, so the template is to blame.
		return fmt.Errorf("export: generated Go does not parse: %w", err)
	}
	_, err = w.Write(src)
	return err
}

// TypeScript writes doc as one dependency-free TypeScript module (ES2020,
// strict) exporting a class opt.Name with nextBackOff, reset, gapAfterMs
// and an async poll, times in milliseconds. It returns ErrSubMillisecond
// for a schedule with a time that is not a whole millisecond.
func TypeScript(w io.Writer, doc Document, opt Options) error {
	return renderMillis(w, "ts.tmpl", doc, opt)
}

// Kotlin writes doc as one Kotlin file (Kotlin 1.3 or later, JVM) with a
// class opt.Name holding the tables, nextBackOff, reset and gapAfterMs,
// times in milliseconds. It returns ErrSubMillisecond for a schedule with a
// time that is not a whole millisecond.
func Kotlin(w io.Writer, doc Document, opt Options) error {
	return renderMillis(w, "kotlin.tmpl", doc, opt)
}

// Swift writes doc as one Swift file (Swift 5) with a struct opt.Name
// holding the tables, nextBackOff, reset and gapAfterMs, times in
// milliseconds. It returns ErrSubMillisecond for a schedule with a time
// that is not a whole millisecond.
func Swift(w io.Writer, doc Document, opt Options) error {
	return renderMillis(w, "swift.tmpl", doc, opt)
}

func renderMillis(w io.Writer, name string, doc Document, opt Options) error {
	d, err := NewData(doc, opt)
	if err != nil {
		return err
	}
	if err := d.checkWholeMillis(); err != nil {
		return err
	}
	return builtin.ExecuteTemplate(w, name, d)
}

// Template renders doc through the Go text/template text, with Funcs
// available and a *Data as dot (docs/export.md lists both). Name and Package
// come from opt as for the other targets.
func Template(w io.Writer, text string, doc Document, opt Options) error {
	t, err := template.New("template").Funcs(Funcs).Parse(text)
	if err != nil {
		return err
	}
	d, err := NewData(doc, opt)
	if err != nil {
		return err
	}
	return t.Execute(w, d)
}

// Funcs are the functions that templates may call, beside text/template's
// own:
//
//	ms D          D in whole milliseconds (int64, truncated)
//	seconds D     D in seconds, as a float64
//	goDur D       D as a Go constant expression: 1500 * time.Millisecond
//	dur D         D as written in specs: 1.5s, 2m
//	float X       X as a floating-point literal with a dot or exponent: 2.0
//	goQuote S     S as a Go string literal
//	jsQuote S     S as a JSON/JavaScript/TypeScript string literal
//	ktQuote S     S as a Kotlin string literal ($ escaped)
//	swiftQuote S  S as a Swift string literal
//	comment S     S on one line, control characters replaced by spaces
//	wrap S        a spec split at its commas into lines of at most 72 bytes
//	title S       S with its first letter upper-cased
//	upper S       S in upper case
//	ident S       S as an exported ASCII identifier: mobile-money → MobileMoney
//	json V        V as compact JSON
//	args V...     V... as a slice, to pass several values to a template
//	add A B       A + B for ints
//	goDurs Ds N   the first N of Ds as goDur, comma-separated, six to a line
//	last Ds       the last of Ds
//	firstN Ds N   the first N of Ds
var Funcs = template.FuncMap{
	"ms":         func(d time.Duration) int64 { return int64(d / time.Millisecond) },
	"seconds":    func(d time.Duration) float64 { return d.Seconds() },
	"goDur":      goDur,
	"dur":        optimize.FormatDuration,
	"float":      floatLit,
	"goQuote":    strconv.Quote,
	"jsQuote":    jsQuote,
	"ktQuote":    ktQuote,
	"swiftQuote": swiftQuote,
	"comment":    comment,
	"wrap":       wrap,
	"title":      title,
	"upper":      strings.ToUpper,
	"ident":      func(s string) string { return identifier(s, "S") },
	"json":       jsonText,
	"args":       func(v ...any) []any { return v },
	"add":        func(a, b int) int { return a + b },
	"goDurs":     goDurs,
	"last":       func(ds []time.Duration) time.Duration { return ds[len(ds)-1] },
	"firstN": func(ds []time.Duration, n int) []time.Duration {
		return ds[:min(n, len(ds))]
	},
}

// goDurs writes the first n of ds as Go constant expressions, several to a
// line.
func goDurs(ds []time.Duration, n int) string {
	var b strings.Builder
	for i, d := range ds[:min(n, len(ds))] {
		if i%6 == 0 {
			b.WriteString("\n")
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(goDur(d) + ",")
	}
	b.WriteString("\n")
	return b.String()
}

// goDur writes d as a Go constant expression in its largest exact unit.
func goDur(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}} {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + " * time." + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10)
}

// floatLit writes x so that it reads back exactly and as a floating-point
// literal in Go, Kotlin, Swift and TypeScript alike.
func floatLit(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return s
}

func jsQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	// U+2028 and U+2029 end lines in older JavaScript parsers.
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.NewReplacer("\u2028", `\u2028`, "\u2029", `\u2029`).Replace(out)
}

func ktQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r > 0xffff || !unicode.IsPrint(r):
			for _, u := range utf16(r) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func utf16(r rune) []rune {
	if r < 0x10000 {
		return []rune{r}
	}
	r -= 0x10000
	return []rune{0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff}
}

func swiftQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// comment makes s safe inside a line comment of any target: no line break,
// no control character, and no "*/" to end a block comment.
func comment(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == unicode.ReplacementChar {
			return ' '
		}
		return r
	}, s)
	return strings.ReplaceAll(s, "*/", "* /")
}

// wrap splits a spec into lines of at most 72 bytes at its commas (an item
// longer than that keeps a line of its own).
func wrap(spec string) []string {
	var lines []string
	cur := ""
	for _, item := range strings.Split(comment(spec), ", ") {
		switch {
		case cur == "":
			cur = item
		case len(cur)+2+len(item) <= 72:
			cur += ", " + item
		default:
			lines = append(lines, cur+",")
			cur = item
		}
	}
	return append(lines, cur)
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
