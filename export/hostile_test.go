package export

import (
	"bytes"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	u16 "unicode/utf16"
	"unicode/utf8"

	"github.com/pollfit/pollfit/optimize"
)

// hostileNames are segment names that reach generated source from data
// (plan --segment col -o → JSON → export) and try to leave the string
// literal or comment they land in (a Kotlin block comment, which
// nests, let the first one run its class when the file was loaded).
func hostileNames() []string {
	names := []string{
		`/* */ */ */ class Evil { init { println("PWNED") } } /*`,
		`*/ export const pwned = 1; /*`,
		`*/ func init() { panic("PWNED") } /*`,
		`quote " ${x} $y \ ` + "\u2028 \u2029" + ` end`,
		"line\nbreak // comment\r\n",
		"\u202eevil\u202c bidi \u2066isolate\u2069 \u200b",
		`"); System.exit(1); ("`,
		`\(interpolation) \u{41}`,
		"`${1 + 1}` backtick",
		`"""raw""" #"swift raw"#`,
		`'single' "double" "more"`,
		"nul\x00byte \x7f del",
		"a-b", "a_b", "func", "fun", "1st", "日本", "constructor", "__proto__", "all!", "😀 emoji",
		`\`, `$`, `${`, `/*`, `*/`, `//`, `*//*`, `/*/`,
	}
	rng := rand.New(rand.NewPCG(16, 3))
	for range 8 {
		names = append(names, hostileName(rng))
	}
	return names
}

// hostileFragments are pieces that mean something to one of the targets'
// lexers: quotes, escapes, comment delimiters, string templates and
// interpolations, line and format characters.
var hostileFragments = []string{
	`"`, `'`, "`", `\`, `\\`, `\"`, `\u0041`, `\u{41}`, `\(`, `$`, `${`, `}`, `$x`,
	`/*`, `*/`, `//`, `*`, `/`, `#`, `"""`, `#"`, "\n", "\r", "\t", "\x00", "\u2028", "\u2029",
	"\u202e", "\u200f", "\ufeff", "é", "日", "😀", " ", "class X {}", "PWNED", "all", ";", "\x7f",
}

// hostileName draws a name of one to eight hostile fragments.
func hostileName(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(8) {
		b.WriteString(hostileFragments[rng.IntN(len(hostileFragments))])
	}
	return b.String()
}

// tok is a token of generated source: code, a string literal (text is
// its decoded value) or a comment.
type tok struct {
	kind byte // 'c' code, 's' string, 'm' comment
	text string
}

// lexRules describe what a target's lexer must know to tell code from
// string literals and comments in the generated source.
type lexRules struct {
	nested bool // block comments nest (Kotlin, Swift)
	quotes string
	// unescape decodes the escape at s[0] == '\\' and returns the runes
	// (or UTF-16 units, with utf16 set) it stands for and its length, or
	// an error for an escape the language does not have or that is not
	// a plain character (Swift's \( interpolation).
	unescape func(s string) (units []rune, n int, err error)
	// dollar rejects an unescaped $ in a string (Kotlin templates).
	dollar bool
	utf16  bool // \u escapes are UTF-16 code units
}

var (
	tsRules = lexRules{quotes: `"'`, unescape: unescapeJS, utf16: true}
	ktRules = lexRules{nested: true, quotes: `"'`, unescape: unescapeKotlin, dollar: true, utf16: true}
	swRules = lexRules{nested: true, quotes: `"`, unescape: unescapeSwift}
)

// lex splits src into code, string literals and comments by rules.
// Template literals, raw and multi-line strings are never generated: it
// reports them as errors, as it does unterminated literals and comments.
func lex(src string, rules lexRules) ([]tok, error) {
	var toks []tok
	code := 0 // start of the current code run
	flush := func(i int) {
		if i > code {
			toks = append(toks, tok{'c', src[code:i]})
		}
	}
	for i := 0; i < len(src); {
		switch {
		case strings.HasPrefix(src[i:], "//"):
			flush(i)
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			toks = append(toks, tok{'m', src[i : i+j]})
			i += j
			code = i
		case strings.HasPrefix(src[i:], "/*"):
			flush(i)
			depth, j := 1, i+2
			for depth > 0 {
				switch {
				case j >= len(src):
					return nil, fmt.Errorf("unterminated comment at byte %d", i)
				case strings.HasPrefix(src[j:], "*/"):
					depth--
					j += 2
				case rules.nested && strings.HasPrefix(src[j:], "/*"):
					depth++
					j += 2
				default:
					j++
				}
			}
			toks = append(toks, tok{'m', src[i:j]})
			i = j
			code = i
		case src[i] == '`' || strings.HasPrefix(src[i:], `"""`) || strings.HasPrefix(src[i:], `#"`):
			return nil, fmt.Errorf("template, multi-line or raw string literal at byte %d", i)
		case strings.IndexByte(rules.quotes, src[i]) >= 0:
			flush(i)
			q := src[i]
			var units []rune
			j := i + 1
			for {
				if j >= len(src) || src[j] == '\n' || src[j] == '\r' {
					return nil, fmt.Errorf("unterminated string at byte %d", i)
				}
				c := src[j]
				if c == q {
					j++
					break
				}
				switch {
				case c == '\\':
					u, n, err := rules.unescape(src[j:])
					if err != nil {
						return nil, fmt.Errorf("string at byte %d: %w", i, err)
					}
					units = append(units, u...)
					j += n
				case c == '$' && rules.dollar:
					return nil, fmt.Errorf("string at byte %d: unescaped $ starts a template", i)
				default:
					r, n := utf8.DecodeRuneInString(src[j:])
					if r == utf8.RuneError && n == 1 {
						return nil, fmt.Errorf("string at byte %d: invalid UTF-8", i)
					}
					if rules.utf16 {
						units = append(units, units16(r)...)
					} else {
						units = append(units, r)
					}
					j += n
				}
			}
			text := string(units)
			if rules.utf16 {
				w := make([]uint16, len(units))
				for k, u := range units {
					w[k] = uint16(u)
				}
				text = string(u16.Decode(w))
			}
			toks = append(toks, tok{'s', text})
			i = j
			code = i
		default:
			i++
		}
	}
	flush(len(src))
	return toks, nil
}

// units16 returns r as UTF-16 code units.
func units16(r rune) []rune {
	var out []rune
	for _, u := range u16.Encode([]rune{r}) {
		out = append(out, rune(u))
	}
	return out
}

func hexRune(s string) (rune, error) {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || v > utf8.MaxRune {
		return 0, fmt.Errorf("bad escape \\u%s", s)
	}
	return rune(v), nil
}

// unescapeJS decodes a JavaScript escape (ECMA-262, 12.9.4).
func unescapeJS(s string) ([]rune, int, error) {
	if len(s) < 2 {
		return nil, 0, errors.New("lone backslash")
	}
	switch c := s[1]; c {
	case 'n':
		return []rune{'\n'}, 2, nil
	case 'r':
		return []rune{'\r'}, 2, nil
	case 't':
		return []rune{'\t'}, 2, nil
	case 'b':
		return []rune{'\b'}, 2, nil
	case 'f':
		return []rune{'\f'}, 2, nil
	case 'v':
		return []rune{'\v'}, 2, nil
	case '0':
		return []rune{0}, 2, nil
	case 'u':
		if strings.HasPrefix(s, `\u{`) {
			end := strings.IndexByte(s, '}')
			if end < 0 {
				return nil, 0, errors.New("unterminated \\u{")
			}
			r, err := hexRune(s[3:end])
			return units16(r), end + 1, err
		}
		if len(s) < 6 {
			return nil, 0, errors.New("short \\u escape")
		}
		r, err := hexRune(s[2:6])
		return []rune{r}, 6, err
	case '\n', '\r':
		return nil, 0, errors.New("line continuation")
	default:
		r, n := utf8.DecodeRuneInString(s[1:])
		return units16(r), 1 + n, nil
	}
}

// unescapeKotlin decodes a Kotlin escape: \t \b \n \r \' \" \\ \$ \uXXXX.
func unescapeKotlin(s string) ([]rune, int, error) {
	if len(s) < 2 {
		return nil, 0, errors.New("lone backslash")
	}
	switch c := s[1]; c {
	case 't':
		return []rune{'\t'}, 2, nil
	case 'b':
		return []rune{'\b'}, 2, nil
	case 'n':
		return []rune{'\n'}, 2, nil
	case 'r':
		return []rune{'\r'}, 2, nil
	case '\'', '"', '\\', '$':
		return []rune{rune(c)}, 2, nil
	case 'u':
		if len(s) < 6 {
			return nil, 0, errors.New("short \\u escape")
		}
		r, err := hexRune(s[2:6])
		return []rune{r}, 6, err
	}
	return nil, 0, fmt.Errorf("no escape \\%c in Kotlin", s[1])
}

// unescapeSwift decodes a Swift escape: \0 \\ \t \n \r \" \' \u{1–8 hex};
// \( starts an interpolation, an error here.
func unescapeSwift(s string) ([]rune, int, error) {
	if len(s) < 2 {
		return nil, 0, errors.New("lone backslash")
	}
	switch c := s[1]; c {
	case '0':
		return []rune{0}, 2, nil
	case 't':
		return []rune{'\t'}, 2, nil
	case 'n':
		return []rune{'\n'}, 2, nil
	case 'r':
		return []rune{'\r'}, 2, nil
	case '\'', '"', '\\':
		return []rune{rune(c)}, 2, nil
	case 'u':
		end := strings.IndexByte(s, '}')
		if !strings.HasPrefix(s, `\u{`) || end < 4 || end > 11 {
			return nil, 0, errors.New("bad \\u{} escape")
		}
		r, err := hexRune(s[3:end])
		if r >= 0xd800 && r < 0xe000 {
			err = errors.New("surrogate in \\u{}")
		}
		return []rune{r}, end + 1, err
	case '(':
		return nil, 0, errors.New("interpolation \\(")
	}
	return nil, 0, fmt.Errorf("no escape \\%c in Swift", s[1])
}

// lexGo splits Go source with go/scanner, the compiler's own.
func lexGo(src string) ([]tok, error) {
	var s scanner.Scanner
	fset := token.NewFileSet()
	var errs []string
	s.Init(fset.AddFile("gen.go", -1, len(src)), []byte(src), func(_ token.Position, msg string) { errs = append(errs, msg) }, scanner.ScanComments)
	var toks []tok
	for {
		_, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		switch t {
		case token.COMMENT:
			toks = append(toks, tok{'m', lit})
		case token.STRING, token.CHAR:
			v, err := strconv.Unquote(lit)
			if err != nil && t == token.STRING {
				return nil, err
			}
			toks = append(toks, tok{'s', v})
		default:
			toks = append(toks, tok{'c', t.String() + " " + lit})
		}
	}
	if errs != nil {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return toks, nil
}

// skeleton is the code of toks with every string literal and comment
// replaced by a marker.
func skeleton(toks []tok) string {
	var b strings.Builder
	for _, t := range toks {
		switch t.kind {
		case 'c':
			b.WriteString(t.text)
		case 's':
			b.WriteString("\x00S")
		default:
			b.WriteString("\x00C")
		}
	}
	return b.String()
}

// hostileTargets are the code targets with their lexers.
var hostileTargets = []struct {
	name   string
	render func(*bytes.Buffer, Document, Options) error
	lex    func(string) ([]tok, error)
	benign func(Options) Options // the benign options: the sanitised ones
}{
	{"go", func(b *bytes.Buffer, d Document, o Options) error { return GoSource(b, d, o) }, lexGo,
		func(o Options) Options { return Options{Package: goPackage(o.Package), Name: typeName(o.Name)} }},
	{"go test", func(b *bytes.Buffer, d Document, o Options) error { return GoTest(b, d, o) }, lexGo,
		func(o Options) Options { return Options{Package: goPackage(o.Package), Name: typeName(o.Name)} }},
	{"typescript", func(b *bytes.Buffer, d Document, o Options) error { return TypeScript(b, d, o) },
		func(s string) ([]tok, error) { return lex(s, tsRules) },
		func(o Options) Options { return Options{Name: typeName(o.Name)} }},
	{"kotlin", func(b *bytes.Buffer, d Document, o Options) error { return Kotlin(b, d, o) },
		func(s string) ([]tok, error) { return lex(s, ktRules) },
		func(o Options) Options { return Options{Package: kotlinPackage(o.Package), Name: typeName(o.Name)} }},
	{"swift", func(b *bytes.Buffer, d Document, o Options) error { return Swift(b, d, o) },
		func(s string) ([]tok, error) { return lex(s, swRules) },
		func(o Options) Options { return Options{Name: typeName(o.Name)} }},
}

// checkHostile renders a document whose segment names, schedule name, type
// name and package are the given hostile strings in every target, and
// checks that each output lexes, that its code outside string literals and
// comments is exactly that of the same document with benign names (the
// sanitised identifiers), and that every segment name comes back whole
// from a string literal. The segments' schedules are segSpec.
func checkHostile(t *testing.T, segments []string, schedName, typ, pkg, segSpec string) {
	t.Helper()
	s := optimize.MustParseSpec("every 1s until 5s")
	s.Name = schedName
	doc := Document{Schedule: s}
	seen := map[string]bool{}
	for _, name := range segments {
		if checkSegmentName(name) != nil || seen[name] {
			continue
		}
		seen[name] = true
		doc.Segments = append(doc.Segments, Segment{Name: name, Schedule: optimize.MustParseSpec(segSpec)})
	}
	if !utf8.ValidString(schedName) {
		doc.Schedule.Name = ""
	}
	opt := Options{Name: typ, Package: pkg}
	d, err := NewData(doc, opt)
	if err != nil {
		t.Fatalf("NewData: %v", err)
	}
	benign := doc
	benign.Schedule.Name = "x"
	benign.Segments = nil
	for i, seg := range doc.Segments {
		benign.Segments = append(benign.Segments, Segment{Name: d.Segments[i].Ident, Schedule: seg.Schedule})
	}
	for _, tg := range hostileTargets {
		var h, b bytes.Buffer
		if err := tg.render(&h, doc, opt); err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		if err := tg.render(&b, benign, tg.benign(opt)); err != nil {
			t.Fatalf("%s, benign: %v", tg.name, err)
		}
		ht, err := tg.lex(h.String())
		if err != nil {
			t.Fatalf("%s output does not lex: %v\nsegments %q", tg.name, err, segments)
		}
		bt, err := tg.lex(b.String())
		if err != nil {
			t.Fatalf("%s benign output does not lex: %v", tg.name, err)
		}
		if hs, bs := skeleton(ht), skeleton(bt); hs != bs {
			i := 0
			for i < min(len(hs), len(bs)) && hs[i] == bs[i] {
				i++
			}
			t.Fatalf("%s: the names changed the code outside strings and comments, at %q (benign %q)\nsegments %q",
				tg.name, hs[max(0, i-40):min(len(hs), i+80)], bs[max(0, i-40):min(len(bs), i+80)], segments)
		}
		var strs []string
		for _, x := range ht {
			if x.kind == 's' {
				strs = append(strs, x.text)
			}
		}
		for _, seg := range doc.Segments {
			if !slices.Contains(strs, seg.Name) {
				t.Fatalf("%s: no string literal holds the segment name %q", tg.name, seg.Name)
			}
		}
	}
}

// hostileSpecs are the segments' schedules of the hostile-name checks:
// plain, and with a wall-clock phase, whose code has tables
// and functions of its own.
var hostileSpecs = []string{"every 2s until 10s", "every 2s until 10s, after each 1m (+1s +2.5s) until 10m"}

// TestHostileNames renders the hostile names and 300 more drawn from
// hostile fragments: each target's output must keep them inside string
// literals and comments. TestGoSourceRuns, TestTypeScriptRuns
// and TestKotlinRuns compile and run the hostile names of hostileNames.
func TestHostileNames(t *testing.T) {
	for _, spec := range hostileSpecs {
		checkHostile(t, hostileNames(), "*/ name /* \n", "*/ Type", "*/ pkg.fun.1x", spec)
	}
	rng := rand.New(rand.NewPCG(16, 4))
	for i := range 100 {
		names := []string{hostileName(rng), hostileName(rng), hostileName(rng)}
		checkHostile(t, names, hostileName(rng), hostileName(rng), hostileName(rng), hostileSpecs[i%2])
	}
}

// FuzzHostileNames is TestHostileNames for names from the fuzzer.
func FuzzHostileNames(f *testing.F) {
	names := hostileNames()
	for i := 0; i+1 < len(names); i += 2 {
		f.Add(names[i], names[i+1], names[(i+2)%len(names)], names[(i+3)%len(names)])
	}
	f.Fuzz(func(t *testing.T, a, b, name, typ string) {
		checkHostile(t, []string{a, b}, name, typ, typ, hostileSpecs[len(a)%2])
	})
}

// TestCommentNeutral checks comment on the cases that matter: no "/*" or
// "*/" survives, overlapping ones included, and no line or format
// character.
func TestCommentNeutral(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a */ b", "a * / b"},
		{"/* */ */", "/ * * / * /"},
		{"*//*", "* // *"},
		{"/*/", "/ * /"},
		{"x\ny\u2028z\u202e!", "x y z !"},
		{"日本 😀", "日本 😀"},
	}
	for _, tc := range tests {
		if got := comment(tc.in); got != tc.want {
			t.Errorf("comment(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
