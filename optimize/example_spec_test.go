package optimize_test

import (
	"fmt"

	"github.com/pollfit/pollfit/optimize"
)

// A phase whose first gap passes its bound polls once, after the bound;
// the printer writes it as the single gap it runs as.
func ExampleSchedule_Normalize() {
	s := optimize.MustParseSpec("at 30s, every 1m until 45s, every 2m until 10m")
	fmt.Println(s.Polls())
	fmt.Println(s.AsWritten())
	fmt.Println(s) // s.Normalize().String()
	// Output:
	// [30s 1m30s 3m30s 5m30s 7m30s 9m30s]
	// at 30s, every 1m until 45s, every 2m until 10m
	// at 30s, 1m, every 2m until 10m
}

// The gap that would pass the horizon is not made: the items settling
// after the last poll are never seen.
func ExampleSchedule_Shortfall() {
	s := optimize.MustParseSpec("exp 1m x2 until 10m")
	// Seconds; 450 and 500 of the six settle in (7m, 10m].
	items := optimize.NewItems([]float64{30, 200, 400, 450, 500, 700}, nil, nil)
	f := s.Shortfall(items)
	fmt.Println(s.Polls())
	fmt.Println(f.WellShort(), f)
	// Output:
	// [0s 1m0s 3m0s 7m0s]
	// true last poll at 7m, 3m before its 10m horizon; 33.3% of items settle in between and are never seen
}
