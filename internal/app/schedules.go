package app

import (
	"fmt"
	"os"
	"strings"

	"github.com/pollfit/pollfit/optimize"
)

// LoadSchedules resolves one --schedule argument: a reference name of the
// brief ("before", "76cd188", "a74b69e", "now"), NAME=SPEC, a spec, or a
// file holding a spec or a schedule JSON document.
func LoadSchedules(arg string) ([]optimize.Schedule, error) {
	for _, r := range optimize.References {
		if arg == r.Name {
			return []optimize.Schedule{r}, nil
		}
	}
	name, spec := "", arg
	if n, s, ok := strings.Cut(arg, "="); ok && !strings.ContainsAny(n, ", ") {
		name, spec = n, s
	}
	if fi, err := os.Stat(spec); err == nil && !fi.IsDir() {
		return loadScheduleFile(spec, name)
	}
	s, err := optimize.ParseSpec(spec)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("--schedule: %w", err)}
	}
	if name == "" {
		name = referenceName(s)
	}
	s.Name = name
	return []optimize.Schedule{s}, nil
}

// referenceName names a spec after the brief's schedule it equals, or by
// "" when it is none of them.
func referenceName(s optimize.Schedule) string {
	for _, r := range optimize.References {
		if r.String() == s.String() {
			return r.Name
		}
	}
	return ""
}

func loadScheduleFile(path, name string) ([]optimize.Schedule, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := optimize.ParseSpec(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if name == "" {
		name = path
	}
	s.Name = name
	return []optimize.Schedule{s}, nil
}
