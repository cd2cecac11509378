package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// tsDriver runs every table of the generated module (compiled to
// CommonJS) in four ways and prints the poll times (ms) as JSON.
const tsDriver = `const { Backoff, Stop, HorizonError } = require("./out/backoff.js");
const half = () => 0.5;

function retry(b) {
  let now = b.startMs;
  const polls = [];
  for (;;) {
    polls.push(now);
    const next = b.nextBackOff();
    if (next === Stop) return polls;
    now += next;
  }
}

async function main() {
  const out = {};
  for (const seg of JSON.parse(process.argv[2])) {
    const r = { PollErr: "" };
    const b = new Backoff(seg, half);
    r.Retry = retry(b);
    if (b.nextBackOff() !== Stop) throw new Error("no Stop after the horizon");
    b.reset();
    r.Reset = retry(b);
    let a = b.startMs;
    r.GapAfter = [a];
    for (;;) {
      const g = b.gapAfterMs(a);
      if (g < 0) break;
      a += g;
      r.GapAfter.push(a);
    }
    let now = 0;
    const sleep = async (ms) => { now += ms; };
    r.Poll = [];
    try {
      await new Backoff(seg, half).poll(() => { r.Poll.push(now); return false; }, { sleep });
      r.PollErr = "poll resolved";
    } catch (e) {
      if (!(e instanceof HorizonError)) r.PollErr = String(e);
    }
    now = 0;
    r.Signal = [];
    const q = new Backoff(seg, half);
    await q.poll(() => {
      r.Signal.push(now);
      if (r.Signal.length === 5) q.restart();
      return r.Signal.length === 15;
    }, { sleep }).catch(() => {});
    out[seg] = r;
  }
  process.stdout.write(JSON.stringify(out));
}
main().catch((e) => { console.error(e); process.exit(1); });
`

// langResult is what the TypeScript and Kotlin drivers print for a table,
// in milliseconds.
type langResult struct {
	Retry, Reset, GapAfter, Poll, Signal []float64
	PollErr                              string
}

// checkLangResults compares the drivers' poll times with optimize's, exactly
// for unjittered schedules and within tol ms for jittered ones (the other
// languages keep jittered gaps in float or whole ms, Go in ns).
func checkLangResults(t *testing.T, doc Document, got map[string]langResult, signal bool) {
	t.Helper()
	check := func(t *testing.T, what string, got []float64, want []time.Duration, tol float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d polls, want %d\ngot  %v\nwant %v", what, len(got), len(want), got, want)
			return
		}
		for i := range want {
			w := float64(want[i]) / float64(time.Millisecond)
			if math.Abs(got[i]-w) > tol {
				t.Errorf("%s: poll %d at %vms, want %vms", what, i, got[i], w)
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
			half := s.AppendPolls(nil, halfRand{})
			tol := 0.0
			if s.Jitter.Kind != 0 {
				// Sources: ns truncation in optimize, at most 1ns a gap;
				// whole-ms truncation in Kotlin, at most 1ms a gap.
				tol = float64(len(half))
			}
			check(t, "retry loop", r.Retry, half, tol)
			check(t, "after reset", r.Reset, half, tol)
			check(t, "gapAfterMs", r.GapAfter, s.Polls(), 0)
			if r.Poll != nil {
				check(t, "poll", r.Poll, half, tol)
			}
			if r.PollErr != "" {
				t.Error(r.PollErr)
			}
			if signal && len(half) > 5 {
				sig := append([]time.Duration{}, half[:5]...)
				for _, p := range half {
					if len(sig) == 15 {
						break
					}
					sig = append(sig, half[4]+p)
				}
				check(t, "restart", r.Signal, sig, tol)
			}
		})
	}
}

// toolsDir is where testdata/setup.sh installs tsc.
func toolsDir() string {
	if d := os.Getenv("POLLFIT_TOOLS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "pollfit-tools")
}

// TestTypeScriptRuns compiles the generated TypeScript with tsc in strict
// mode, runs it under Node.js and compares its poll times with optimize's.
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
	var cases []runCase
	for _, c := range append(append([]runCase{}, runCases...), jitterCases...) {
		if !c.subMs {
			cases = append(cases, c)
		}
	}
	doc := caseDoc(t, cases)
	// Names that must be escaped or sanitised, and one that is a key of
	// Object.prototype.
	for _, name := range []string{"a-b", "a_b", "constructor", "quote \" ${x} \\ \u2028 */ end"} {
		doc.Segments = append(doc.Segments, Segment{Name: name, Schedule: doc.Schedule})
	}
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
		"--noFallthroughCasesInSwitch", "--target", "es2020", "--module", "commonjs", "--lib", "es2020,dom",
		"--outDir", "out", "backoff.ts")
	var names []string
	for _, s := range doc.Segments {
		names = append(names, s.Name)
	}
	arg, _ := json.Marshal(append([]string{""}, names...))
	out := run(t, dir, nil, node, "driver.js", string(arg))
	var got map[string]langResult
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("driver output: %v\n%s", err, out)
	}
	checkLangResults(t, doc, got, true)
}

// TestSubMillisecondRefused checks that the whole-millisecond targets
// refuse a schedule they cannot represent instead of rounding it.
func TestSubMillisecondRefused(t *testing.T) {
	doc := caseDoc(t, runCases[len(runCases)-1:])
	for name, f := range map[string]func(*bytes.Buffer, Document, Options) error{
		"TypeScript": func(b *bytes.Buffer, d Document, o Options) error { return TypeScript(b, d, o) },
		"Kotlin":     func(b *bytes.Buffer, d Document, o Options) error { return Kotlin(b, d, o) },
		"Swift":      func(b *bytes.Buffer, d Document, o Options) error { return Swift(b, d, o) },
	} {
		if err := f(&bytes.Buffer{}, doc, Options{}); !errors.Is(err, ErrSubMillisecond) {
			t.Errorf("%s(sub-ms schedule) = %v, want ErrSubMillisecond", name, err)
		}
	}
}

// ktDriver runs every table of the generated class in four ways and prints
// the poll times (ms) as a JSON array in the order of its arguments.
const ktDriver = `fun retry(b: Backoff): List<Long> {
    var now = b.startMs
    val polls = ArrayList<Long>()
    while (true) {
        polls.add(now)
        val next = b.nextBackOff()
        if (next == Backoff.STOP) return polls
        now += next
    }
}

fun main(args: Array<String>) {
    val half = { 0.5 }
    val parts = ArrayList<String>()
    for (seg in args) {
        val b = Backoff(seg, half)
        val r = retry(b)
        if (b.nextBackOff() != Backoff.STOP) throw IllegalStateException("no STOP after the horizon")
        b.reset()
        val reset = retry(b)
        var a = b.startMs
        val gaps = arrayListOf(a)
        while (true) {
            val g = b.gapAfterMs(a)
            if (g < 0) break
            a += g
            gaps.add(a)
        }
        var now = 0L
        val polls = ArrayList<Long>()
        var err = "poll returned"
        try {
            Backoff(seg, half).poll({ polls.add(now); false }, { ms -> now += ms })
        } catch (e: Backoff.HorizonException) {
            err = ""
        }
        parts.add("{\"Retry\":" + r + ",\"Reset\":" + reset + ",\"GapAfter\":" + gaps + ",\"Poll\":" + polls + ",\"PollErr\":\"" + err + "\"}")
    }
    println("[" + parts.joinToString(",") + "]")
}
`

// TestKotlinRuns compiles the generated Kotlin with kotlinc (Debian's
// kotlin package; see testdata/setup.sh), runs it on the JVM and compares
// its poll times with optimize's.
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
	var cases []runCase
	for _, c := range append(append([]runCase{}, runCases...), jitterCases...) {
		if !c.subMs {
			cases = append(cases, c)
		}
	}
	doc := caseDoc(t, cases)
	for _, name := range []string{"a-b", "a_b", "fun", "quote \" ${x} $y \\ \n end"} {
		doc.Segments = append(doc.Segments, Segment{Name: name, Schedule: doc.Schedule})
	}
	dir := t.TempDir()
	var src bytes.Buffer
	if err := Kotlin(&src, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"Backoff.kt": src.Bytes(), "Driver.kt": []byte(ktDriver)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, dir, nil, kotlinc, "-Werror", "Backoff.kt", "Driver.kt", "-include-runtime", "-d", "driver.jar")
	names := []string{""}
	for _, s := range doc.Segments {
		names = append(names, s.Name)
	}
	out := run(t, dir, nil, java, append([]string{"-jar", "driver.jar"}, names...)...)
	var list []langResult
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("driver output: %v\n%s", err, out)
	}
	if len(list) != len(names) {
		t.Fatalf("driver printed %d results for %d segments", len(list), len(names))
	}
	got := map[string]langResult{}
	for i, r := range list {
		got[names[i]] = r
	}
	checkLangResults(t, doc, got, false)
}
