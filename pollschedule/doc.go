// Package pollschedule runs a pollfit schedule document at run time: it reads the
// JSON written by `pollfit export --lang json` (docs/schedule.schema.json)
// and gives the same BackOff, Poll and per-segment choice as the code that
// `pollfit export --lang go` generates, with the standard library only, so
// that a service that loads its configuration needs no generated code.
//
// A schedule is a table of phases. The first poll is at Start (0: at once)
// and counts as a poll; each phase then adds polls by one rule: a single
// gap (Once) adds one poll, and a repeating phase adds its k-th gap, k = 1,
// 2, …, while the last poll is before its Until, so that its last poll may
// pass Until and the next phase continues from there. No poll is made
// after the horizon: the last phase's Until when it repeats, else the last
// poll. The gaps of a phase are given by Phase.GapAt, capped before any
// product can overflow, and jitter (Jitter) is applied after the cap and
// never takes a gap above it. A wall-clock phase (WallClock) polls instead
// at instants of the UTC clock, offsets past each multiple of its period,
// the next one strictly after the last poll: its polls depend on when the
// item was created (Schedule.PollsAt; a BackOff reads its clock), and it
// takes no jitter.
//
// This is the rule of optimize.Schedule in the pollfit module, computed by
// the same formulas: the tests check that Read accepts a document exactly
// when it validates against the JSON Schema (up to the checks a schema
// cannot express, such as increasing Untils), and that a BackOff polls at
// the very times optimize.Schedule.Polls (PollsAt for a wall-clock phase)
// gives and the generated Go code makes, poll for poll.
//
// BackOff.Poll reports to Observed, as it returns, the age of the last
// check that saw the item pending and of the first that saw it settled
// (Observation): logged per item, the interval the next fit reads, so that
// pollfit learns from the schedule in use.
//
// BackOff satisfies the BackOff interface of github.com/cenkalti/backoff
// (v4 and v5) without importing it. BackOff.Poll fits
// k8s.io/apimachinery's wait.ConditionWithContextFunc; passing NextBackOff
// to wait.DelayFunc does not work (see docs/export.md).
package pollschedule
