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
// gap), Poll (a context-aware polling loop, which reports each item's last
// pending and first settled ages to Observed), Start and Horizon. Segments
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
// strict, erasable syntax only, formatted as prettier formats it)
// exporting a class opt.Name with nextBackOff, reset, gapAfterMs, an async
// poll and an async iterator of the polls, public times in milliseconds
// (with a fraction for sub-millisecond schedules). Its tables are exact
// integers in Data.Unit; it returns ErrUnrepresentable for a schedule
// whose horizon is 2⁵³ units or more (only a schedule with nanosecond
// times and a horizon beyond 104 days).
func TypeScript(w io.Writer, doc Document, opt Options) error {
	d, err := NewData(doc, opt)
	if err != nil {
		return err
	}
	if err := d.checkExactIn53(); err != nil {
		return err
	}
	return builtin.ExecuteTemplate(w, "ts.tmpl", d)
}

// Kotlin writes doc as one Kotlin file (Kotlin 1.3 or later, JVM) with a
// class opt.Name holding the tables in nanoseconds (Long), with
// nextBackOffNanos and nextBackOff (milliseconds, rounded up), reset,
// gapAfter, a blocking poll and a suspending one.
func Kotlin(w io.Writer, doc Document, opt Options) error {
	return render(w, "kotlin.tmpl", doc, opt)
}

// Swift writes doc as one Swift file (Swift 5.5 or later) with a struct
// opt.Name holding the tables in nanoseconds (Int64), with
// nextBackOffNanos and nextBackOff (milliseconds, rounded up), reset,
// gapAfter and an async poll.
func Swift(w io.Writer, doc Document, opt Options) error {
	return render(w, "swift.tmpl", doc, opt)
}

func render(w io.Writer, name string, doc Document, opt Options) error {
	d, err := NewData(doc, opt)
	if err != nil {
		return err
	}
	return builtin.ExecuteTemplate(w, name, d)
}

// Template renders doc through the Go text/template text, with Funcs
// available and a *Data as dot (docs/export.md lists both). Name and Package
// come from opt as for the other targets.
func Template(w io.Writer, text string, doc Document, opt Options) error {
	return NamedTemplate(w, "template", text, doc, opt)
}

// NamedTemplate is Template for a template named name, usually its file:
// errors then say where, "template: poll.tmpl:1:2: …".
func NamedTemplate(w io.Writer, name, text string, doc Document, opt Options) error {
	t, err := template.New(name).Funcs(Funcs).Parse(text)
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
//	ms D          D in milliseconds as an exact decimal: 1500, 0.15
//	ns D          D in nanoseconds (int64)
//	in D U        D in whole units of U (int64); an error if U does not divide D
//	unitName U    "milliseconds", "microseconds", "nanoseconds" (1ms, 1µs, 1ns)
//	seconds D     D in seconds, as a float64
//	goDur D       D as a Go constant expression: 1500 * time.Millisecond
//	dur D         D as written in specs: 1.5s, 2m
//	float X       X as a floating-point literal with a dot or exponent: 2.0
//	tsNum X       X as a JavaScript number literal as prettier writes it: 1e21
//	goQuote S     S as a Go string literal
//	jsQuote S     S as a JSON (and JavaScript) string literal
//	tsQuote S     S as a TypeScript string literal, quoted as prettier quotes it
//	ktQuote S     S as a Kotlin string literal ($ escaped)
//	swiftQuote S  S as a Swift string literal
//	comment S     S safe in a line or (nested) block comment of every target:
//	              one line, no control or format character, no "/*" or "*/"
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
//	pollsAt S C   the poll ages of schedule S (a Table's Schedule) for an
//	              item created at C, an RFC 3339 instant (its wall-clock
//	              phases depend on it): optimize.Schedule.PollsAt
//	unixNano C    the RFC 3339 instant C in nanoseconds since the Unix epoch
//	clockTime C D the instant C plus D, UTC, as 15:04:05.999
var Funcs = template.FuncMap{
	"ms":         func(d time.Duration) string { return string(msNumber(d)) },
	"ns":         func(d time.Duration) int64 { return int64(d) },
	"in":         inUnits,
	"unitName":   unitName,
	"seconds":    func(d time.Duration) float64 { return float64(d) / 1e9 }, // not d.Seconds(): 10.851 s, not 10.850999999999999
	"goDur":      goDur,
	"dur":        optimize.FormatDuration,
	"float":      floatLit,
	"tsNum":      tsNum,
	"tsTables":   tsTables,
	"tsArray":    tsArray,
	"goQuote":    strconv.Quote,
	"jsQuote":    jsQuote,
	"tsQuote":    tsQuote,
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
	"pollsAt": func(s optimize.Schedule, created string) ([]time.Duration, error) {
		c, err := time.Parse(time.RFC3339Nano, created)
		if err != nil {
			return nil, err
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		return s.PollsAt(c.UnixNano()), nil
	},
	"unixNano": func(created string) (int64, error) {
		c, err := time.Parse(time.RFC3339Nano, created)
		return c.UnixNano(), err
	},
	"clockTime": func(created string, d time.Duration) (string, error) {
		c, err := time.Parse(time.RFC3339Nano, created)
		return c.Add(d).UTC().Format("15:04:05.999"), err
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

// inUnits returns d in whole units of u.
func inUnits(d, u time.Duration) (int64, error) {
	if u <= 0 || d%u != 0 {
		return 0, fmt.Errorf("%v is not a whole number of %v", d, u)
	}
	return int64(d / u), nil
}

func unitName(u time.Duration) (string, error) {
	switch u {
	case time.Millisecond:
		return "milliseconds", nil
	case time.Microsecond:
		return "microseconds", nil
	case time.Nanosecond:
		return "nanoseconds", nil
	}
	return "", fmt.Errorf("unit %v is not 1ms, 1µs or 1ns", u)
}

// escapeRune reports whether r must be escaped in a string literal of
// any target: controls, line and paragraph separators, format characters
// (the bidirectional overrides of "Trojan Source", CVE-2021-42574) and
// anything else unicode.IsPrint rejects.
func escapeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r)
}

// jsQuote writes s as a JSON string literal, which JavaScript reads alike:
// quotes, backslashes and every rune escapeRune names escaped as \uXXXX.
func jsQuote(s string) string {
	return quoteC(s, '"', func(b *strings.Builder, r rune) {
		for _, u := range utf16(r) {
			fmt.Fprintf(b, `\u%04x`, u)
		}
	})
}

// tsQuote writes s as a TypeScript string literal in the quotes prettier
// would choose (double, unless the string holds more double quotes than
// single ones), so that the output is prettier-formatted.
func tsQuote(s string) string {
	q := '"'
	if strings.Count(s, `"`) > strings.Count(s, "'") {
		q = '\''
	}
	return quoteC(s, q, func(b *strings.Builder, r rune) {
		if r > 0xffff {
			fmt.Fprintf(b, `\u{%x}`, r)
			return
		}
		fmt.Fprintf(b, `\u%04x`, r)
	})
}

// quoteC writes s between quotes q, escaping q and backslash with a
// backslash and the runes escapeRune names with esc.
func quoteC(s string, q rune, esc func(*strings.Builder, rune)) string {
	var b strings.Builder
	b.WriteRune(q)
	for _, r := range s {
		switch {
		case r == q || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case escapeRune(r):
			esc(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteRune(q)
	return b.String()
}

// ktQuote writes s as a Kotlin string literal: $ escaped too, so that no
// string template runs, and escapes as UTF-16 \uXXXX.
func ktQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r > 0xffff || escapeRune(r):
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

// swiftQuote writes s as a Swift string literal; escaping the backslash
// leaves no \( interpolation.
func swiftQuote(s string) string {
	return quoteC(s, '"', func(b *strings.Builder, r rune) { fmt.Fprintf(b, `\u{%x}`, r) })
}

// comment makes s safe in a line comment and a block comment of every
// target, Kotlin's and Swift's nesting ones included: no line break, no
// control or format character (each becomes a space), and a space between
// every '/' and '*' that meet, so that no "/*" opens and no "*/" closes a
// comment.
func comment(s string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		if escapeRune(r) || r == unicode.ReplacementChar {
			r = ' '
		}
		if prev == '/' && r == '*' || prev == '*' && r == '/' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
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

// tsTables writes the TypeScript array of d's tables as prettier prints
// it: on one line when it fits in 80 columns, else one table a line.
func tsTables(d *Data) string {
	names := []string{"tableAll"}
	for _, t := range d.Segments {
		names = append(names, "table"+t.Ident)
	}
	line := "const tables: readonly Table[] = [" + strings.Join(names, ", ") + "];"
	if len(line) <= 80 {
		return line
	}
	return "const tables: readonly Table[] = [\n  " + strings.Join(names, ",\n  ") + ",\n];"
}

// tsArray writes the line "key: [d₁, d₂, …]," of an object member at
// the given indent, times in whole units of u, as prettier prints an array
// of numbers: on one line when it fits in 80 columns, else one element a
// line filled with as many to a line as fit, each line ending in a comma.
func tsArray(indent int, key string, ds []time.Duration, u time.Duration) (string, error) {
	nums := make([]string, len(ds))
	for i, d := range ds {
		n, err := inUnits(d, u)
		if err != nil {
			return "", err
		}
		nums[i] = strconv.FormatInt(n, 10)
	}
	pad := strings.Repeat(" ", indent)
	line := pad + key + ": [" + strings.Join(nums, ", ") + "],"
	if len(line) <= 80 {
		return line, nil
	}
	var b strings.Builder
	b.WriteString(pad + key + ": [\n")
	cur := ""
	for _, n := range nums {
		switch {
		case cur == "":
			cur = pad + "  " + n + ","
		case len(cur)+1+len(n)+1 <= 80:
			cur += " " + n + ","
		default:
			b.WriteString(cur + "\n")
			cur = pad + "  " + n + ","
		}
	}
	b.WriteString(cur + "\n" + pad + "],")
	return b.String(), nil
}

// tsNum writes x as the shortest JavaScript number literal that reads back
// exactly, as prettier prints it (no "+" or leading zeros in the exponent).
func tsNum(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if m, e, ok := strings.Cut(s, "e"); ok {
		neg := strings.HasPrefix(e, "-")
		e = strings.TrimLeft(e, "+-0")
		if neg {
			e = "-" + e
		}
		s = m + "e" + e
	}
	return s
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
