package ingest

import (
	"fmt"
	"time"
)

// negativeError is the ErrNegative error for a cell, quoting its value as
// the input has it.
func negativeError(c *cell) error {
	switch c.kind {
	case cellText:
		return fmt.Errorf("%w: %s", ErrNegative, quote(trimSpace(c.b)))
	case cellNum:
		return fmt.Errorf("%w: %v", ErrNegative, c.f)
	case cellInt:
		return fmt.Errorf("%w: %d", ErrNegative, c.ns)
	}
	return fmt.Errorf("%w: %s", ErrNegative, time.Duration(c.ns))
}

// negatives counts negative durations and keeps the most negative.
type negatives struct {
	n      int
	lowest float64
}

// note counts v.
func (c *negatives) note(v float64) {
	if c.n == 0 || v < c.lowest {
		c.lowest = v
	}
	c.n++
}

// add counts o's too.
func (c *negatives) add(o negatives) {
	if o.n == 0 {
		return
	}
	if c.n == 0 || o.lowest < c.lowest {
		c.lowest = o.lowest
	}
	c.n += o.n
}
