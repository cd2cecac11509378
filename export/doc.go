// Package export turns an optimize.Schedule into code and configuration
// that engineers can drop into another service: a versioned JSON document,
// dependency-free Go source, TypeScript, Kotlin and Swift, or any text made
// by a user's text/template.
//
// Every target carries the schedule as a table of phases, never as a list
// of gaps indexed by an attempt counter, and every generated runner
// computes its gaps from the same definition as optimize.Schedule.Polls:
// the first poll is at Start and counts, the k-th gap of a phase is
// Phase.GapAt(k) with k = 1 for the phase's first gap, a repeating phase
// adds gaps while the last poll is before its Until, and no poll is made
// after the horizon. The brief's bug (an attempt counter incremented before
// the table look-up, so that the first gap never ran) has no counter to
// live in: the tests run the generated Go, TypeScript and Kotlin and
// compare their poll times with Polls, first gap included. Growing gaps
// are capped before any product can overflow, jitter never takes a gap
// above its phase's cap, and every generated poll keeps the horizon by the
// clock, as docs/export.md describes. A wall-clock phase
// (optimize.WallClock) is computed from the clock's reading in integer
// nanoseconds: its polls fall at the offsets past the period's boundaries
// on the UTC clock, strictly after the last poll, for an item created when
// the runner reads its clock; the tests fake that clock and compare the
// polls with optimize.Schedule.PollsAt and with instants worked out by
// hand.
//
// The JSON document is read by package pollschedule (the runtime loader, which
// needs no generated code) and ReadJSON, which accept a document exactly
// when it validates against docs/schedule.schema.json, but for the rules a
// schema cannot express. Every string that reaches generated source is
// encoded for the place it lands in, or rejected.
//
// All targets write to an io.Writer; the caller owns files.
package export
