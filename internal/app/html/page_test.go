package html

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteEscapes: text from the data (a title, a segment's name, a
// spec) is escaped in the page and in the slider's JSON, and the page
// declares its policy of loading nothing.
func TestWriteEscapes(t *testing.T) {
	evil := `</script><img src=x onerror=alert(1)>`
	p := &Page{
		Title: "report " + evil, Version: "test", Command: "pollfit report",
		Parts: []Part{{ID: "all", Title: "Segment " + evil, Spec: evil,
			Budget: Budget{Steps: []Step{{Label: evil, Spec: evil, Polls: []float64{0, 0.5, 1}, Clock: &ClockSpan{From: 0.5, To: 1, Text: evil}}}}}},
	}
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if strings.Contains(s, evil) || strings.Contains(s, "<img") {
		t.Errorf("the page holds %q unescaped", evil)
	}
	if !strings.Contains(s, `\u003c/script\u003e`) {
		t.Error("the slider's JSON does not escape </script>")
	}
	if !strings.Contains(s, `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`) {
		t.Error("the page has no Content-Security-Policy that forbids loading")
	}
}

// A wall-clock schedule's step carries the stretch of the axis where its
// polls follow the clock, and the slider's script draws it.
func TestWriteClockSpan(t *testing.T) {
	p := &Page{Title: "report", Version: "test", Command: "pollfit report",
		Parts: []Part{{ID: "all", Title: "all", Budget: Budget{Steps: []Step{
			{Label: "17 stuck polls", Spec: "every 1s until 10s, after each 5m (+1s +2.5s) until 15m", Polls: []float64{0, 0.3},
				Clock: &ClockSpan{From: 0.3, To: 1, Text: "after each 5m (+1s +2.5s)"}},
			{Label: "5 stuck polls", Spec: "every 1s until 4s", Polls: []float64{0, 1}}}}}}}
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, w := range []string{`"clock":{"from":0.3,"to":1,"text":"after each 5m (+1s +2.5s)"}`, `if (s.clock) {`} {
		if !strings.Contains(s, w) {
			t.Errorf("the page does not hold %s", w)
		}
	}
	if strings.Count(s, `"clock":`) != 1 {
		t.Errorf("the page holds %d clock spans, want 1 (none for the schedule without a wall-clock phase)", strings.Count(s, `"clock":`))
	}
}
