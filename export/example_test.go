package export_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/optimize"
)

func ExampleJSON() {
	s := optimize.MustParseSpec("at 1s, 2s, every 5s until 30s")
	if err := export.JSON(os.Stdout, export.Document{Schedule: s}, export.JSONOptions{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//   "version": 1,
	//   "spec": "at 1s, 2s, every 5s until 30s",
	//   "start_ms": 1000,
	//   "horizon_ms": 30000,
	//   "phases": [
	//     {
	//       "growth": "once",
	//       "gap_ms": 2000
	//     },
	//     {
	//       "growth": "fixed",
	//       "gap_ms": 5000,
	//       "until_ms": 30000
	//     }
	//   ]
	// }
}

func ExampleReadJSON() {
	doc, err := export.ReadJSON(strings.NewReader(`{"version": 1, "start_ms": 0,
		"phases": [{"growth": "exponential", "gap_ms": 1000, "factor": 2, "cap_ms": 8000, "until_ms": 60000}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Schedule)
	fmt.Println(doc.Schedule.Polls()[:6])
	// Output:
	// exp 1s x2 cap 8s until 1m
	// [0s 1s 3s 7s 15s 23s]
}

func ExampleLoad() {
	// A spec, a spec file or a JSON file written by export.JSON. No poll
	// is made after the horizon, 10s: the gap from 9s would end at 11s.
	doc, err := export.Load("1s, every 2s until 10s")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Schedule.Polls())
	_, err = export.Load("schedules/missing.json")
	fmt.Println(err != nil)
	// Output:
	// [0s 1s 3s 5s 7s 9s]
	// true
}

// ExampleGoSource prints the phase table of the generated Go.
func ExampleGoSource() {
	var b bytes.Buffer
	doc := export.Document{Schedule: optimize.References[0]} // the brief's "before"
	if err := export.GoSource(&b, doc, export.Options{Package: "poll", Name: "Payment"}); err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, "{growth:") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// {growth: paymentOnce, gap: 3 * time.Second},
	// {growth: paymentOnce, gap: 5 * time.Second},
	// {growth: paymentOnce, gap: 8 * time.Second},
	// {growth: paymentOnce, gap: 13 * time.Second},
	// {growth: paymentFixed, gap: 15 * time.Second, until: 2 * time.Minute},
	// {growth: paymentFixed, gap: 30 * time.Second, until: 15 * time.Minute},
}

func ExampleTemplate() {
	doc := export.Document{Schedule: optimize.MustParseSpec("every 1s until 5s, every 5s until 30s")}
	text := `{{range .All.Phases}}{{.Growth}} {{ms .Gap}}ms until {{ms .Until}}ms
{{end}}polls: {{len .All.Polls}}, last at {{dur (last .All.Polls)}}
`
	if err := export.Template(os.Stdout, text, doc, export.Options{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// fixed 1000ms until 5000ms
	// fixed 5000ms until 30000ms
	// polls: 11, last at 30s
}
