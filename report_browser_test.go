package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromiumFlags are what Chromium needs here: headless as root, and no
// connection of its own (the machine has no network; the page must not
// need one).
var chromiumFlags = []chromedp.ExecAllocatorOption{
	chromedp.Headless,
	chromedp.NoSandbox,
	chromedp.DisableGPU,
	chromedp.NoFirstRun,
	chromedp.Flag("disable-quic", true),
	chromedp.Flag("disable-background-networking", true),
	chromedp.Flag("disable-component-update", true),
	chromedp.Flag("disable-sync", true),
	chromedp.Flag("hide-scrollbars", true),
}

// chromium returns the browser the test drives: $POLLFIT_CHROMIUM, or
// Debian's chromium, which export/testdata/setup.sh installs when run as
// root. Without one the test skips, unless POLLFIT_REQUIRE_BROWSER is set
// (as .ci/run sets it), when it fails.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("POLLFIT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium not found: run sh export/testdata/setup.sh as root (it runs apt-get install chromium) to run the browser test"
	if os.Getenv("POLLFIT_REQUIRE_BROWSER") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// browser is a page in headless Chromium that records console errors,
// uncaught exceptions and every request the page makes.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	errors   []string
	requests []string
}

func newBrowser(t *testing.T, exe string) *browser {
	t.Helper()
	opts := append(append([]chromedp.ExecAllocatorOption{}, chromiumFlags...),
		chromedp.ExecPath(exe), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	b := &browser{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.errors = append(b.errors, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, fmt.Sprintf("exception: %s %v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception))
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				b.errors = append(b.errors, fmt.Sprintf("log %s: %s (%s)", e.Entry.Level, e.Entry.Text, e.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		}
	})
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// do runs the actions, failing the test on an error.
func (b *browser) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// get runs the action and returns its value, failing the test on an error.
func get[T any](t *testing.T, b *browser, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// check fails on any console error or uncaught exception, and on any
// request but the page's own file.
func (b *browser) check(t *testing.T, page string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		t.Errorf("%s: %s", filepath.Base(page), e)
	}
	for _, u := range b.requests {
		if u != "file://"+page {
			t.Errorf("%s: the page requested %s: it must need nothing beyond itself", filepath.Base(page), u)
		}
	}
	b.errors, b.requests = nil, nil
}

// reportRun is a report the browser test opens, with the screenshots it
// takes of it (written under docs/ with -update).
type reportRun struct {
	name  string
	args  []string
	sweep []string // sweep's arguments for the same budgets, all items only
	// start and next are the slider's budget at the start and one step to
	// the right.
	start, next string
}

var reportRuns = []reportRun{
	{
		name: "payments",
		args: []string{"report", "-i", "fixtures/payments.csv", "-c", "settle_s", "--status", "status", "--pending", "pending", "--segment", "method", "--budget", "152"},
		// 152/4 … 152·4 in 9 log-spaced steps, as the report's default.
		sweep: []string{"sweep", "-i", "fixtures/payments.csv", "-c", "settle_s", "--status", "status", "--pending", "pending", "--budgets", "38..608:9"},
		start: "152 stuck polls", next: "215 stuck polls",
	},
	{
		name:  "bundled",
		args:  []string{"report"},
		sweep: []string{"sweep", "-i", "fixtures/julia_ci_job_durations.csv", "-c", "duration_s", "--horizon", "2h", "--budgets", "30..480:9"},
		start: "120 stuck polls", next: "170 stuck polls",
	},
}

// TestReportBrowser opens the reports of the payments fixture (with
// --segment method) and of the bundled data in headless Chromium, as a
// person would: no console error and no request beyond the file; the
// slider starts at the plan's budget and schedule, and one step right
// shows the schedule pollfit sweep derives at that budget; the page fits
// a phone's width; with JavaScript off everything but the slider is
// there. It takes screenshots at desktop and phone widths (go test
// -run TestReportBrowser -update writes them to docs/).
func TestReportBrowser(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	for _, rr := range reportRuns {
		t.Run(rr.name, func(t *testing.T) {
			page, err := filepath.Abs(filepath.Join(dir, rr.name+".html"))
			if err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runCLI(t, append(rr.args, "-q", "-o", page)...)
			if code != 0 {
				t.Fatalf("pollfit %s: exit %d: %s", strings.Join(rr.args, " "), code, stderr)
			}
			fi, err := os.Stat(page)
			if err != nil {
				t.Fatal(err)
			}
			// Small enough to mail: no multi-MB page.
			if fi.Size() > maxReportBytes {
				t.Errorf("%s is %d bytes, want at most %d", page, fi.Size(), maxReportBytes)
			}
			t.Logf("%s: %d KB", rr.name, fi.Size()/1024)
			wantNext := sweepSpec(t, rr.sweep, rr.next)

			b := newBrowser(t, exe)
			b.do(t, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("#all-range")))
			label := get(t, b, chromedp.Text(chromedp.CSS("#all-label")))
			spec := get(t, b, chromedp.Text(chromedp.CSS("#all-spec")))
			planSpec := get(t, b, chromedp.Text(chromedp.CSS("#all-schedule .spec code")))
			if label != rr.start || spec != planSpec {
				t.Errorf("slider starts at %q with %q, want %q with the plan's schedule %q", label, spec, rr.start, planSpec)
			}
			// A person's move: focus the slider, press the right arrow.
			b.do(t, chromedp.ScrollIntoView(chromedp.CSS("#all-slider")), chromedp.Focus(chromedp.CSS("#all-range")), chromedp.KeyEvent(kb.ArrowRight))
			nextLabel := get(t, b, chromedp.Text(chromedp.CSS("#all-label")))
			nextSpec := get(t, b, chromedp.Text(chromedp.CSS("#all-spec")))
			if nextLabel != rr.next || nextSpec != wantNext {
				t.Errorf("one step right, the slider shows %q with\n%q\nwant %q with the schedule pollfit sweep derives:\n%q", nextLabel, nextSpec, rr.next, wantNext)
			}
			if mark := get(t, b, chromedp.AttributeValue(chromedp.CSS("#all-budget tr.mark"), "data-row")); mark.Value != "5" {
				t.Errorf("the budget table marks row %q, want 5 (the slider's)", mark.Value)
			}
			if n := get(t, b, chromedp.Evaluate[int](`[...document.querySelectorAll("#all-polls line")].length`)); n < 10 {
				t.Errorf("the slider's timeline draws %d lines, want the axis and a line per poll", n)
			}
			shots := screenshotDir(t)
			slider := get(t, b, chromedp.ScreenshotScale(chromedp.CSS("#all-budget"), 1))
			b.do(t, chromedp.EmulateViewport(1280, 900))
			get(t, b, chromedp.Evaluate[bool](`window.scrollTo(0, 0); true`))
			top := get(t, b, chromedp.CaptureScreenshot())
			b.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
			get(t, b, chromedp.Evaluate[bool](`window.scrollTo(0, 0); true`))
			if get(t, b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)) {
				t.Errorf("at a phone's width (390 px) the page is wider than the screen")
			}
			phone := get(t, b, chromedp.CaptureScreenshot())
			saveShot(t, shots, "report-"+rr.name+"-desktop.png", top)
			saveShot(t, shots, "report-"+rr.name+"-slider.png", slider)
			saveShot(t, shots, "report-"+rr.name+"-phone.png", phone)
			b.check(t, page)

			// JavaScript off: the slider is hidden, its table and every
			// other section are there.
			nojs := newBrowser(t, exe)
			if _, err := chromedp.Call(nojs.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
				t.Fatal(err)
			}
			nojs.do(t, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("#export")))
			if get(t, nojs, chromedp.Evaluate[bool](`getComputedStyle(document.getElementById("all-slider")).display !== "none"`)) {
				t.Error("with JavaScript off the slider shows, though it cannot work")
			}
			rows := get(t, nojs, chromedp.Evaluate[int](`document.querySelectorAll("#all-budget .table tbody tr").length`))
			tableSpec := get(t, nojs, chromedp.Text(chromedp.CSS(`#all-budget .table tbody tr[data-row="5"] td:last-child`)))
			if rows != 9 || tableSpec != wantNext {
				t.Errorf("with JavaScript off the budget table has %d rows, row 5 %q; want 9, %q", rows, tableSpec, wantNext)
			}
			for _, sel := range []string{"#summary table", "#all-data table", "#all-fit svg", "#all-schedule svg", "#all-budget .charts svg", "#export-json", "#export-go"} {
				if n := get(t, nojs, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))); n == 0 {
					t.Errorf("with JavaScript off the page has no %s", sel)
				}
			}
			nojs.check(t, page)
		})
	}
}

// maxReportBytes bounds a report's size.
const maxReportBytes = 1 << 20

// sweepSpec runs pollfit sweep and returns the derived (K-phase)
// schedule of all items at the budget labelled label ("215 stuck polls").
func sweepSpec(t *testing.T, args []string, label string) string {
	t.Helper()
	stdout, stderr, code := runCLI(t, append(args, "--families", "fixed", "-q")...)
	if code != 0 {
		t.Fatalf("pollfit %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	budget, _, _ := strings.Cut(label, " ")
	for _, r := range recs[1:] {
		if r[0] == "all" && r[1] == "pollfit" && r[3] == budget {
			return r[11]
		}
	}
	t.Fatalf("pollfit sweep has no pollfit row at budget %s", budget)
	return ""
}

// screenshotDir is where screenshots go: docs/ with -update, else a
// temporary directory.
func screenshotDir(t *testing.T) string {
	if *update {
		return "docs"
	}
	return t.TempDir()
}

func saveShot(t *testing.T, dir, name string, png []byte) {
	t.Helper()
	if len(png) == 0 {
		t.Errorf("screenshot %s is empty", name)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
