//go:build !unix

package fit

import "time"

// cpuTime is 0 where getrusage is not available: the benchmarks then
// report no CPU time.
func cpuTime() time.Duration { return 0 }
