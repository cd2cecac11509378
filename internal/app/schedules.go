package app

import (
	"strings"

	"github.com/pollfit/pollfit/optimize"
)

// LoadSchedules resolves one --schedule argument of evaluate: a reference
// name of the brief ("before", "76cd188", "a74b69e", "now"), NAME=SPEC, a
// spec, or a file holding a spec or a schedule JSON document (whose
// segments' schedules come after the overall one, named by segment).
func LoadSchedules(arg string) ([]optimize.Schedule, error) {
	name, spec := "", arg
	if n, s, ok := strings.Cut(arg, "="); ok && n != "" && !strings.ContainsAny(n, ", ") {
		name, spec = n, s
	}
	doc, err := loadDocument(spec)
	if err != nil {
		return nil, err
	}
	s := doc.Schedule
	switch {
	case name != "":
		s.Name = name
	case s.Name == "":
		s.Name = referenceName(s)
	}
	out := []optimize.Schedule{s}
	for _, seg := range doc.Segments {
		ss := seg.Schedule
		ss.Name = s.Name + "/" + seg.Name
		if s.Name == "" {
			ss.Name = seg.Name
		}
		out = append(out, ss)
	}
	return out, nil
}

// referenceName names a spec after the brief's schedule it equals, or ""
// when it is none of them.
func referenceName(s optimize.Schedule) string {
	for _, r := range optimize.References {
		if r.String() == s.String() {
			return r.Name
		}
	}
	return ""
}
