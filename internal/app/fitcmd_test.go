package app

import (
	"testing"

	"github.com/pollfit/pollfit/fit"
)

func TestCountAtoms(t *testing.T) {
	pt, sp := fit.Atom{T: 60, Mass: 0.1}, fit.Atom{T: 62, Mass: 0.06, Width: 1.5}
	for _, c := range []struct {
		atoms []fit.Atom
		want  string
	}{
		{nil, "no atoms"},
		{[]fit.Atom{pt}, "1 atom"},
		{[]fit.Atom{pt, pt, pt}, "3 atoms"},
		{[]fit.Atom{sp}, "1 spike"},
		{[]fit.Atom{pt, sp, sp}, "1 atom, 2 spikes"},
	} {
		if got := countAtoms(c.atoms); got != c.want {
			t.Errorf("countAtoms(%v) = %q, want %q", c.atoms, got, c.want)
		}
	}
}
