package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/optimize"
)

// langResult is what the TypeScript and Kotlin drivers print for a table,
// times in nanoseconds (the TypeScript driver rounds each millisecond gap
// it is given to the nanosecond and sums those).
type langResult struct {
	Retry, Reset, GapAfter, Poll, Signal, Slow, Delays []time.Duration
	Attempts                                           []int
	PollErr, SlowErr                                   string
	MinGap, MaxGap                                     time.Duration
	Suspend                                            []time.Duration // Kotlin: pollSuspend
}

// langDoc is the document every language runs: the run cases, the jitter
// cases, and hostile segment names, each with a schedule of its own
// ("every Ns until 1m" for the N-th) so that a name that reached the wrong
// table shows.
func langDoc(t *testing.T) Document {
	t.Helper()
	doc := caseDoc(t, append(append(append([]runCase{}, runCases...), jitterCases...), clockCases...))
	for i, name := range hostileNames() {
		doc.Segments = append(doc.Segments, Segment{Name: name, Schedule: optimize.MustParseSpec(fmt.Sprintf("every %dms until 1m", 1001+i))})
	}
	return doc
}

// checkLangResults compares the drivers' poll times with optimize's,
// exactly: the TypeScript tables are in nanoseconds for langDoc, and both
// targets draw jitter in nanoseconds as optimize does. quantum is the
// granularity of the waits of the target's poll (1ns for TypeScript, 1ms
// for Kotlin, whose sleep takes milliseconds).
func checkLangResults(t *testing.T, doc Document, got map[string]langResult, quantum time.Duration, signal bool) {
	t.Helper()
	check := func(t *testing.T, what string, got, want []time.Duration) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d polls, want %d\ngot  %.50v\nwant %.50v", what, len(got), len(want), got, want)
			return
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: poll %d at %v, want %v", what, i, got[i], want[i])
				return
			}
		}
	}
	for _, seg := range append([]Segment{{Name: "", Schedule: doc.Schedule}}, doc.Segments...) {
		t.Run(seg.Name, func(t *testing.T) {
			r, ok := got[seg.Name]
			if !ok {
				t.Fatalf("no driver output for segment %q", seg.Name)
			}
			s := seg.Schedule
			polls := s.Polls()
			half := s.AppendPolls(nil, halfRand{})
			check(t, "retry loop", r.Retry, half)
			check(t, "after reset", r.Reset, half)
			check(t, "gapAfter", r.GapAfter, polls[:min(len(polls), 1000)])
			check(t, "poll", r.Poll, pollStarts(half, s.Normalize().Horizon(), 0, quantum))
			if r.Suspend != nil {
				check(t, "pollSuspend", r.Suspend, r.Poll)
			}
			for i, a := range r.Attempts {
				if a != i+1 {
					t.Errorf("check %d got attempt %d, want %d", i, a, i+1)
					break
				}
			}
			if r.PollErr != "" || r.SlowErr != "" {
				t.Error(r.PollErr, r.SlowErr)
			}
			slow := pollStarts(half, s.Normalize().Horizon(), slowCheck(seg.Name, half), quantum)
			check(t, "poll with slow checks", r.Slow, slow)
			checkSlow100(t, seg.Name, r.Slow)
			if r.Delays != nil {
				check(t, "delays", r.Delays, r.Poll)
			}
			if sig := signalPolls(s, half); signal && sig != nil {
				check(t, "restart", r.Signal, sig)
			}
			checkCap(t, seg.Name, r.MinGap, r.MaxGap)
		})
	}
}

// observation is what a target's poll reported of an item (its
// Observation), times in nanoseconds; Settled false for a pending one.
type observation struct {
	LastPending, FirstSettled time.Duration
	Settled                   bool
}

// checkObserved checks the observations the drivers report for the
// overall schedule, whose fake-clock poll times are polls: of an item
// whose checks saw it pending, got no answer, saw it pending and saw it
// settled by a request of 7 ms (in unit, the target's: TypeScript and Go
// take 7 ms, Kotlin's sleep takes milliseconds), and of an item never
// settled.
func checkObserved(t *testing.T, got []observation, polls []time.Duration, unit time.Duration) {
	t.Helper()
	if len(polls) < 4 {
		t.Fatalf("the overall schedule has %d polls: the observation case needs 4", len(polls))
	}
	want := []observation{
		{LastPending: polls[2], FirstSettled: polls[3] + 7*unit, Settled: true},
		{LastPending: polls[len(polls)-1]},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("observed %+v, want %+v (polls at %.6v)", got, want, polls)
	}
}

// toolsDir is where testdata/setup.sh installs tsc, prettier and ajv.
func toolsDir() string {
	if d := os.Getenv("POLLFIT_TOOLS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "pollfit-tools")
}

// tsDriver runs every table of the generated module (compiled to
// CommonJS) in several ways and prints the poll times (ns) as JSON: a
// retry loop, after reset, gapAfterMs, poll on a fake clock, poll with
// slow checks, restart(), the delays() iterator and random draws; and for
// long-100d, poll with setTimeout itself replaced by a fake that records
// the waits asked of it.
const tsDriver = `const { Backoff, Stop, HorizonError } = require("./out/backoff.js");
const half = () => 0.5;
const ns = (ms) => Math.round(ms * 1e6);

// The fake wall clock, ms since the Unix epoch: retry and gapAfter set it
// to the instant of each poll of an item created at originMs.
let wallMs = 0;
const wall = () => wallMs;

function retry(b, originMs = 0) {
  let now = ns(b.startMs);
  const polls = [];
  for (;;) {
    polls.push(now);
    wallMs = originMs + now / 1e6;
    const next = b.nextBackOff();
    if (next === Stop) return polls;
    now += ns(next);
  }
}

function gapAfter(b, originMs = 0) {
  let a = b.startMs;
  const polls = [ns(a)];
  while (polls.length < 1000) {
    wallMs = originMs + a;
    const g = b.gapAfterMs(a);
    if (g < 0) break;
    a += g;
    polls.push(ns(a));
  }
  return polls;
}

// fakeClock's sleep advances it at once; its wall clock reads originMs
// (ms since the Unix epoch) + the time slept.
function fakeClock(originMs = 0) {
  const c = { ns: 0 };
  c.opts = { sleep: async (ms) => { c.ns += ns(ms); }, now: () => c.ns / 1e6 };
  c.wall = () => originMs + c.ns / 1e6;
  return c;
}

async function expectHorizon(p, r, field) {
  try {
    await p;
    r[field] = "poll resolved";
  } catch (e) {
    if (!(e instanceof HorizonError)) r[field] = String(e);
  }
}

// longWaits runs poll with the default sleep on a fake setTimeout.
async function longWaits(seg) {
  const realSet = globalThis.setTimeout;
  let nowMs = 0;
  const asked = [];
  globalThis.setTimeout = (fn, ms) => { asked.push(ms); nowMs += ms; return realSet(fn, 0); };
  const times = [];
  try {
    await new Backoff(seg).poll(() => { times.push(nowMs); return false; }, { now: () => nowMs });
  } catch (e) {
    if (!(e instanceof HorizonError)) throw e;
  } finally {
    globalThis.setTimeout = realSet;
  }
  return { Asked: asked, Times: times };
}

async function main() {
  const slow = JSON.parse(process.argv[2]);
  const segs = Object.create(null); // "__proto__" is a segment name
  const out = { Segments: segs };
  for (const seg of JSON.parse(process.argv[3])) {
    const r = { PollErr: "", SlowErr: "" };
    const b = new Backoff(seg, half, wall);
    r.Retry = retry(b);
    if (b.nextBackOff() !== Stop) throw new Error("no Stop after the horizon");
    b.reset();
    r.Reset = retry(b);
    r.GapAfter = gapAfter(b);

    let c = fakeClock();
    r.Poll = [];
    r.Attempts = [];
    await expectHorizon(new Backoff(seg, half, c.wall).poll((attempt, signal) => {
      if (!(signal instanceof AbortSignal)) throw new Error("check got no AbortSignal");
      r.Poll.push(c.ns);
      r.Attempts.push(attempt);
      return false;
    }, c.opts), r, "PollErr");

    c = fakeClock();
    r.Slow = [];
    await expectHorizon(new Backoff(seg, half, c.wall).poll(() => {
      r.Slow.push(c.ns);
      c.ns += slow[seg];
      return false;
    }, c.opts), r, "SlowErr");

    c = fakeClock();
    r.Signal = [];
    const q = new Backoff(seg, half, c.wall);
    await q.poll(() => {
      r.Signal.push(c.ns);
      if (r.Signal.length === 5) q.restart();
      return r.Signal.length === 15;
    }, c.opts).catch(() => {});

    c = fakeClock();
    r.Delays = [];
    for await (const wait of new Backoff(seg, half, c.wall).delays(c.opts)) {
      if (typeof wait !== "number" || wait < 0) throw new Error("delays yielded " + wait);
      r.Delays.push(c.ns);
    }

    r.MinGap = -1;
    r.MaxGap = 0;
    const d = new Backoff(seg);
    for (let i = 0; i < 200; i++) {
      d.reset();
      for (let g = d.nextBackOff(); g !== Stop; g = d.nextBackOff()) {
        const n = ns(g);
        if (r.MinGap < 0 || n < r.MinGap) r.MinGap = n;
        if (n > r.MaxGap) r.MaxGap = n;
      }
    }
    segs[seg] = r;
  }
  out.Long = await longWaits("long-100d");

  // Items created at other instants, on fake clocks that start there.
  out.Clock = [];
  for (const run of JSON.parse(process.argv[4])) {
    const c = fakeClock(run.Created);
    const res = { Segment: run.Segment, Created: run.Created, Poll: [] };
    await expectHorizon(new Backoff(run.Segment, half, c.wall).poll(() => {
      res.Poll.push(c.ns);
      return false;
    }, c.opts), res, "PollErr");
    const b = new Backoff(run.Segment, half, wall);
    res.Retry = retry(b, run.Created);
    res.Gap = gapAfter(b, run.Created);
    out.Clock.push(res);
  }

  // Aborting in the third check: poll rejects with the reason.
  const ac = new AbortController();
  let n = 0;
  const c = fakeClock();
  try {
    await new Backoff("", half).poll((attempt, signal) => {
      n = attempt;
      if (attempt === 3) ac.abort(new Error("stop here"));
      return false;
    }, { ...c.opts, signal: ac.signal });
    out.Abort = "poll resolved";
  } catch (e) {
    out.Abort = n + ": " + e.message;
  }

  // What poll's checks saw: pending, no answer, pending, then settled by a
  // request of 7 ms; and never settled.
  out.Observed = [];
  for (const settles of [true, false]) {
    const c = fakeClock();
    let n = 0;
    const observed = (o) => out.Observed.push({
      LastPending: ns(o.lastPendingMs),
      FirstSettled: o.firstSettledMs === null ? 0 : ns(o.firstSettledMs),
      Settled: o.firstSettledMs !== null,
    });
    await new Backoff("", half, c.wall).poll(() => {
      n++;
      if (n === 2) return null;
      if (n === 4 && settles) {
        c.ns += ns(7);
        return true;
      }
      return false;
    }, { ...c.opts, observed }).catch(() => {});
  }
  process.stdout.write(JSON.stringify(out));
}
main().catch((e) => { console.error(e); process.exit(1); });
`

// TestTypeScriptRuns compiles the generated TypeScript with tsc in strict
// mode with --erasableSyntaxOnly (Node's type stripping) and
// --noUncheckedIndexedAccess, checks that prettier leaves it as it is,
// runs it under Node.js and compares its poll times with optimize's: for
// every run case, jitter mode and hostile segment name, with slow checks
// against the horizon, and a 100-day schedule whose waits pass
// setTimeout's 2^31−1 ms.
func TestTypeScriptRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs TypeScript (seconds); skipped in -short mode")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH: cannot run the generated TypeScript")
	}
	tsc := filepath.Join(toolsDir(), "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Skipf("tsc not installed at %s: run sh export/testdata/setup.sh", tsc)
	}
	doc := langDoc(t)
	dir := t.TempDir()
	var src bytes.Buffer
	if err := TypeScript(&src, doc, Options{Name: "Backoff"}); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"backoff.ts": src.Bytes(), "driver.js": []byte(tsDriver)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, dir, nil, tsc, "--strict", "--noUnusedLocals", "--noUnusedParameters", "--noImplicitReturns",
		"--noFallthroughCasesInSwitch", "--erasableSyntaxOnly", "--noUncheckedIndexedAccess",
		"--exactOptionalPropertyTypes", "--target", "es2020", "--module", "commonjs", "--lib", "es2020,dom",
		"--outDir", "out", "backoff.ts")
	prettierCheck(t, dir, "backoff.ts")

	slow := map[string]time.Duration{}
	names := []string{""}
	for _, seg := range append([]Segment{{Name: "", Schedule: doc.Schedule}}, doc.Segments...) {
		slow[seg.Name] = slowCheck(seg.Name, seg.Schedule.AppendPolls(nil, halfRand{}))
		if seg.Name != "" {
			names = append(names, seg.Name)
		}
	}
	slowArg, _ := json.Marshal(slow)
	namesArg, _ := json.Marshal(names)
	out := run(t, dir, nil, node, "driver.js", string(slowArg), string(namesArg), clockRunsArg(t, time.Millisecond))
	var res struct {
		Segments map[string]langResult
		Long     struct{ Asked, Times []float64 }
		Abort    string
		Clock    []clockRunResult
		Observed []observation
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("driver output: %v\n%.2000s", err, out)
	}
	checkLangResults(t, doc, res.Segments, 1, true)
	checkClockRuns(t, res.Clock)
	checkObserved(t, res.Observed, res.Segments[""].Poll, time.Millisecond)

	// 100 days: polls at 0, 720h, 1440h, 2160h, each wait asked of
	// setTimeout at most 2^31−1 ms (720h is 2,592,000,000 ms).
	long := res.Long
	h := float64(time.Hour / time.Millisecond)
	if want := []float64{0, 720 * h, 1440 * h, 2160 * h}; fmt.Sprint(long.Times) != fmt.Sprint(want) {
		t.Errorf("100-day schedule polled at %v ms, want %v", long.Times, want)
	}
	for _, ms := range long.Asked {
		if ms > 1<<31-1 {
			t.Errorf("setTimeout asked for %v ms, above 2^31−1", ms)
		}
	}
	if len(long.Asked) < 6 {
		t.Errorf("setTimeout asked for %v: want each 720h wait in two parts", long.Asked)
	}
	if res.Abort != "3: stop here" {
		t.Errorf("poll aborted in the third check: %q, want rejection with the reason after 3 checks", res.Abort)
	}
}

// prettierCheck runs prettier --check on a file when prettier is
// installed (testdata/setup.sh).
func prettierCheck(t *testing.T, dir, file string) {
	t.Helper()
	prettier := filepath.Join(toolsDir(), "node_modules", ".bin", "prettier")
	if _, err := os.Stat(prettier); err != nil {
		t.Logf("prettier not installed at %s: formatting not checked", prettier)
		return
	}
	cmd := exec.Command(prettier, "--check", file)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		diff, _ := exec.Command("sh", "-c", fmt.Sprintf("cd %s && %s %s | diff %s - | head -40", dir, prettier, file, file)).CombinedOutput()
		t.Errorf("prettier --check %s: %v\n%s\n%s", file, err, out, diff)
	}
}

// TestTypeScriptUnrepresentable checks that TypeScript refuses a schedule
// its numbers cannot hold exactly instead of rounding it: nanosecond times
// and a horizon beyond 2^53 ns (104 days).
func TestTypeScriptUnrepresentable(t *testing.T) {
	doc := Document{Schedule: optimize.MustParseSpec("at 1ns, every 1h until 2600h")}
	if err := TypeScript(&bytes.Buffer{}, doc, Options{}); !errors.Is(err, ErrUnrepresentable) {
		t.Errorf("TypeScript(ns times, 2600h) = %v, want ErrUnrepresentable", err)
	}
	doc = Document{Schedule: optimize.MustParseSpec("at 1us, every 1h until 2600h")}
	if err := TypeScript(&bytes.Buffer{}, doc, Options{}); err != nil {
		t.Errorf("TypeScript(µs times, 2600h) = %v, want no error (microseconds hold 285 years)", err)
	}
}

// ktDriver runs every table of the generated class in several ways and
// prints the poll times (ns) as a JSON array in the order of its
// arguments: a retry loop, after reset, gapAfterNanos, poll on a fake
// clock, poll with slow checks, pollSuspend (in runBlocking, with a fake
// delay) and random draws. The first argument maps segments to the
// duration of a slow check, as "name=ns" lines.
const ktDriver = `import kotlinx.coroutines.runBlocking

// The fake wall clock, ns since the Unix epoch: retry and gapAfter set it
// to the instant of each poll of an item created at origin.
var wall = 0L

fun retry(b: Backoff, origin: Long = 0L): List<Long> {
    var now = b.startNanos
    val polls = ArrayList<Long>()
    while (true) {
        polls.add(now)
        wall = origin + now
        val next = b.nextBackOffNanos()
        if (next == Backoff.STOP) return polls
        now += next
    }
}

fun gapAfter(b: Backoff, origin: Long = 0L): List<Long> {
    var a = b.startNanos
    val gaps = arrayListOf(a)
    while (gaps.size < 1000) {
        wall = origin + a
        val g = b.gapAfterNanos(a)
        if (g < 0) break
        a += g
        gaps.add(a)
    }
    return gaps
}

fun list(xs: List<Any>): String = xs.joinToString(",", "[", "]")

fun main(args: Array<String>) {
    val half = { 0.5 }
    val slow = HashMap<String, Long>()
    for (line in java.io.File(args[0]).readLines()) {
        val i = line.lastIndexOf('=')
        if (i >= 0) slow[java.net.URLDecoder.decode(line.substring(0, i), "UTF-8")] = line.substring(i + 1).toLong()
    }
    val names = java.io.File(args[1]).readLines().map { java.net.URLDecoder.decode(it, "UTF-8") }
    val parts = ArrayList<String>()
    val rng = java.util.Random(16)
    for (seg in names) {
        val b = Backoff(seg, half, { wall })
        val r = retry(b)
        if (b.nextBackOffNanos() != Backoff.STOP) throw IllegalStateException("no STOP after the horizon")
        if (b.nextBackOff() != Backoff.STOP) throw IllegalStateException("no STOP in ms after the horizon")
        b.reset()
        val reset = retry(b)
        val gaps = gapAfter(b)
        var now = 0L
        val polls = ArrayList<Long>()
        val attempts = ArrayList<Int>()
        var err = "poll returned"
        try {
            Backoff(seg, half, { now }).poll({ attempt -> polls.add(now); attempts.add(attempt); false }, { ms -> now += ms * 1_000_000L }, { now })
        } catch (e: Backoff.HorizonException) {
            err = ""
        }
        now = 0L
        val slowPolls = ArrayList<Long>()
        var slowErr = "poll returned"
        try {
            Backoff(seg, half, { now }).poll({ slowPolls.add(now); now += slow.getValue(seg); false }, { ms -> now += ms * 1_000_000L }, { now })
        } catch (e: Backoff.HorizonException) {
            slowErr = ""
        }
        now = 0L
        val suspended = ArrayList<Long>()
        try {
            runBlocking {
                Backoff(seg, half, { now }).pollSuspend({ suspended.add(now); false }, { ms -> now += ms * 1_000_000L }, { now })
            }
        } catch (e: Backoff.HorizonException) {
        }
        var lo = -1L
        var hi = 0L
        val d = Backoff(seg, { rng.nextDouble() })
        for (i in 0 until 200) {
            d.reset()
            var g = d.nextBackOffNanos()
            while (g != Backoff.STOP) {
                if (lo < 0 || g < lo) lo = g
                if (g > hi) hi = g
                g = d.nextBackOffNanos()
            }
        }
        parts.add("{\"Retry\":" + list(r) + ",\"Reset\":" + list(reset) + ",\"GapAfter\":" + list(gaps) +
            ",\"Poll\":" + list(polls) + ",\"Attempts\":" + list(attempts) + ",\"PollErr\":\"" + err + "\"" +
            ",\"Slow\":" + list(slowPolls) + ",\"SlowErr\":\"" + slowErr + "\",\"Suspend\":" + list(suspended) +
            ",\"MinGap\":" + lo + ",\"MaxGap\":" + hi + "}")
    }
    // Items created at other instants, on fake clocks that start there.
    val clock = ArrayList<String>()
    for (line in java.io.File(args[2]).readLines()) {
        val i = line.lastIndexOf('=')
        if (i < 0) continue
        val seg = java.net.URLDecoder.decode(line.substring(0, i), "UTF-8")
        val origin = line.substring(i + 1).toLong()
        var now = 0L
        val polls = ArrayList<Long>()
        try {
            Backoff(seg, half, { origin + now }).poll({ polls.add(now); false }, { ms -> now += ms * 1_000_000L }, { now })
        } catch (e: Backoff.HorizonException) {
        }
        val b = Backoff(seg, half, { wall })
        clock.add("{\"Poll\":" + list(polls) + ",\"Retry\":" + list(retry(b, origin)) + ",\"Gap\":" + list(gapAfter(b, origin)) + "}")
    }
    // What poll's checks saw: pending, no answer, pending, then settled by
    // a request of 7 ms; and never settled. pollSuspend the same way.
    val observed = ArrayList<String>()
    val report = { o: Backoff.Observation ->
        observed.add("{\"LastPending\":" + o.lastPendingNanos + ",\"FirstSettled\":" + (o.firstSettledNanos ?: 0L) + ",\"Settled\":" + (o.firstSettledNanos != null) + "}")
        Unit
    }
    for (suspending in listOf(false, true)) {
        for (settles in listOf(true, false)) {
            var now = 0L
            var n = 0
            val check = { _: Int ->
                n++
                if (n == 2) null else if (n == 4 && settles) { now += 7_000_000L; true } else false
            }
            try {
                if (suspending) {
                    runBlocking { Backoff("", half, { now }).pollSuspend({ a -> check(a) }, { ms -> now += ms * 1_000_000L }, { now }, report) }
                } else {
                    Backoff("", half, { now }).poll(check, { ms -> now += ms * 1_000_000L }, { now }, report)
                }
            } catch (e: Backoff.HorizonException) {
            }
        }
    }
    println("{\"Segments\":[" + parts.joinToString(",") + "],\"Clock\":[" + clock.joinToString(",") + "],\"Observed\":[" + observed.joinToString(",") + "]}")
}
`

// kotlinClasspath returns the jars that the driver's runBlocking needs,
// kotlinx-coroutines and atomicfu (Debian's libkotlinx-coroutines-java and
// libkotlinx-atomicfu-java; see testdata/setup.sh), or "" when one is
// missing. $POLLFIT_KOTLINX_CLASSPATH overrides the search.
func kotlinClasspath() string {
	if cp := os.Getenv("POLLFIT_KOTLINX_CLASSPATH"); cp != "" {
		return cp
	}
	jars := []string{"/usr/share/java/kotlinx-coroutines-core.jar", "/usr/share/java/atomicfu.jar"}
	for _, j := range jars {
		if _, err := os.Stat(j); err != nil {
			return ""
		}
	}
	return strings.Join(jars, ":")
}

// TestKotlinRuns compiles the generated Kotlin with kotlinc (Debian's
// kotlin package; see testdata/setup.sh) with warnings as errors, runs it
// on the JVM and compares its poll times with optimize's, as
// TestTypeScriptRuns does; pollSuspend runs in kotlinx.coroutines'
// runBlocking.
func TestKotlinRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles Kotlin (about ten seconds); skipped in -short mode")
	}
	kotlinc, err := exec.LookPath("kotlinc")
	if err != nil {
		t.Skip("kotlinc not on PATH: run sh export/testdata/setup.sh (apt-get install kotlin)")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("java not on PATH: cannot run the compiled Kotlin")
	}
	cp := kotlinClasspath()
	if cp == "" {
		t.Skip("kotlinx-coroutines not found: run sh export/testdata/setup.sh (apt-get install libkotlinx-coroutines-java libkotlinx-atomicfu-java)")
	}
	doc := langDoc(t)
	dir := t.TempDir()
	var src bytes.Buffer
	if err := Kotlin(&src, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	var slow, names strings.Builder
	order := []string{""}
	for _, seg := range append([]Segment{{Name: "", Schedule: doc.Schedule}}, doc.Segments...) {
		fmt.Fprintf(&slow, "%s=%d\n", urlEncode(seg.Name), slowCheck(seg.Name, seg.Schedule.AppendPolls(nil, halfRand{})))
		fmt.Fprintf(&names, "%s\n", urlEncode(seg.Name))
		if seg.Name != "" {
			order = append(order, seg.Name)
		}
	}
	var clock strings.Builder
	for _, r := range clockRuns {
		c, _ := r.ages(t)
		fmt.Fprintf(&clock, "%s=%d\n", urlEncode(r.segment), c.UnixNano())
	}
	for name, data := range map[string]string{"Backoff.kt": src.String(), "Driver.kt": ktDriver, "slow.txt": slow.String(), "names.txt": names.String(), "clock.txt": clock.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, dir, nil, kotlinc, "-Werror", "-cp", cp, "Backoff.kt", "Driver.kt", "-include-runtime", "-d", "driver.jar")
	out := run(t, dir, nil, java, "-cp", "driver.jar:"+cp, "DriverKt", "slow.txt", "names.txt", "clock.txt")
	var res struct {
		Segments []langResult
		Clock    []clockRunResult
		Observed []observation
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("driver output: %v\n%.2000s", err, out)
	}
	checkClockRuns(t, res.Clock)
	if len(res.Observed) != 4 {
		t.Errorf("%d observations, want 2 of poll and 2 of pollSuspend", len(res.Observed))
	} else if len(res.Segments) > 0 {
		checkObserved(t, res.Observed[:2], res.Segments[0].Poll, time.Millisecond)
		checkObserved(t, res.Observed[2:], res.Segments[0].Poll, time.Millisecond)
	}
	list := res.Segments
	if len(list) != len(order) {
		t.Fatalf("driver printed %d results for %d segments", len(list), len(order))
	}
	got := map[string]langResult{}
	for i, r := range list {
		got[order[i]] = r
	}
	checkLangResults(t, doc, got, time.Millisecond, false)
}

// urlEncode writes s as java.net.URLDecoder reads it: every byte but
// ASCII letters and digits as %XX, so that names with line breaks and '='
// pass through a file of lines.
func urlEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
