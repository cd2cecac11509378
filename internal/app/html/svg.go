package html

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// svgTolerance is how far, in points (the SVG's user units), a simplified
// polyline may stray from the one drawn: a fifth of a point, invisible at
// any zoom a report is read at, so that a density drawn on 2048 grid points
// or a Kaplan–Meier curve of thousands of steps keeps the few hundred
// vertices a reader can see.
const svgTolerance = 0.2

var (
	// gonum's SVG canvas writes the whole font on every text element; the
	// page's style sheet gives it once.
	svgFont = []byte("font-family:Liberation Serif;font-variant:normal;font-weight:normal;font-style:normal;")
	svgPath = regexp.MustCompile(`<path d="([^"]*)"`)
)

// CompactSVG returns an SVG document written by gonum/plot (vgsvg) ready
// to be put inline in a page and smaller: the XML prolog and comments
// before <svg> are dropped, the font of every text element is left to the
// style sheet (svg text: Liberation Serif, metric-compatible with Times), and
// polylines (paths of M, L and Z commands only) are simplified by the
// Ramer–Douglas–Peucker algorithm (Ramer 1972; Douglas & Peucker 1973) to
// within svgTolerance points, their coordinates rounded to 0.01 point.
// Other paths (glyphs drawn with arcs) are kept as they are.
func CompactSVG(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		svg = svg[i:]
	}
	svg = bytes.ReplaceAll(svg, svgFont, nil)
	svg = svgCircle.ReplaceAllFunc(svg, circle)
	svg = svgPath.ReplaceAllFunc(svg, func(m []byte) []byte {
		d := m[len(`<path d="`) : len(m)-1]
		s, ok := simplifyPath(string(d))
		if !ok {
			return m
		}
		return []byte(`<path d="` + s + `"`)
	})
	return dropRepeats(svg)
}

// svgCircle matches a circle as vgsvg draws it: two half-circle arcs
// from (x+r, y), with the style that follows.
var svgCircle = regexp.MustCompile(`<path d="M([-0-9.e]+),([-0-9.e]+)A([0-9.e]+),([0-9.e]+) 0 1 1 ([-0-9.e]+),([-0-9.e]+)A[0-9.e]+,[0-9.e]+ 0 1 1 [-0-9.e]+,[-0-9.e]+Z"`)

// circle rewrites a circle drawn as two arcs as a <circle> element with
// the same attributes after it.
func circle(m []byte) []byte {
	g := svgCircle.FindSubmatch(m)
	x1, err1 := strconv.ParseFloat(string(g[1]), 64)
	y, err2 := strconv.ParseFloat(string(g[2]), 64)
	r, err3 := strconv.ParseFloat(string(g[3]), 64)
	x2, err4 := strconv.ParseFloat(string(g[5]), 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || string(g[3]) != string(g[4]) || string(g[2]) != string(g[6]) {
		return m
	}
	return []byte(`<circle cx="` + num((x1+x2)/2) + `" cy="` + num(y) + `" r="` + num(r) + `"`)
}

// dropRepeats removes lines that repeat an earlier line of the document
// exactly when they draw (a path or a circle): drawn twice, an opaque
// shape looks the same, and gonum draws a glyph per point, so that points
// that coincide repeat.
func dropRepeats(svg []byte) []byte {
	seen := map[string]bool{}
	var out bytes.Buffer
	for line := range bytes.Lines(svg) {
		if bytes.HasPrefix(line, []byte("<path ")) || bytes.HasPrefix(line, []byte("<circle ")) {
			if seen[string(line)] {
				continue
			}
			seen[string(line)] = true
		}
		out.Write(line)
	}
	return out.Bytes()
}

type point struct{ x, y float64 }

// simplifyPath simplifies path data made of M, L and Z commands with
// absolute coordinates "x,y"; it reports false for any other path.
func simplifyPath(d string) (string, bool) {
	var out strings.Builder
	var sub []point
	flush := func() {
		for i, p := range rdp(sub, svgTolerance) {
			if i == 0 {
				out.WriteByte('M')
			} else {
				out.WriteByte('L')
			}
			out.WriteString(num(p.x))
			out.WriteByte(',')
			out.WriteString(num(p.y))
		}
		sub = sub[:0]
	}
	i := 0
	for i < len(d) {
		c := d[i]
		switch c {
		case 'M', 'L':
			if c == 'M' && len(sub) > 0 {
				flush()
			}
			j := i + 1
			for j < len(d) && strings.IndexByte("MLZ", d[j]) < 0 {
				j++
			}
			xs, ys, ok := strings.Cut(d[i+1:j], ",")
			if !ok {
				return "", false
			}
			x, err1 := strconv.ParseFloat(strings.TrimSpace(xs), 64)
			y, err2 := strconv.ParseFloat(strings.TrimSpace(ys), 64)
			if err1 != nil || err2 != nil {
				return "", false
			}
			sub = append(sub, point{x, y})
			i = j
		case 'Z':
			flush()
			out.WriteByte('Z')
			i++
		case ' ', '\n', '\t':
			i++
		default:
			return "", false
		}
	}
	flush()
	return out.String(), true
}

// num writes a coordinate rounded to 0.01.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// rdp returns the points of the polyline p that keep it within tol of the
// original (Ramer–Douglas–Peucker): the ends, and recursively the point
// farthest from the chord between two kept points while it is farther
// than tol. It works with an explicit stack, as polylines run to thousands
// of points.
func rdp(p []point, tol float64) []point {
	if len(p) <= 2 {
		return p
	}
	keep := make([]bool, len(p))
	keep[0], keep[len(p)-1] = true, true
	type span struct{ a, b int }
	stack := []span{{0, len(p) - 1}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		far, at := -1.0, -1
		for i := s.a + 1; i < s.b; i++ {
			if d := segDist(p[i], p[s.a], p[s.b]); d > far {
				far, at = d, i
			}
		}
		if at >= 0 && far > tol {
			keep[at] = true
			stack = append(stack, span{s.a, at}, span{at, s.b})
		}
	}
	out := make([]point, 0, len(p))
	for i, k := range keep {
		if k {
			out = append(out, p[i])
		}
	}
	return out
}

// segDist is the distance from q to the segment a–b.
func segDist(q, a, b point) float64 {
	dx, dy := b.x-a.x, b.y-a.y
	l2 := dx*dx + dy*dy
	if l2 == 0 {
		return math.Hypot(q.x-a.x, q.y-a.y)
	}
	t := math.Max(0, math.Min(1, ((q.x-a.x)*dx+(q.y-a.y)*dy)/l2))
	return math.Hypot(q.x-a.x-t*dx, q.y-a.y-t*dy)
}
